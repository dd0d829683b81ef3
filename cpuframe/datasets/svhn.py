"""SVHN, the Street View House Numbers (downloaded once, then cached)."""
import os

import numpy

from cpuframe.dataset import download
from cpuframe.datasets import _cache, _matlab
from cpuframe.datasets.tuple_dataset import TupleDataset

_BASE_URL = 'http://ufldl.stanford.edu/housenumbers/'


def get_svhn(withlabel=True, scale=1., dtype=None, label_dtype=numpy.int32,
             add_extra=False):
    """The SVHN training (73257), test (26032) and, with ``add_extra``,
    extra (531131) sets of 32x32 RGB digit images
    (http://ufldl.stanford.edu/housenumbers/).

    The ``.mat`` files are downloaded on first use, read with cpuframe's own
    MAT-file reader (SciPy is not needed), and cached as
    ``<dataset root>/pfnet/chainer/svhn/{train,test,extra}.npz`` (keys
    ``x``: ``(32, 32, 3, N)`` uint8, ``y``: ``(N, 1)`` uint8), the layout
    Chainer writes, so either library reads the other's cache.

    Args:
        withlabel (bool): Return ``TupleDataset``\\ s of ``(image, label)``;
            otherwise arrays of images.
        scale (float): Pixels are scaled to ``[0, scale]``.
        dtype: Floating dtype of the images (``config.dtype`` by default).
        label_dtype: dtype of the labels.  The digit 0, labelled 10 in the
            files, is label 0.
        add_extra (bool): Also return the extra set.

    Returns:
        ``(train, test)``, or ``(train, test, extra)`` with ``add_extra``;
        images are ``(3, 32, 32)``.
    """
    dtype = _cache.image_dtype(dtype, 'get_svhn')
    names = ['train', 'test'] + (['extra'] if add_extra else [])
    return tuple(_preprocess(_retrieve(name), withlabel, scale, dtype,
                             label_dtype) for name in names)


def _preprocess(raw, withlabel, scale, dtype, label_dtype):
    x, y = raw['x'], raw['y']
    if x.ndim != 4 or x.shape[:3] != (32, 32, 3) or \
            y.size != x.shape[3]:
        raise ValueError(
            'get_svhn: the cached arrays have shapes {} and {}, expected '
            '(32, 32, 3, N) images and N labels'.format(x.shape, y.shape))
    images = _cache.scale_images(x.transpose(3, 2, 0, 1), dtype, scale, 255.)
    labels = y.astype(label_dtype).ravel()
    labels[labels == 10] = 0  # the files label the digit 0 as 10
    if withlabel:
        return TupleDataset(images, labels)
    return images


def _retrieve(name):
    def creator(path):
        url = '{}{}_32x32.mat'.format(_BASE_URL, name)
        mat_path = _cache.download_first([url], 'get_svhn')
        arrays = _matlab.loadmat(mat_path, variable_names=('X', 'y'))
        raw = {'x': arrays['X'].astype(numpy.uint8),
               'y': arrays['y'].astype(numpy.uint8)}
        numpy.savez_compressed(path, **raw)
        return raw

    root = download.get_dataset_directory('pfnet/chainer/svhn')
    return download.cache_or_load_file(
        os.path.join(root, name + '.npz'), creator, _cache.load_npz)
