"""DeCov loss: penalizes the cross-covariance of hidden activations."""
from cpuframe import backend
from cpuframe.utils import type_check
from cpuframe.variable import as_variable


def decov(h, reduce='half_squared_sum'):
    """Computes the DeCov loss of ``h``.

    With ``C = (1/N) * hc^T hc`` the covariance of the columns of ``h``
    (``hc`` = ``h`` with its column means subtracted, ``N`` rows) and its
    diagonal set to zero, the loss is ``0.5 * ||C||_F^2`` for
    ``reduce='half_squared_sum'``; ``reduce='no'`` returns ``C`` itself.

    See: `Reducing Overfitting In Deep Networks by Decorrelating
    Representations <https://arxiv.org/abs/1511.06068>`_

    Args:
        h (Variable or array): Float matrix ``(N, M)``, batch first.
        reduce (str): ``'half_squared_sum'`` or ``'no'``.

    Returns:
        Variable: a scalar, or ``(M, M)`` with ``reduce='no'``.  Built of
        differentiable functions, so every order of gradient works.

    >>> h = np.array([[1., 1.], [-1., -1.]], np.float32)
    >>> F.decov(h).array
    array(1., dtype=float32)
    """
    from cpuframe.functions.math.basic_math import _matmul
    from cpuframe.functions.math.sum import mean
    from cpuframe.functions.math.sum import sum as sum_
    if reduce not in ('half_squared_sum', 'no'):
        raise ValueError("decov: only 'half_squared_sum' and 'no' are valid "
                         "for 'reduce', but {!r} is given".format(reduce))
    h = as_variable(h)
    if h.dtype.kind != 'f' or h.ndim != 2:
        raise type_check.InvalidType(
            'h.dtype.kind == "f" and h.ndim == 2',
            'decov: h.dtype = {}, h.ndim = {}'.format(h.dtype, h.ndim))
    xp = backend.get_array_module(h.array)
    n, m = h.shape
    hc = h - mean(h, axis=0, keepdims=True)
    off_diag = (1 - xp.eye(m, dtype=h.dtype)) / h.dtype.type(n)
    cov = _matmul(hc, hc, True, False) * off_diag
    if reduce == 'no':
        return cov
    return sum_(cov * cov) * h.dtype.type(0.5)
