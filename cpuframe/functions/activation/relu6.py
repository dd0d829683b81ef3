"""Rectified linear unit capped at 6."""
from cpuframe.functions.activation.clipped_relu import ClippedReLU


class ReLU6(ClippedReLU):
    """:class:`ClippedReLU` with the cap fixed at 6 (named so in errors)."""

    def __init__(self):
        super().__init__(6.0)


def relu6(x):
    """``y = min(max(0, x), 6)``, elementwise (Chainer 7's ``relu6``).

    It is :func:`~cpuframe.functions.clipped_relu` with ``z=6``: the
    gradient is ``gy`` where ``0 < x < 6`` and zero elsewhere.

    Args:
        x: a float Variable or array of any shape.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.relu6(np.array([-1., 3., 7.], np.float32)).array
    array([0., 3., 6.], dtype=float32)
    """
    return ReLU6().apply((x,))[0]
