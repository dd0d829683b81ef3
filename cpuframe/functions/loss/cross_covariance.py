"""Cross-covariance loss between two batches of features."""
from cpuframe.functions.loss._common import check_reduce
from cpuframe.variable import as_array

_NAME = 'cross_covariance'


def cross_covariance(y, z, reduce='half_squared_sum'):
    """Cross-covariance of ``y`` and ``z`` over the batch, and its loss.

    With ``N`` examples, ``C = (y - mean(y)).T @ (z - mean(z)) / N`` (the
    means are over the batch axis), an ``(M, K)`` matrix.  With
    ``reduce='half_squared_sum'`` the result is ``0.5 * sum(C ** 2)``, the
    penalty of Cheung et al. (2014) for decorrelating two representations;
    with ``'no'`` it is ``C`` itself.

    Args:
        y: float ``(N, M)``.
        z: float ``(N, K)`` of ``y``'s dtype.
        reduce (str): ``'half_squared_sum'`` or ``'no'``.

    Returns:
        Variable (a scalar or ``(M, K)``), twice differentiable.

    >>> y = np.array([[1., 0.], [3., 2.]])
    >>> z = np.array([[0.], [4.]])
    >>> F.cross_covariance(y, z, reduce='no').array
    array([[2.],
           [2.]])
    >>> F.cross_covariance(y, z).array
    array(4.)
    """
    from cpuframe.functions.math.basic_math import matmul
    from cpuframe.functions.math.sum import mean
    from cpuframe.functions.math.sum import sum as sum_
    check_reduce(_NAME, reduce, ('half_squared_sum', 'no'))
    ya, za = as_array(y), as_array(z)
    if ya.ndim != 2 or za.ndim != 2 or len(ya) != len(za):
        raise TypeError('cross_covariance: y and z must be 2-D with the same '
                        'batch size, got shapes {} and {}'.format(ya.shape,
                                                                  za.shape))
    if ya.dtype.kind != 'f' or za.dtype != ya.dtype:
        raise TypeError('cross_covariance: y and z must share a float dtype, '
                        'got {} and {}'.format(ya.dtype, za.dtype))
    n = len(ya)
    yc = y - mean(y, axis=0, keepdims=True)
    zc = z - mean(z, axis=0, keepdims=True)
    cov = matmul(yc, zc, transa=True) * (1.0 / n)
    if reduce == 'no':
        return cov
    return sum_(cov * cov) * 0.5
