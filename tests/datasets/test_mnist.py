import importlib.util
import os

import numpy
import pytest

from cpuframe import datasets
from cpuframe.dataset import download

_spec = importlib.util.spec_from_file_location(
    '_fake_mnist', os.path.join(os.path.dirname(__file__), '_fake.py'))
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)

MNIST_URL = 'https://ossci-datasets.s3.amazonaws.com/mnist/'
FASHION_URL = 'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/'


def raw_arrays(n, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.randint(0, 256, size=(n, 784)).astype(numpy.uint8)
    x[0, :3] = [0, 255, 51]
    y = rng.randint(0, 10, size=n).astype(numpy.uint8)
    return x, y


def write_chainer_cache(root, directory, n_train=5, n_test=3):
    path = os.path.join(str(root), directory)
    os.makedirs(path, exist_ok=True)
    arrays = {}
    for name, n, seed in (('train', n_train, 0), ('test', n_test, 1)):
        x, y = raw_arrays(n, seed)
        numpy.savez_compressed(os.path.join(path, name + '.npz'), x=x, y=y)
        arrays[name] = x, y
    return arrays


@pytest.fixture(params=[
    ('mnist', 'pfnet/chainer/mnist'),
    ('fashion_mnist', 'pfnet/chainer/fashion-mnist'),
    ('kuzushiji_mnist', 'pfnet/chainer/kuzushiji_mnist'),
])
def cached(request, dataset_root):
    name, directory = request.param
    arrays = write_chainer_cache(dataset_root, directory)
    return getattr(datasets, 'get_' + name), arrays


def test_defaults_read_chainer_cache(cached):
    get, arrays = cached
    train, test = get()
    assert isinstance(train, datasets.TupleDataset)
    assert (len(train), len(test)) == (5, 3)
    x, t = train[0]
    assert x.shape == (784,) and x.dtype == numpy.float32
    assert t.dtype == numpy.int32
    numpy.testing.assert_allclose(x[:3], [0., 1., 0.2], rtol=1e-6)
    raw_x, raw_y = arrays['train']
    numpy.testing.assert_allclose(
        numpy.stack([e[0] for e in train]), raw_x / 255., rtol=1e-6)
    assert [int(e[1]) for e in train] == raw_y.tolist()
    numpy.testing.assert_allclose(test[2][0], arrays['test'][0][2] / 255.,
                                  rtol=1e-6)


@pytest.mark.parametrize('ndim, rgb, shape', [
    (1, False, (784,)), (2, False, (28, 28)), (3, False, (1, 28, 28)),
    (3, True, (3, 28, 28)), (1, True, (784,)),
])
def test_ndim_and_rgb_format(cached, ndim, rgb, shape):
    get, arrays = cached
    train, _ = get(ndim=ndim, rgb_format=rgb)
    x = train[1][0]
    assert x.shape == shape
    flat = arrays['train'][0][1] / 255.
    if rgb and ndim == 3:
        for c in range(3):
            numpy.testing.assert_allclose(x[c].ravel(), flat, rtol=1e-6)
    else:
        numpy.testing.assert_allclose(x.ravel(), flat, rtol=1e-6)


def test_scale_dtype_label_dtype_withlabel(cached):
    get, arrays = cached
    train, test = get(withlabel=False, scale=255., dtype=numpy.float64)
    assert isinstance(train, numpy.ndarray)
    assert train.dtype == numpy.float64 and train.shape == (5, 784)
    numpy.testing.assert_array_equal(train, arrays['train'][0])
    train, _ = get(label_dtype=numpy.int64)
    assert train[0][1].dtype == numpy.int64


def test_bad_arguments(cached):
    get, _ = cached
    with pytest.raises(ValueError, match='ndim must be 1, 2 or 3, got 4'):
        get(ndim=4)
    with pytest.raises(TypeError, match='dtype must be a floating'):
        get(dtype=numpy.int32)


def test_download_path_builds_chainer_cache(dataset_root):
    x_train = numpy.random.RandomState(0).randint(
        0, 256, (4, 28, 28)).astype(numpy.uint8)
    y_train = numpy.array([3, 1, 4, 1], numpy.uint8)
    x_test = numpy.full((2, 28, 28), 255, numpy.uint8)
    y_test = numpy.array([9, 2], numpy.uint8)
    for prefix, x, y in (('train', x_train, y_train),
                         ('t10k', x_test, y_test)):
        fake.put_in_cache(dataset_root,
                          MNIST_URL + prefix + '-images-idx3-ubyte.gz',
                          fake.idx_images(x))
        fake.put_in_cache(dataset_root,
                          MNIST_URL + prefix + '-labels-idx1-ubyte.gz',
                          fake.idx_labels(y))
    train, test = datasets.get_mnist(ndim=2, scale=255.)
    numpy.testing.assert_array_equal(
        numpy.stack([e[0] for e in train]), x_train)
    assert [int(e[1]) for e in test] == [9, 2]
    # The processed cache has Chainer's layout and keys.
    with numpy.load(dataset_root / 'pfnet/chainer/mnist/train.npz') as f:
        assert sorted(f.files) == ['x', 'y']
        assert f['x'].shape == (4, 784) and f['x'].dtype == numpy.uint8
        numpy.testing.assert_array_equal(f['y'], y_train)
    assert sorted(os.listdir(dataset_root / 'pfnet/chainer/mnist')) == [
        'test.npz', 'train.npz']


def test_download_falls_back_to_next_mirror(dataset_root, monkeypatch):
    def offline(url, *args, **kwargs):
        raise OSError('offline')

    monkeypatch.setattr(download.request, 'urlopen', offline)
    mirror = 'https://storage.googleapis.com/cvdf-datasets/mnist/'
    for prefix, n in (('train', 3), ('t10k', 2)):
        fake.put_in_cache(dataset_root,
                          mirror + prefix + '-images-idx3-ubyte.gz',
                          fake.idx_images(numpy.zeros((n, 28, 28),
                                                      numpy.uint8)))
        fake.put_in_cache(dataset_root,
                          mirror + prefix + '-labels-idx1-ubyte.gz',
                          fake.idx_labels(numpy.zeros(n, numpy.uint8)))
    train, test = datasets.get_mnist()
    assert (len(train), len(test)) == (3, 2)


def test_all_mirrors_failing_names_the_urls(dataset_root, monkeypatch):
    def offline(url, *args, **kwargs):
        raise OSError('offline')

    monkeypatch.setattr(download.request, 'urlopen', offline)
    with pytest.raises(OSError, match='(?s)get_mnist.*train-images.*offline'):
        datasets.get_mnist()
    assert not os.path.exists(
        dataset_root / 'pfnet/chainer/mnist/train.npz')


def test_corrupt_idx_file(dataset_root):
    for prefix in ('train', 't10k'):
        fake.put_in_cache(dataset_root,
                          FASHION_URL + prefix + '-images-idx3-ubyte.gz',
                          fake.idx_labels(numpy.zeros(3, numpy.uint8)))
        fake.put_in_cache(dataset_root,
                          FASHION_URL + prefix + '-labels-idx1-ubyte.gz',
                          fake.idx_labels(numpy.zeros(3, numpy.uint8)))
    with pytest.raises(ValueError, match='get_fashion_mnist.*not an MNIST '
                                         'idx file'):
        datasets.get_fashion_mnist()
    assert os.listdir(dataset_root / 'pfnet/chainer/fashion-mnist') == []


def test_fashion_mnist_labels():
    assert datasets.get_fashion_mnist_labels([0, 9, 5]) == [
        'T-shirt/top', 'Ankle boot', 'Sandal']
    with pytest.raises(ValueError, match='get_fashion_mnist_labels'):
        datasets.get_fashion_mnist_labels([10])


def test_kuzushiji_download_and_labels(dataset_root):
    base = 'http://codh.rois.ac.jp/kmnist/dataset/kmnist/'
    for prefix, n in (('train', 3), ('t10k', 2)):
        fake.put_in_cache(dataset_root,
                          base + prefix + '-images-idx3-ubyte.gz',
                          fake.idx_images(numpy.full((n, 28, 28), 255,
                                                     numpy.uint8)))
        fake.put_in_cache(dataset_root,
                          base + prefix + '-labels-idx1-ubyte.gz',
                          fake.idx_labels(numpy.arange(n, dtype=numpy.uint8)))
    train, test = datasets.get_kuzushiji_mnist(ndim=3)
    assert (len(train), len(test)) == (3, 2)
    assert train[2][0].shape == (1, 28, 28) and int(train[2][1]) == 2
    assert (dataset_root / 'pfnet/chainer/kuzushiji_mnist/test.npz').exists()
    labels = datasets.get_kuzushiji_mnist_labels()
    assert len(labels) == 10
    assert labels[0] == ('o', '\u304a') and labels[9] == ('wo', '\u3092')
