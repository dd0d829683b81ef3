"""Gumbel-softmax: a differentiable sample of a categorical distribution."""
from cpuframe import backend
from cpuframe.variable import Variable, as_variable


def gumbel_softmax(log_p, tau=0.1, axis=1):
    """Gumbel-softmax sampling function.

    Draws a relaxed one-hot sample of the categorical distribution with
    log-probabilities ``log_p`` along ``axis``::

        y = softmax((log_p + g) / tau, axis)

    with ``g`` standard Gumbel noise (``-log(-log(u))``, ``u ~ U(0, 1)``)
    drawn from ``numpy.random``'s global state.  A small temperature
    ``tau`` makes ``y`` close to one-hot.  A 0-dim ``log_p`` gives ``1``.

    See: `Categorical Reparameterization with Gumbel-Softmax
    <https://arxiv.org/abs/1611.01144>`_

    Args:
        log_p (Variable or array): Log-probabilities (unnormalized is fine).
        tau (float or Variable or array): Temperature, broadcastable to
            ``log_p``.
        axis (int): The axis of the categories.

    Returns:
        Variable of the shape of ``log_p``, summing to 1 along ``axis``.

    >>> y = F.gumbel_softmax(np.log(np.full((2, 3), 1 / 3, np.float32)))
    >>> np.allclose(y.array.sum(axis=1), 1)
    True
    """
    from cpuframe.functions.activation.softmax import softmax
    log_p = as_variable(log_p)
    xp = backend.get_array_module(log_p.array)
    if log_p.ndim < 1:
        return Variable(xp.ones((), log_p.dtype))
    if log_p.dtype.kind != 'f':
        raise TypeError('gumbel_softmax: expected a float log_p, got '
                        'dtype {}'.format(log_p.dtype))
    if not -log_p.ndim <= axis < log_p.ndim:
        raise ValueError('gumbel_softmax: axis {} out of range for log_p '
                         'of ndim {}'.format(axis, log_p.ndim))
    g = xp.random.gumbel(size=log_p.shape).astype(log_p.dtype)
    if backend.is_array(tau):
        tau = tau.astype(log_p.dtype, copy=False)
    return softmax((log_p + g) / tau, axis=axis)
