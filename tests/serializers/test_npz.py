import json
import os
import stat

import numpy
import pytest

from cpuframe import Parameter, _atomic_write, serializers
from cpuframe.link import Chain, Link


class Leaf(Link):
    def __init__(self, seed=0, lazy=False):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.W = Parameter(rng.normal(size=(2, 3)).astype(numpy.float32))
            self.u = Parameter() if lazy else Parameter(
                rng.normal(size=(4,)).astype(numpy.float32))
        self.add_persistent('mean', rng.normal(size=3).astype(numpy.float32))
        self.add_persistent('n', seed)


class Model(Chain):
    def __init__(self, seed=0, lazy=False):
        super().__init__()
        with self.init_scope():
            self.a = Leaf(seed, lazy)
            self.b = Leaf(seed + 1, lazy)


def _state(model):
    out = {n: p.array.copy() for n, p in model.namedparams() if p.array is not None}
    for path, link in model.namedlinks():
        for name in link._persistent:
            v = getattr(link, name)
            out[path + '#' + name] = v.copy() if hasattr(v, 'copy') else v
    return out


def _assert_same(s1, s2):
    assert s1.keys() == s2.keys()
    for k in s1:
        numpy.testing.assert_array_equal(s1[k], s2[k])


def test_roundtrip_and_key_layout(tmp_path):
    src, dst = Model(0), Model(10)
    path = tmp_path / 'm.npz'
    serializers.save_npz(str(path), src)
    with numpy.load(path, allow_pickle=True) as f:
        assert sorted(f.files) == sorted([
            'a/W', 'a/u', 'a/mean', 'a/n', 'b/W', 'b/u', 'b/mean', 'b/n'])
    serializers.load_npz(str(path), dst)
    _assert_same(_state(src), _state(dst))
    assert dst.b.n == 1 and isinstance(dst.b.n, int)


def test_uninitialized_parameter_is_initialized_on_load(tmp_path):
    src, dst = Model(0), Model(5, lazy=True)
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, src)
    serializers.load_npz(path, dst)
    numpy.testing.assert_array_equal(dst.a.u.array, src.a.u.array)


def test_path_and_nonstrict(tmp_path):
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, Model(0))
    leaf = Leaf(3)
    serializers.load_npz(path, leaf, path='b/')
    numpy.testing.assert_array_equal(leaf.W.array, Model(0).b.W.array)
    bigger = Model(4)
    bigger.a.add_persistent('extra', 9)
    serializers.load_npz(path, bigger, strict=False)
    assert bigger.a.extra == 9


def test_missing_key_leaves_target_untouched(tmp_path):
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, Model(0))
    target = Model(7)
    target.b.add_persistent('extra', 1)
    before = _state(target)
    with pytest.raises(KeyError, match="'b/extra'.*m.npz"):
        serializers.load_npz(path, target)
    _assert_same(before, _state(target))


def test_shape_mismatch_leaves_target_untouched(tmp_path):
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, Model(0))
    target = Model(7)
    target.b.W = None  # replaced below with a wrong shape
    with target.b.init_scope():
        target.b.W = Parameter(numpy.zeros((3, 3), numpy.float32))
    before = _state(target)
    with pytest.raises(ValueError, match=r"'b/W'.*\(3, 3\).*\(2, 3\)"):
        serializers.load_npz(path, target)
    _assert_same(before, _state(target))


def test_corrupt_and_truncated_files(tmp_path):
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, Model(0))
    data = path.read_bytes()
    truncated = tmp_path / 't.npz'
    truncated.write_bytes(data[: len(data) // 2])
    garbage = tmp_path / 'g.npz'
    garbage.write_bytes(b'not a zip file at all')
    for bad in (truncated, garbage):
        target = Model(7)
        before = _state(target)
        with pytest.raises(ValueError, match=bad.name):
            serializers.load_npz(bad, target)
        _assert_same(before, _state(target))


def test_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, Model(0))
    original = path.read_bytes()

    def failing_savez(f, **kwargs):
        f.write(b'partial')
        raise RuntimeError('disk full')

    monkeypatch.setattr(numpy, 'savez_compressed', failing_savez)
    with pytest.raises(RuntimeError, match='disk full'):
        serializers.save_npz(path, Model(1))
    assert path.read_bytes() == original
    assert [p.name for p in tmp_path.iterdir()] == ['m.npz']


@pytest.mark.parametrize('mask, mode', [(0o022, 0o644), (0o077, 0o600)])
def test_saved_file_mode_follows_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    path = tmp_path / 'm.npz'
    serializers.save_npz(path, Model(0))
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_save_removes_debris_of_dead_processes_only(tmp_path, dead_pid):
    prefix = _atomic_write.temporary_prefix('m.npz')
    dead = tmp_path / '{}{}-0123abcd'.format(prefix, dead_pid)
    live = tmp_path / '{}{}-0123abcd'.format(prefix, os.getpid())
    dead.write_bytes(b'partial')
    live.write_bytes(b'partial')
    serializers.save_npz(tmp_path / 'm.npz', Model(0))
    assert sorted(os.listdir(tmp_path)) == sorted(['m.npz', live.name])
    serializers.load_npz(tmp_path / 'm.npz', Model(1))


def test_save_fsyncs_the_file_then_its_directory(tmp_path, monkeypatch):
    path = tmp_path / 'm.npz'
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        st = os.fstat(fd)
        synced.append((stat.S_ISDIR(st.st_mode), st.st_ino, path.exists()))
        real_fsync(fd)

    monkeypatch.setattr(os, 'fsync', fsync)
    serializers.save_npz(path, Model(0))
    assert synced == [(False, path.stat().st_ino, False),
                      (True, tmp_path.stat().st_ino, True)]


def test_file_objects(tmp_path):
    path = tmp_path / 'm.npz'
    with open(path, 'wb') as f:
        serializers.save_npz(f, Model(0), compression=False)
    dst = Model(3)
    with open(path, 'rb') as f:
        serializers.load_npz(f, dst)
    _assert_same(_state(Model(0)), _state(dst))
    assert os.path.getsize(path) > 0


class JsonState:
    """A user object in Chainer's usual style: a JSON string, save vs load."""

    def __init__(self, log=None):
        self.log = log or []

    def serialize(self, s):
        if isinstance(s, serializers.DictionarySerializer):
            s('_log', json.dumps(self.log))
        else:
            self.log = json.loads(s('_log', ''))


def test_string_values_and_user_serialize(tmp_path):
    path = tmp_path / 'j.npz'
    serializers.save_npz(path, JsonState([1, {'a': 2}]))
    target = JsonState()
    serializers.load_npz(path, target)
    assert target.log == [1, {'a': 2}]


def test_save_dict_and_serialize(tmp_path):
    path = tmp_path / 'd.npz'
    serializers.save_npz(path, {'x': numpy.arange(3), 'n': 4})
    with numpy.load(path) as f:
        numpy.testing.assert_array_equal(f['x'], numpy.arange(3))
        assert int(f['n']) == 4
    d = serializers.serialize(Model(0))
    assert 'a/W' in d and isinstance(d['a/W'], numpy.ndarray)
