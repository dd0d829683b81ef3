"""Kuzushiji-MNIST (downloaded once, then cached)."""
import numpy

from cpuframe.datasets import _mnist_helper

_BASE_URL = 'http://codh.rois.ac.jp/kmnist/dataset/kmnist/'

# (romaji, hiragana) of the ten classes, in label order.
_kuzushiji_mnist_labels = [
    ('o', '\u304a'), ('ki', '\u304d'), ('su', '\u3059'), ('tsu', '\u3064'),
    ('na', '\u306a'), ('ha', '\u306f'), ('ma', '\u307e'), ('ya', '\u3084'),
    ('re', '\u308c'), ('wo', '\u3092'),
]


def get_kuzushiji_mnist_labels():
    """The ten classes as ``(romaji, character)`` tuples, in label order."""
    return _kuzushiji_mnist_labels


def get_kuzushiji_mnist(withlabel=True, ndim=1, scale=1., dtype=None,
                        label_dtype=numpy.int32, rgb_format=False):
    """The Kuzushiji-MNIST training (60000) and test (10000) sets.

    28x28 greyscale images of hand-written cursive Japanese characters in
    10 classes (http://codh.rois.ac.jp/kmnist/), in MNIST's format and with
    the same arguments as ``get_mnist``.  Cached as
    ``<dataset root>/pfnet/chainer/kuzushiji_mnist/{train,test}.npz``
    (Chainer's layout).

    Returns:
        ``(train, test)``.
    """
    def retrieve(name, prefix):
        return _mnist_helper.retrieve(
            'pfnet/chainer/kuzushiji_mnist', name,
            [_BASE_URL + prefix + '-images-idx3-ubyte.gz'],
            [_BASE_URL + prefix + '-labels-idx1-ubyte.gz'],
            'get_kuzushiji_mnist')

    train = _mnist_helper.preprocess(
        retrieve('train.npz', 'train'), withlabel, ndim, scale, dtype,
        label_dtype, rgb_format, 'get_kuzushiji_mnist')
    test = _mnist_helper.preprocess(
        retrieve('test.npz', 't10k'), withlabel, ndim, scale, dtype,
        label_dtype, rgb_format, 'get_kuzushiji_mnist')
    return train, test
