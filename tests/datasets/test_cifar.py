import importlib.util
import io
import os
import pickle
import tarfile

import numpy
import pytest

from cpuframe import datasets

_spec = importlib.util.spec_from_file_location(
    '_fake_cifar', os.path.join(os.path.dirname(__file__), '_fake.py'))
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)


def images(n, seed):
    return numpy.random.RandomState(seed).randint(
        0, 256, (n, 3072)).astype(numpy.uint8)


def write_npz(root, name, n_train=4, n_test=2):
    path = os.path.join(str(root), 'pfnet/chainer/cifar')
    os.makedirs(path, exist_ok=True)
    raw = {'train_x': images(n_train, 0),
           'train_y': numpy.arange(n_train, dtype=numpy.uint8) % 10,
           'test_x': images(n_test, 1),
           'test_y': numpy.arange(n_test, dtype=numpy.uint8) + 5}
    numpy.savez_compressed(os.path.join(path, name + '.npz'), **raw)
    return raw


@pytest.mark.parametrize('get, name', [
    (datasets.get_cifar10, 'cifar-10'), (datasets.get_cifar100, 'cifar-100')])
def test_reads_chainer_cache(dataset_root, get, name):
    raw = write_npz(dataset_root, name)
    train, test = get()
    assert (len(train), len(test)) == (4, 2)
    x, t = train[1]
    assert x.shape == (3, 32, 32) and x.dtype == numpy.float32
    assert t.dtype == numpy.int32 and int(t) == 1
    numpy.testing.assert_allclose(x.ravel(), raw['train_x'][1] / 255.,
                                  rtol=1e-6)
    # Channel-major layout: the first 1024 values are the red plane.
    numpy.testing.assert_allclose(x[0].ravel(), raw['train_x'][1][:1024] /
                                  255., rtol=1e-6)
    assert int(test[1][1]) == 6
    flat, _ = get(withlabel=False, ndim=1, scale=2., dtype=numpy.float64)
    assert flat.shape == (4, 3072) and flat.dtype == numpy.float64
    numpy.testing.assert_allclose(flat, raw['train_x'] * (2. / 255.))
    with pytest.raises(ValueError, match='ndim must be 1 or 3, got 2'):
        get(ndim=2)


def _tar_gz(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as tar:
        for name, obj in members.items():
            data = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_cifar10_download_path(dataset_root):
    members = {}
    for i in range(1, 6):
        members['cifar-10-batches-py/data_batch_{}'.format(i)] = {
            'data': numpy.full((2, 3072), i, numpy.uint8), 'labels': [i, i]}
    members['cifar-10-batches-py/test_batch'] = {
        'data': numpy.full((3, 3072), 200, numpy.uint8), 'labels': [7, 8, 9]}
    fake.put_in_cache(
        dataset_root, 'https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz',
        _tar_gz(members))
    train, test = datasets.get_cifar10(scale=255.)
    assert (len(train), len(test)) == (10, 3)
    assert [int(e[1]) for e in train] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert float(train[9][0][2, 31, 31]) == 5.
    with numpy.load(dataset_root / 'pfnet/chainer/cifar/cifar-10.npz') as f:
        assert sorted(f.files) == ['test_x', 'test_y', 'train_x', 'train_y']
        assert f['train_x'].shape == (10, 3072)
        assert f['test_y'].tolist() == [7, 8, 9]


def test_cifar100_download_path_uses_fine_labels(dataset_root):
    members = {
        'cifar-100-python/train': {
            'data': numpy.zeros((2, 3072), numpy.uint8),
            'fine_labels': [42, 99], 'coarse_labels': [1, 2]},
        'cifar-100-python/test': {
            'data': numpy.zeros((1, 3072), numpy.uint8),
            'fine_labels': [17], 'coarse_labels': [3]},
    }
    fake.put_in_cache(
        dataset_root,
        'https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz',
        _tar_gz(members))
    train, test = datasets.get_cifar100()
    assert [int(e[1]) for e in train] == [42, 99]
    assert int(test[0][1]) == 17


def test_broken_archive(dataset_root):
    fake.put_in_cache(
        dataset_root, 'https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz',
        _tar_gz({'something/else': {}}))
    with pytest.raises(ValueError, match='get_cifar10: .* not a valid '
                                         'cifar-10 archive'):
        datasets.get_cifar10()
    assert os.listdir(dataset_root / 'pfnet/chainer/cifar') == []
