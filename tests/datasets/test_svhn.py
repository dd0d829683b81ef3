import importlib.util
import os
import struct
import zlib

import numpy
import pytest

from cpuframe import datasets
from cpuframe.datasets import _matlab

_spec = importlib.util.spec_from_file_location(
    '_fake_svhn', os.path.join(os.path.dirname(__file__), '_fake.py'))
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)

URL = 'http://ufldl.stanford.edu/housenumbers/{}_32x32.mat'

# MAT-file level 5 codes (MathWorks' "MAT-File Format").
MI_INT8, MI_UINT8, MI_INT32, MI_UINT32, MI_DOUBLE = 1, 2, 5, 6, 9
MI_MATRIX, MI_COMPRESSED = 14, 15
MX_CHAR, MX_DOUBLE, MX_UINT8, MX_INT16 = 4, 6, 9, 10


# -- a MAT-file writer, independent of the reader ------------------------
def _element(order, mtype, payload, small=True):
    if small and len(payload) <= 4:
        # small data element: type in the low, byte count in the high half
        # of the first 32-bit word
        word = struct.pack(order + 'I', (len(payload) << 16) | mtype)
        return word + payload.ljust(4, b'\0')
    pad = b'\0' * (-len(payload) % 8)
    return struct.pack(order + 'II', mtype, len(payload)) + payload + pad


def _variable(order, name, array, mclass, stored, mtype, small_name=True):
    flags = struct.pack(order + 'II', mclass, 0)
    dims = numpy.asarray(array.shape, order + 'i4').tobytes()
    data = numpy.asarray(array, order + stored).tobytes(order='F')
    body = (_element(order, MI_UINT32, flags) +
            _element(order, MI_INT32, dims) +
            _element(order, MI_INT8, name.encode('ascii'), small=small_name) +
            _element(order, mtype, data))
    return _element(order, MI_MATRIX, body, small=False)


def mat_file(variables, order='<', compress=False, small_names=True):
    """Bytes of a level-5 MAT-file holding ``variables``: a list of
    ``(name, array, class, stored dtype, stored type code)``."""
    text = b'MATLAB 5.0 MAT-file, written by the cpuframe tests'
    header = text.ljust(116, b' ') + b'\0' * 8 + \
        struct.pack(order + 'H', 0x0100) + (b'IM' if order == '<' else b'MI')
    out = header
    for name, array, mclass, stored, mtype in variables:
        element = _variable(order, name, array, mclass, stored, mtype,
                            small_names)
        if compress:  # compressed elements are not padded
            z = zlib.compress(element)
            element = struct.pack(order + 'II', MI_COMPRESSED, len(z)) + z
        out += element
    return out


def svhn_mat(x, y, **kwargs):
    """SVHN's variables: X (32, 32, 3, N) uint8, y (N, 1) double stored as
    uint8 (as MATLAB saves small integers)."""
    return mat_file([('X', x, MX_UINT8, 'u1', MI_UINT8),
                     ('y', y.reshape(-1, 1).astype(numpy.float64), MX_DOUBLE,
                      'u1', MI_UINT8)], **kwargs)


def svhn_arrays(n, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.randint(0, 256, (32, 32, 3, n)).astype(numpy.uint8)
    y = (numpy.arange(n) % 10 + 1).astype(numpy.uint8)  # labels 1..10
    return x, y


# -- the reader ------------------------------------------------------------
@pytest.mark.parametrize('order', ['<', '>'])
@pytest.mark.parametrize('compress', [False, True])
@pytest.mark.parametrize('small_names', [True, False])
def test_loadmat_reads_numeric_arrays(tmp_path, order, compress,
                                      small_names):
    rng = numpy.random.RandomState(0)
    a = rng.randint(0, 256, (4, 3, 2, 5)).astype(numpy.uint8)
    b = rng.randint(1, 11, (7, 1)).astype(numpy.float64)
    c = rng.uniform(-1, 1, (3, 2))
    d = rng.randint(-300, 300, (2, 3)).astype(numpy.int16)
    path = tmp_path / 'a.mat'
    path.write_bytes(mat_file([
        ('X', a, MX_UINT8, 'u1', MI_UINT8),
        ('y', b, MX_DOUBLE, 'u1', MI_UINT8),
        ('longer_name', c, MX_DOUBLE, 'f8', MI_DOUBLE),
        ('d', d, MX_INT16, 'i4', MI_INT32),
    ], order=order, compress=compress, small_names=small_names))
    out = _matlab.loadmat(str(path))
    assert sorted(out) == ['X', 'd', 'longer_name', 'y']
    assert out['X'].dtype == numpy.uint8 and out['X'].shape == a.shape
    numpy.testing.assert_array_equal(out['X'], a)  # column-major order
    assert out['y'].dtype == numpy.float64 and out['y'].shape == (7, 1)
    numpy.testing.assert_array_equal(out['y'], b)
    numpy.testing.assert_array_equal(out['longer_name'], c)
    assert out['longer_name'].dtype.isnative
    assert out['d'].dtype == numpy.int16
    numpy.testing.assert_array_equal(out['d'], d)
    only = _matlab.loadmat(str(path), variable_names=['y'])
    assert list(only) == ['y']


def test_loadmat_skips_unwanted_non_numeric_and_rejects_wanted(tmp_path):
    text = numpy.frombuffer(b'hello', numpy.uint8).reshape(1, 5)
    path = tmp_path / 'a.mat'
    path.write_bytes(mat_file([
        ('s', text.astype(numpy.uint16), MX_CHAR, 'u2', 4),
        ('y', numpy.ones((2, 1)), MX_DOUBLE, 'u1', MI_UINT8)]))
    assert list(_matlab.loadmat(str(path), variable_names=['y'])) == ['y']
    with pytest.raises(ValueError, match="variable 's' is a char array"):
        _matlab.loadmat(str(path))
    with pytest.raises(ValueError, match=r"no variable\(s\) \['z'\]"):
        _matlab.loadmat(str(path), variable_names=['y', 'z'])


def test_loadmat_bad_files(tmp_path):
    path = tmp_path / 'bad.mat'
    path.write_bytes(b'MATLAB 7.3 MAT-file'.ljust(128, b' '))
    with pytest.raises(ValueError, match='7.3 \\(HDF5\\)'):
        _matlab.loadmat(str(path))
    path.write_bytes(b'short')
    with pytest.raises(ValueError, match='bad.mat: not a MATLAB 5 MAT-file'):
        _matlab.loadmat(str(path))
    path.write_bytes(b' ' * 200)
    with pytest.raises(ValueError, match='IM/MI byte-order'):
        _matlab.loadmat(str(path))
    good = mat_file([('X', numpy.zeros((3, 3), numpy.uint8), MX_UINT8, 'u1',
                      MI_UINT8)])
    path.write_bytes(good[:-12])
    with pytest.raises(ValueError, match='bad.mat: truncated MAT-file'):
        _matlab.loadmat(str(path))
    z = mat_file([('X', numpy.zeros((3, 3), numpy.uint8), MX_UINT8, 'u1',
                   MI_UINT8)], compress=True)
    path.write_bytes(z[:136] + b'\x00' * (len(z) - 136))
    with pytest.raises(ValueError, match='corrupt compressed element'):
        _matlab.loadmat(str(path))


# -- get_svhn --------------------------------------------------------------
def _check_split(split, x, y, scale=1., dtype=numpy.float32,
                 label_dtype=numpy.int32):
    n = x.shape[3]
    assert len(split) == n
    for i in range(n):
        image, label = split[i]
        assert image.shape == (3, 32, 32) and image.dtype == dtype
        # image[c, h, w] is X[h, w, c, i]
        numpy.testing.assert_allclose(
            image, x[:, :, :, i].transpose(2, 0, 1) * (scale / 255.),
            rtol=1e-6)
        assert label.dtype == label_dtype
        assert int(label) == int(y[i]) % 10  # the digit 0 is labelled 10


@pytest.mark.parametrize('compress', [False, True])
def test_get_svhn_download_path(dataset_root, compress):
    arrays = {'train': svhn_arrays(12, 0), 'test': svhn_arrays(4, 1)}
    for name, (x, y) in arrays.items():
        fake.put_in_cache(dataset_root, URL.format(name),
                          svhn_mat(x, y, compress=compress))
    train, test = datasets.get_svhn()
    _check_split(train, *arrays['train'])
    _check_split(test, *arrays['test'])
    assert int(train[9][1]) == 0 and int(train[8][1]) == 9
    # cached in Chainer's layout
    cache = dataset_root / 'pfnet' / 'chainer' / 'svhn'
    with numpy.load(str(cache / 'train.npz')) as f:
        assert sorted(f.files) == ['x', 'y']
        numpy.testing.assert_array_equal(f['x'], arrays['train'][0])
        assert f['y'].shape == (12, 1) and f['y'].dtype == numpy.uint8
    # the second call reads the cache, not the .mat files
    for name in arrays:
        os.remove(fake.cache_path(dataset_root, URL.format(name)))
    train2, _ = datasets.get_svhn(withlabel=False, scale=2.,
                                  dtype=numpy.float64)
    assert train2.shape == (12, 3, 32, 32) and train2.dtype == numpy.float64
    numpy.testing.assert_allclose(
        train2, arrays['train'][0].transpose(3, 2, 0, 1) * (2. / 255.))


def test_get_svhn_extra_and_label_dtype(dataset_root):
    arrays = {'train': svhn_arrays(3, 0), 'test': svhn_arrays(2, 1),
              'extra': svhn_arrays(10, 2)}
    for name, (x, y) in arrays.items():
        fake.put_in_cache(dataset_root, URL.format(name),
                          svhn_mat(x, y, compress=True))
    out = datasets.get_svhn(add_extra=True, label_dtype=numpy.int64,
                            dtype=numpy.float16, scale=3.)
    assert len(out) == 3
    for split, name in zip(out, ('train', 'test', 'extra')):
        x, y = arrays[name]
        n = x.shape[3]
        assert len(split) == n
        image, label = split[n - 1]
        assert image.dtype == numpy.float16 and label.dtype == numpy.int64
        numpy.testing.assert_allclose(
            image.astype(numpy.float64),
            x[:, :, :, n - 1].transpose(2, 0, 1) * (3. / 255.), rtol=2e-3)
        assert int(label) == int(y[n - 1]) % 10
    assert [int(t) for _, t in out[2]] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]


def test_get_svhn_reads_chainer_cache(dataset_root):
    cache = dataset_root / 'pfnet' / 'chainer' / 'svhn'
    cache.mkdir(parents=True)
    arrays = {'train': svhn_arrays(5, 3), 'test': svhn_arrays(3, 4)}
    for name, (x, y) in arrays.items():
        numpy.savez_compressed(str(cache / (name + '.npz')), x=x,
                               y=y.reshape(-1, 1))
    train, test = datasets.get_svhn()
    _check_split(train, *arrays['train'])
    _check_split(test, *arrays['test'])


def test_get_svhn_errors(dataset_root, monkeypatch):
    from cpuframe.dataset import download

    def offline(url, *args, **kwargs):
        raise OSError('network is unreachable')

    monkeypatch.setattr(download.request, 'urlopen', offline)
    with pytest.raises(TypeError, match='get_svhn: dtype must be a '
                                        'floating-point type'):
        datasets.get_svhn(dtype=numpy.int32)
    # nothing cached and no network: the error names the URL
    with pytest.raises(OSError, match='(?s)get_svhn: cannot download.*'
                                      'train_32x32.mat'):
        datasets.get_svhn()
    assert not (dataset_root / 'pfnet' / 'chainer' / 'svhn' /
                'train.npz').exists()
    cache = dataset_root / 'pfnet' / 'chainer' / 'svhn'
    numpy.savez_compressed(str(cache / 'train.npz'),
                           x=numpy.zeros((28, 28, 1, 2), numpy.uint8),
                           y=numpy.zeros((2, 1), numpy.uint8))
    with pytest.raises(ValueError, match=r'get_svhn: the cached arrays have '
                                         r'shapes \(28, 28, 1, 2\)'):
        datasets.get_svhn()
