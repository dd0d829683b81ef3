"""The UCI optical handwritten digits (8x8), shipped with cpuframe: a
dataset that needs no network."""
import os

import numpy

from cpuframe.datasets import _cache
from cpuframe.datasets.tuple_dataset import TupleDataset

_DATA_PATH = os.path.join(os.path.dirname(__file__), '_data', 'digits.npz')
_N_EXAMPLES = 1797


def _load_raw():
    raw = _cache.load_npz(_DATA_PATH)
    if raw['x'].shape != (_N_EXAMPLES, 8, 8) or \
            raw['y'].shape != (_N_EXAMPLES,):
        raise RuntimeError(
            'get_digits: {} is damaged: images {}, labels {}; reinstall '
            'cpuframe'.format(_DATA_PATH, raw['x'].shape, raw['y'].shape))
    return raw['x'], raw['y']


def _test_mask(labels, test_ratio):
    # Within each class, in file order, the examples where the running
    # count of test examples ``floor((k + 1) * ratio)`` steps up go to the
    # test set: a split that is stratified, spread over the whole file (so
    # over the writers) and the same on every run, with no random state.
    mask = numpy.zeros(len(labels), dtype=bool)
    for c in numpy.unique(labels):
        where = numpy.flatnonzero(labels == c)
        # The epsilon keeps e.g. 0.29 * 100 (28.999...) from losing a step.
        count = numpy.floor(numpy.arange(len(where) + 1) * test_ratio + 1e-9)
        steps = count[1:] > count[:-1]
        mask[where[steps]] = True
    return mask


def get_digits(withlabel=True, ndim=1, scale=1., dtype=None,
               label_dtype=numpy.int32, test_ratio=0.2):
    """The optical handwritten digits of the UCI repository, split into a
    training and a test set.

    1797 greyscale 8x8 images of the digits 0-9 (about 180 per class),
    whose pixels count the "on" pixels of 4x4 blocks of a 32x32 bitmap
    (integers 0..16).  The data ship with cpuframe, so this works offline;
    it is the default dataset of ``examples/train_mnist.py``.  Source:
    E. Alpaydin and C. Kaynak, *Optical Recognition of Handwritten Digits*,
    UCI Machine Learning Repository (CC BY 4.0).

    The split is deterministic and stratified: in each class, every
    ``1 / test_ratio``-th example (in the file's order) is a test example,
    so both sets hold each class in the same proportion.

    Args:
        withlabel (bool): Return ``TupleDataset``\\ s of ``(image, label)``;
            otherwise arrays of images.
        ndim (int): Shape of each image: 1 ``(64,)``, 2 ``(8, 8)``,
            3 ``(1, 8, 8)``.
        scale (float): Pixels are scaled from ``[0, 16]`` to
            ``[0, scale]``.
        dtype: Floating dtype of the images; ``config.dtype`` by default.
        label_dtype: dtype of the labels.
        test_ratio (float): Fraction of the examples in the test set,
            ``0 <= test_ratio < 1``.

    Returns:
        ``(train, test)``; with the default ``test_ratio`` 1442 and 355
        examples.
    """
    if not isinstance(test_ratio, (int, float, numpy.floating)) or \
            isinstance(test_ratio, bool) or not 0 <= test_ratio < 1:
        raise ValueError(
            'get_digits: test_ratio must be a number in [0, 1), got '
            '{!r}'.format(test_ratio))
    if ndim not in (1, 2, 3):
        raise ValueError(
            'get_digits: ndim must be 1, 2 or 3, got {!r}'.format(ndim))
    dtype = _cache.image_dtype(dtype, 'get_digits')
    images, labels = _load_raw()
    images = images.reshape((-1,) + {1: (64,), 2: (8, 8), 3: (1, 8, 8)}[ndim])
    images = _cache.scale_images(images, dtype, scale, 16.)
    labels = labels.astype(label_dtype)
    mask = _test_mask(labels, float(test_ratio))

    def make(m):
        if withlabel:
            return TupleDataset(images[m], labels[m])
        return images[m]

    return make(~mask), make(mask)
