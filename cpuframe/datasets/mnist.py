"""The MNIST handwritten digits (downloaded once, then cached)."""
import numpy

from cpuframe.datasets import _mnist_helper

_MIRRORS = (
    'https://ossci-datasets.s3.amazonaws.com/mnist/',
    'https://storage.googleapis.com/cvdf-datasets/mnist/',
    'http://yann.lecun.com/exdb/mnist/',
)


def _urls(file_name):
    return [base + file_name for base in _MIRRORS]


def get_mnist(withlabel=True, ndim=1, scale=1., dtype=None,
              label_dtype=numpy.int32, rgb_format=False):
    """The MNIST training (60000) and test (10000) sets.

    28x28 greyscale images of handwritten digits with labels 0-9.  The
    files are downloaded on first use and cached as
    ``<dataset root>/pfnet/chainer/mnist/{train,test}.npz`` (keys ``x``:
    ``(N, 784)`` uint8 and ``y``: ``(N,)`` uint8), the layout Chainer
    writes, so an existing Chainer cache is used as it is.

    Args:
        withlabel (bool): Return ``TupleDataset``\\ s of ``(image, label)``;
            otherwise arrays of images.
        ndim (int): Shape of each image: 1 ``(784,)``, 2 ``(28, 28)``,
            3 ``(1, 28, 28)``.
        scale (float): Pixels are scaled to ``[0, scale]``.
        dtype: Floating dtype of the images; ``config.dtype`` by default.
        label_dtype: dtype of the labels.
        rgb_format (bool): With ``ndim=3``, repeat the channel to get
            ``(3, 28, 28)`` images.

    Returns:
        ``(train, test)``.
    """
    train = _mnist_helper.preprocess(
        _mnist_helper.retrieve(
            'pfnet/chainer/mnist', 'train.npz',
            _urls('train-images-idx3-ubyte.gz'),
            _urls('train-labels-idx1-ubyte.gz'), 'get_mnist'),
        withlabel, ndim, scale, dtype, label_dtype, rgb_format, 'get_mnist')
    test = _mnist_helper.preprocess(
        _mnist_helper.retrieve(
            'pfnet/chainer/mnist', 'test.npz',
            _urls('t10k-images-idx3-ubyte.gz'),
            _urls('t10k-labels-idx1-ubyte.gz'), 'get_mnist'),
        withlabel, ndim, scale, dtype, label_dtype, rgb_format, 'get_mnist')
    return train, test
