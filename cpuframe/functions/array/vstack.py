"""Join arrays vertically (row-wise)."""
from cpuframe.functions.array.concat import _PromotedConcat


class Vstack(_PromotedConcat):
    """``numpy.vstack``: inputs promoted to 2-D, joined along axis 0."""

    def _promote(self, shape):
        shape = tuple(shape)
        if len(shape) == 0:
            return (1, 1)
        if len(shape) == 1:
            return (1,) + shape
        return shape

    def _axis(self, ndim):
        return 0


def vstack(xs):
    """Concatenate ``xs`` vertically, as ``numpy.vstack`` does.

    A 1-D input of length ``N`` becomes a ``(1, N)`` row; every input then
    joins along axis 0.

    >>> a = np.zeros(3, np.float32); b = np.zeros((2, 3), np.float32)
    >>> F.vstack((a, b)).shape
    (3, 3)
    """
    return Vstack().apply(tuple(xs))[0]
