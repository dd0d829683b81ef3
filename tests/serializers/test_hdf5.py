import stat

import numpy
import pytest

from cpuframe import Parameter, serializers
from cpuframe.link import Chain, Link
from cpuframe.serializers import hdf5


class Leaf(Link):
    def __init__(self, seed):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.W = Parameter(rng.normal(size=(2, 3)).astype(numpy.float32))
        self.add_persistent('n', seed)
        self.add_persistent('tag', 'leaf{}'.format(seed))


class Model(Chain):
    def __init__(self, seed=0):
        super().__init__()
        with self.init_scope():
            self.a = Leaf(seed)
            self.b = Leaf(seed + 1)


def test_missing_h5py_gives_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(hdf5, 'h5py', None)
    for call in (lambda: serializers.save_hdf5(tmp_path / 'm.h5', Model()),
                 lambda: serializers.load_hdf5(tmp_path / 'm.h5', Model())):
        with pytest.raises(RuntimeError, match='h5py is not installed'):
            call()


@pytest.mark.skipif(hdf5.h5py is None, reason='h5py is not installed')
def test_roundtrip_and_failed_load(tmp_path):
    path = tmp_path / 'm.h5'
    serializers.save_hdf5(path, Model(0))
    with hdf5.h5py.File(path, 'r') as f:
        assert 'a/W' in f and 'b/n' in f
    target = Model(5)
    serializers.load_hdf5(path, target)
    numpy.testing.assert_array_equal(target.a.W.array, Model(0).a.W.array)
    assert target.b.n == 1 and target.b.tag == 'leaf1'

    other = Model(7)
    with other.b.init_scope():
        other.b.W = Parameter(numpy.zeros((3, 3), numpy.float32))
    before = other.a.W.array.copy()
    with pytest.raises(ValueError, match="'b/W'"):
        serializers.load_hdf5(path, other)
    numpy.testing.assert_array_equal(other.a.W.array, before)
    assert other.a.n == 7


@pytest.mark.skipif(hdf5.h5py is None, reason='h5py is not installed')
@pytest.mark.parametrize('mask, mode', [(0o022, 0o644), (0o077, 0o600)])
def test_saved_file_mode_follows_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    path = tmp_path / 'm.h5'
    serializers.save_hdf5(path, Model(0))
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert [p.name for p in tmp_path.iterdir()] == ['m.h5']
