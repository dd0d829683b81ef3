"""The base class of initializers and the fan computation they share.

Chainer defines these in ``chainer.initializer``; the concrete initializers
live in the submodules of :mod:`cpuframe.initializers`.
"""


class Initializer:
    """Fills an array in place when called: ``initializer(array)``.

    Args:
        dtype: the dtype of arrays it is meant for (``config.dtype`` when
            an array is created for it and this is None).
    """

    def __init__(self, dtype=None):
        self.dtype = dtype

    def __call__(self, array):
        """Overwrite ``array`` with the initial values (subclasses)."""
        raise NotImplementedError()


def get_fans(shape):
    """``(fan_in, fan_out)`` of a weight of ``shape`` (out, in, *kernel).

    ``shape`` must be a tuple of at least two axes; the axes after the
    second (a convolution kernel's) multiply both fans.
    """
    if not isinstance(shape, tuple):
        raise ValueError(
            'shape must be tuple. Actual type: {}'.format(type(shape)))
    if len(shape) < 2:
        raise ValueError(
            'shape must be of length >= 2. Actual shape: {}'.format(shape))
    receptive = 1
    for s in shape[2:]:
        receptive *= int(s)
    return shape[1] * receptive, shape[0] * receptive
