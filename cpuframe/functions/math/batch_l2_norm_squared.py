"""Squared L2 norm of each example of a batch."""
from cpuframe.variable import as_array


def batch_l2_norm_squared(x):
    """``y[i] = sum of x[i, ...] ** 2``: the squared L2 norm per example.

    Args:
        x: float array of at least 2 dimensions; the first axis is the
            batch, the others are flattened.

    Returns:
        Variable of shape ``(len(x),)``, twice differentiable.

    >>> F.batch_l2_norm_squared(np.array([[3., 4.], [1., 2.]])).array
    array([25.,  5.])
    """
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.math.sum import sum as sum_
    xa = as_array(x)
    if xa.ndim < 2 or xa.dtype.kind != 'f':
        raise TypeError('batch_l2_norm_squared: x must be a float array of '
                        'at least 2 dimensions (batch, ...), got shape {} '
                        'dtype {}'.format(
                            xa.shape, xa.dtype))
    x2 = reshape(x, (len(xa), -1))
    return sum_(x2 * x2, axis=1)
