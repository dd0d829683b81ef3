"""Flatten to one dimension."""
from cpuframe.functions.array.reshape import reshape


def flatten(x):
    """``x`` as a 1-D array of ``x.size`` elements (row-major order).

    The gradient is reshaped back to ``x.shape``.

    >>> F.flatten(np.zeros((2, 3), np.float32)).shape
    (6,)
    """
    return reshape(x, (x.size,))
