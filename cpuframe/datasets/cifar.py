"""CIFAR-10 and CIFAR-100 (downloaded once, then cached)."""
import os
import pickle
import tarfile

import numpy

from cpuframe.dataset import download
from cpuframe.datasets import _cache
from cpuframe.datasets.tuple_dataset import TupleDataset


def get_cifar10(withlabel=True, ndim=3, scale=1., dtype=None):
    """The CIFAR-10 training (50000) and test (10000) sets.

    32x32 RGB images in 10 classes.  The archive is downloaded on first use
    and cached as ``<dataset root>/pfnet/chainer/cifar/cifar-10.npz`` (keys
    ``train_x``, ``train_y``, ``test_x``, ``test_y``; images
    ``(N, 3072)`` uint8), the layout Chainer writes.

    Args:
        withlabel (bool): Return ``TupleDataset``\\ s of ``(image, label)``
            (int32 labels); otherwise arrays of images.
        ndim (int): Shape of each image: 1 ``(3072,)``, 3 ``(3, 32, 32)``.
        scale (float): Pixels are scaled to ``[0, scale]``.
        dtype: Floating dtype of the images; ``config.dtype`` by default.

    Returns:
        ``(train, test)``.
    """
    return _get_cifar('cifar-10', withlabel, ndim, scale, dtype,
                      'get_cifar10')


def get_cifar100(withlabel=True, ndim=3, scale=1., dtype=None):
    """The CIFAR-100 training (50000) and test (10000) sets, with the 100
    fine labels.  Same arguments and cache layout as ``get_cifar10``
    (``pfnet/chainer/cifar/cifar-100.npz``).

    Returns:
        ``(train, test)``.
    """
    return _get_cifar('cifar-100', withlabel, ndim, scale, dtype,
                      'get_cifar100')


def _unpickle(archive, member):
    # The archive's batches are Python 2 pickles of dicts of arrays/lists.
    f = archive.extractfile(member)
    if f is None:
        raise ValueError('{} is not a file in the archive'.format(member))
    with f:
        return pickle.load(f, encoding='latin-1')


def _read_cifar10(archive_path):
    xs, ys = [], []
    with tarfile.open(archive_path, 'r:gz') as archive:
        for i in range(1, 6):
            d = _unpickle(archive, 'cifar-10-batches-py/data_batch_{}'.format(i))
            xs.append(numpy.asarray(d['data'], numpy.uint8).reshape(-1, 3072))
            ys.append(numpy.asarray(d['labels'], numpy.uint8))
        d = _unpickle(archive, 'cifar-10-batches-py/test_batch')
        test_x = numpy.asarray(d['data'], numpy.uint8).reshape(-1, 3072)
        test_y = numpy.asarray(d['labels'], numpy.uint8)
    return numpy.concatenate(xs), numpy.concatenate(ys), test_x, test_y


def _read_cifar100(archive_path):
    def load(archive, member):
        d = _unpickle(archive, member)
        return (numpy.asarray(d['data'], numpy.uint8).reshape(-1, 3072),
                numpy.asarray(d['fine_labels'], numpy.uint8))

    with tarfile.open(archive_path, 'r:gz') as archive:
        train_x, train_y = load(archive, 'cifar-100-python/train')
        test_x, test_y = load(archive, 'cifar-100-python/test')
    return train_x, train_y, test_x, test_y


def _get_cifar(name, withlabel, ndim, scale, dtype, func):
    if ndim not in (1, 3):
        raise ValueError('{}: ndim must be 1 or 3, got {!r}'.format(func, ndim))
    dtype = _cache.image_dtype(dtype, func)
    url = 'https://www.cs.toronto.edu/~kriz/{}-python.tar.gz'.format(name)

    def creator(path):
        archive_path = _cache.download_first([url], func)
        read = _read_cifar10 if name == 'cifar-10' else _read_cifar100
        try:
            train_x, train_y, test_x, test_y = read(archive_path)
        except (KeyError, ValueError, tarfile.TarError, EOFError,
                pickle.UnpicklingError) as e:
            raise ValueError('{}: {} is not a valid {} archive: {}'.format(
                func, archive_path, name, e)) from e
        raw = {'train_x': train_x, 'train_y': train_y,
               'test_x': test_x, 'test_y': test_y}
        numpy.savez_compressed(path, **raw)
        return raw

    root = download.get_dataset_directory('pfnet/chainer/cifar')
    raw = download.cache_or_load_file(
        os.path.join(root, '{}.npz'.format(name)), creator, _cache.load_npz)

    def preprocess(images, labels):
        shape = (-1, 3072) if ndim == 1 else (-1, 3, 32, 32)
        images = _cache.scale_images(images.reshape(shape), dtype, scale, 255.)
        if withlabel:
            return TupleDataset(images, labels.astype(numpy.int32))
        return images

    return (preprocess(raw['train_x'], raw['train_y']),
            preprocess(raw['test_x'], raw['test_y']))
