"""Join arrays horizontally (column-wise)."""
from cpuframe.functions.array.concat import _PromotedConcat


class Hstack(_PromotedConcat):
    """``numpy.hstack``: axis 0 for 1-D inputs, else axis 1."""

    def _promote(self, shape):
        return tuple(shape) if len(shape) >= 1 else (1,)

    def _axis(self, ndim):
        return 0 if ndim == 1 else 1


def hstack(xs):
    """Concatenate ``xs`` horizontally, as ``numpy.hstack`` does.

    0-dim inputs become 1-D; 1-D inputs join along axis 0, inputs of two
    or more dimensions along axis 1.

    >>> a = np.zeros((2, 3), np.float32); b = np.zeros((2, 1), np.float32)
    >>> F.hstack((a, b)).shape
    (2, 4)
    """
    return Hstack().apply(tuple(xs))[0]
