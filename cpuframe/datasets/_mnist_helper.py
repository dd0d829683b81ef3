"""MNIST-format datasets (MNIST, Fashion-MNIST): the idx file parser and
the common preprocessing."""
import gzip
import os

import numpy

from cpuframe.dataset import download
from cpuframe.datasets import _cache
from cpuframe.datasets.tuple_dataset import TupleDataset


def _read_idx(path, magic, func):
    with gzip.open(path, 'rb') as f:
        data = f.read()
    if len(data) < 8 or int.from_bytes(data[:4], 'big') != magic:
        raise ValueError(
            '{}: {} is not an MNIST idx file (magic {} expected)'.format(
                func, path, magic))
    ndim = magic & 0xff
    offset = 4 + 4 * ndim
    if len(data) < offset:
        raise ValueError('{}: {} is truncated'.format(func, path))
    dims = numpy.frombuffer(data, dtype='>i4', count=ndim, offset=4)
    size = int(numpy.prod(dims))
    if len(data) - offset != size:
        raise ValueError(
            '{}: {} holds {} bytes of data, its header announces {} '
            '(shape {})'.format(func, path, len(data) - offset, size,
                                tuple(int(d) for d in dims)))
    return numpy.frombuffer(data, dtype=numpy.uint8, offset=offset).reshape(
        tuple(int(d) for d in dims))


def retrieve(dataset_dir, name, image_urls, label_urls, func):
    """The raw ``{'x': (N, 784) uint8, 'y': (N,) uint8}`` arrays, from
    ``<root>/<dataset_dir>/<name>`` or downloaded and cached there."""
    def creator(path):
        x_path = _cache.download_first(image_urls, func)
        y_path = _cache.download_first(label_urls, func)
        x = _read_idx(x_path, 2051, func)
        y = _read_idx(y_path, 2049, func)
        if len(x) != len(y):
            raise ValueError(
                '{}: {} images but {} labels; wrong pair of files'.format(
                    func, len(x), len(y)))
        x = x.reshape(len(x), -1)
        numpy.savez_compressed(path, x=x, y=y)
        return {'x': x, 'y': y}

    root = download.get_dataset_directory(dataset_dir)
    return download.cache_or_load_file(
        os.path.join(root, name), creator, _cache.load_npz)


def preprocess(raw, withlabel, ndim, scale, dtype, label_dtype, rgb_format,
               func):
    dtype = _cache.image_dtype(dtype, func)
    images = raw['x']
    if images.ndim != 2 or images.shape[1] != 784:
        raise ValueError(
            '{}: the cached images have shape {}, expected (N, 784)'.format(
                func, images.shape))
    if ndim == 1:
        pass
    elif ndim == 2:
        images = images.reshape(-1, 28, 28)
    elif ndim == 3:
        images = images.reshape(-1, 1, 28, 28)
        if rgb_format:
            images = numpy.broadcast_to(images, (len(images), 3, 28, 28))
    else:
        raise ValueError(
            '{}: ndim must be 1, 2 or 3, got {!r}'.format(func, ndim))
    images = _cache.scale_images(images, dtype, scale, 255.)
    if withlabel:
        return TupleDataset(images, raw['y'].astype(label_dtype))
    return images
