"""Fashion-MNIST (downloaded once, then cached)."""
import numpy

from cpuframe.datasets import _mnist_helper

_BASE_URL = 'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/'

_fashion_mnist_labels = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress',
                         'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag',
                         'Ankle boot')


def get_fashion_mnist_labels(labels):
    """The English names of Fashion-MNIST labels (a list of ints 0-9)."""
    names = []
    for label in labels:
        if not isinstance(label, (int, numpy.integer)) or \
                not 0 <= label < 10:
            raise ValueError(
                'get_fashion_mnist_labels: labels must be integers in 0..9, '
                'got {!r}'.format(label))
        names.append(_fashion_mnist_labels[int(label)])
    return names


def get_fashion_mnist(withlabel=True, ndim=1, scale=1., dtype=None,
                      label_dtype=numpy.int32, rgb_format=False):
    """The Fashion-MNIST training (60000) and test (10000) sets.

    28x28 greyscale images of clothes in 10 classes, in MNIST's format and
    with the same arguments as ``get_mnist``.  Cached as
    ``<dataset root>/pfnet/chainer/fashion-mnist/{train,test}.npz``
    (Chainer's layout).

    Returns:
        ``(train, test)``.
    """
    def retrieve(name, prefix):
        return _mnist_helper.retrieve(
            'pfnet/chainer/fashion-mnist', name,
            [_BASE_URL + prefix + '-images-idx3-ubyte.gz'],
            [_BASE_URL + prefix + '-labels-idx1-ubyte.gz'],
            'get_fashion_mnist')

    train = _mnist_helper.preprocess(
        retrieve('train.npz', 'train'), withlabel, ndim, scale, dtype,
        label_dtype, rgb_format, 'get_fashion_mnist')
    test = _mnist_helper.preprocess(
        retrieve('test.npz', 't10k'), withlabel, ndim, scale, dtype,
        label_dtype, rgb_format, 'get_fashion_mnist')
    return train, test
