"""Sampling from a Gaussian by the reparameterization trick."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class Gaussian(FunctionNode):
    """``y = mean + exp(ln_var / 2) * eps`` with ``eps ~ N(0, 1)``.

    ``eps`` is drawn in forward unless given; it is kept in ``self.eps``
    and reused by backward.
    """

    def __init__(self, eps=None):
        self.eps = eps

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('mean', 'ln_var'))
        m, v = in_types
        type_check.expect(m.dtype.kind == 'f', m.dtype == v.dtype,
                          m.shape == v.shape)
        if self.eps is not None:
            eps = type_check.make_variable(
                type_check.TypeInfo(self.eps.shape, self.eps.dtype), 'eps')
            type_check.expect(eps.shape == v.shape)

    def forward(self, inputs):
        mean, ln_var = inputs
        xp = backend.get_array_module(mean, ln_var)
        self.retain_inputs((1,))
        if self.eps is None:
            self.eps = xp.random.standard_normal(ln_var.shape)
        self.eps = utils.force_array(self.eps.astype(mean.dtype, copy=False))
        noise = xp.exp(ln_var * mean.dtype.type(0.5)) * self.eps
        return utils.force_array(mean + noise, mean.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        ln_var, = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy)
            else:
                # d noise / d ln_var = noise / 2
                ret.append(gy * exp(ln_var * 0.5) * (self.eps * 0.5))
        return tuple(ret)


def gaussian(mean, ln_var, **kwargs):
    """Sample ``y ~ N(mean, exp(ln_var))`` differentiably.

    .. math:: y = \\mu + \\exp(\\ln\\sigma^2 / 2)\\, \\epsilon, \\quad
              \\epsilon \\sim N(0, 1)

    The noise ``eps`` comes from ``numpy.random``'s global state
    (``cupy.random`` for GPU arrays); gradients flow to ``mean`` and
    ``ln_var`` with ``eps`` held fixed.

    Args:
        mean: the mean, a float Variable or array.
        ln_var: the log of the variance, of ``mean``'s shape and dtype.
        eps (array, keyword only): the standard normal noise to use instead
            of drawing one, of ``mean``'s shape.
        return_eps (bool, keyword only): also return the noise used.

    Returns:
        A Variable of ``mean``'s shape, or ``(y, eps)`` with ``return_eps``.

    >>> y = F.gaussian(np.zeros(3, np.float32), np.zeros(3, np.float32),
    ...                eps=np.ones(3, np.float32))
    >>> y.array
    array([1., 1., 1.], dtype=float32)
    """
    unknown = set(kwargs) - {'eps', 'return_eps'}
    if unknown:
        raise TypeError('gaussian: got unexpected keyword argument(s) '
                        '{}'.format(', '.join(sorted(unknown))))
    eps = kwargs.get('eps')
    if isinstance(eps, Variable):
        eps = eps.array
    if eps is not None and not backend.is_array(eps):
        raise TypeError('gaussian: expected eps as an array, got {}'.format(
            type(eps).__name__))
    func = Gaussian(eps)
    y, = func.apply((mean, ln_var))
    if kwargs.get('return_eps', False):
        return y, func.eps
    return y
