import hashlib
import os
import threading

import numpy
import pytest

from cpuframe.dataset import download


@pytest.fixture
def root(tmp_path, monkeypatch):
    path = tmp_path / 'root'
    monkeypatch.setenv('CPUFRAME_DATASET_ROOT', str(path))
    monkeypatch.delenv('CHAINER_DATASET_ROOT', raising=False)
    monkeypatch.setattr(download, '_dataset_root', None)
    return path


def test_dataset_root_precedence(tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', None)
    monkeypatch.delenv('CPUFRAME_DATASET_ROOT', raising=False)
    monkeypatch.delenv('CHAINER_DATASET_ROOT', raising=False)
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert download.get_dataset_root() == str(
        tmp_path / 'home' / '.chainer' / 'dataset')
    monkeypatch.setenv('CHAINER_DATASET_ROOT', '/c')
    assert download.get_dataset_root() == '/c'
    monkeypatch.setenv('CPUFRAME_DATASET_ROOT', '/p')
    assert download.get_dataset_root() == '/p'
    download.set_dataset_root(tmp_path / 'set')
    assert download.get_dataset_root() == str(tmp_path / 'set')
    download.set_dataset_root(None)
    assert download.get_dataset_root() == '/p'


def test_get_dataset_directory(root):
    path = download.get_dataset_directory('pfnet/chainer/mnist',
                                          create_directory=False)
    assert path == os.path.join(str(root), 'pfnet/chainer/mnist')
    assert not os.path.exists(path)
    assert download.get_dataset_directory('pfnet/chainer/mnist') == path
    assert os.path.isdir(path)


def test_cached_download_file_url(root, tmp_path, capsys):
    src = tmp_path / 'data.bin'
    src.write_bytes(b'\x00\x01payload' * 1000)
    url = src.as_uri()
    path = download.cached_download(url)
    expected = root / '_dl_cache' / hashlib.md5(url.encode()).hexdigest()
    assert path == str(expected)
    assert expected.read_bytes() == src.read_bytes()
    assert 'Downloading from {}'.format(url) in capsys.readouterr().out
    # Cached: the source may go away, nothing is downloaded again.
    src.unlink()
    assert download.cached_download(url) == path
    assert capsys.readouterr().out == ''
    leftovers = [n for n in os.listdir(root / '_dl_cache')
                 if n not in (expected.name, '_dl_lock')]
    assert leftovers == []


def test_failed_download_leaves_no_cache_entry(root, monkeypatch):
    class Broken:
        headers = {}

        def __init__(self):
            self.n = 0

        def read(self, size=-1):
            self.n += 1
            if self.n > 1:
                raise ConnectionResetError('connection reset')
            return b'partial'

        def __enter__(self):
            return self

        def __exit__(self, *args):
            pass

    monkeypatch.setattr(download.request, 'urlopen',
                        lambda url, timeout=None: Broken())
    url = 'http://example.invalid/file.gz'
    with pytest.raises(OSError, match='cached_download.*example.invalid'):
        download.cached_download(url)
    assert os.listdir(root / '_dl_cache') == ['_dl_lock']


def test_truncated_download_is_detected(root, monkeypatch):
    import io

    class Short(io.BytesIO):
        headers = {'Content-Length': '100'}

    monkeypatch.setattr(download.request, 'urlopen',
                        lambda url, timeout=None: Short(b'x' * 10))
    with pytest.raises(OSError, match='truncated'):
        download.cached_download('http://example.invalid/short')
    assert os.listdir(root / '_dl_cache') == ['_dl_lock']


def test_cache_or_load_file_creates_then_loads(root):
    path = os.path.join(download.get_dataset_directory('x'), 'a.npz')
    created = []

    def creator(temp_path):
        assert temp_path != path and not os.path.exists(temp_path)
        assert os.path.basename(temp_path) == 'a.npz'
        numpy.savez(temp_path, v=numpy.arange(3))
        created.append(temp_path)
        return 'created'

    def loader(p):
        with numpy.load(p) as f:
            return f['v'].tolist()

    assert download.cache_or_load_file(path, creator, loader) == 'created'
    assert not os.path.exists(os.path.dirname(created[0]))
    assert download.cache_or_load_file(path, creator, loader) == [0, 1, 2]
    assert len(created) == 1
    assert sorted(os.listdir(os.path.dirname(path))) == ['a.npz']


def test_cache_or_load_file_failing_creator_leaves_nothing(root):
    directory = download.get_dataset_directory('y')
    path = os.path.join(directory, 'b.npz')

    def creator(temp_path):
        with open(temp_path, 'wb') as f:
            f.write(b'half')
        raise RuntimeError('interrupted')

    with pytest.raises(RuntimeError, match='interrupted'):
        download.cache_or_load_file(path, creator, None)
    assert os.listdir(directory) == []


def test_cache_or_load_file_concurrent_callers(root):
    path = os.path.join(download.get_dataset_directory('z'), 'c.txt')
    barrier = threading.Barrier(4)
    results = []

    def creator(temp_path):
        barrier.wait(timeout=10)
        with open(temp_path, 'w') as f:
            f.write('done')
        return 'done'

    def work():
        results.append(download.cache_or_load_file(
            path, creator, lambda p: open(p).read()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert results == ['done'] * 4
    assert sorted(os.listdir(os.path.dirname(path))) == ['c.txt']
