"""Standardization over a set of axes, the core of the normalizations.

``x_hat = (x - mean) * r`` with ``r = (var + eps) ** -1/2``, the moments
taken over ``axes`` (kept as length-1 axes so they broadcast).  Its
gradient, for an output gradient ``g``, is the projection

    ``P(g) = r * (g - mean(g) - x_hat * mean(g * x_hat))``

(``StandardizeGrad``).  ``double_grad`` differentiates the normalization
gradient once more in closed form, built of FunctionNodes so that further
orders still work.
"""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def reduced_size(shape, axes):
    m = 1
    for a in axes:
        m *= shape[a]
    return m


def compute_dtype(*dtypes):
    """The dtype the statistics are computed in (float16 is widened)."""
    dtype = numpy.result_type(*dtypes)
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


def moments(x, axes, eps, dtype=None, return_var=False):
    """``(mean, inv_std, x - mean[, var])`` over ``axes`` (keepdims)."""
    if dtype is not None and x.dtype != dtype:
        x = x.astype(dtype)
    mean = x.mean(axis=axes, keepdims=True)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdims=True)
    xp = backend.get_array_module(x)
    inv_std = 1 / xp.sqrt(var + x.dtype.type(eps))
    if return_var:
        return mean, inv_std, xc, var
    return mean, inv_std, xc


def project(g, x_hat, inv_std, axes):
    """``inv_std * (g - mean(g) - x_hat * mean(g * x_hat))``."""
    g_mean = g.mean(axis=axes, keepdims=True)
    gx_mean = (g * x_hat).mean(axis=axes, keepdims=True)
    return inv_std * (g - g_mean - x_hat * gx_mean)


class Standardize(FunctionNode):
    """``x_hat = (x - mean) / sqrt(var + eps)`` over ``axes``."""

    def __init__(self, axes, eps):
        self.axes = tuple(axes)
        self.eps = eps

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        mean, inv_std, xc = moments(x, self.axes, self.eps,
                                    compute_dtype(x.dtype))
        self.mean, self.inv_std = mean, inv_std
        return (xc * inv_std).astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return StandardizeGrad(self.axes, self.eps, self.mean,
                               self.inv_std).apply((x, grad_outputs[0]))


class StandardizeGrad(FunctionNode):
    """``gx = P(gy)``, the gradient of ``Standardize`` at ``x``."""

    def __init__(self, axes, eps, mean=None, inv_std=None):
        self.axes = tuple(axes)
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gy'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[1].dtype.kind == 'f',
                          in_types[0].shape == in_types[1].shape)

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        dtype = compute_dtype(x.dtype, gy.dtype)
        if self.mean is None:
            self.mean, self.inv_std, xc = moments(x, self.axes, self.eps,
                                                  dtype)
        else:
            xc = x.astype(dtype, copy=False) - self.mean
        x_hat = xc * self.inv_std
        gx = project(gy.astype(dtype, copy=False), x_hat, self.inv_std,
                     self.axes)
        return gx.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        g_x, _, g_gy = double_grad(
            x, None, gy, ggx, None, None, self.axes, self.eps,
            need_x=0 in indexes, need_gamma=False, need_gy=1 in indexes,
            stats=(self.mean, self.inv_std))
        return tuple(g_x if i == 0 else g_gy for i in indexes)


def _sum(v, axes):
    from cpuframe.functions.math.sum import sum as sum_
    return sum_(v, axis=axes, keepdims=True)


def inv_std_variable(x, axes, eps):
    """``(var(x) + eps) ** -1/2`` over ``axes`` as a differentiable Variable."""
    from cpuframe.functions.math.sqrt import rsqrt
    m = reduced_size(x.shape, axes)
    xc = x - _sum(x, axes) * (1.0 / m)
    return rsqrt(_sum(xc * xc, axes) * (1.0 / m) + eps)


def double_grad(x, gamma, gy, ggx, gggamma, ggbeta, axes, eps, need_x,
                need_gamma, need_gy, stats=None):
    """Differentiate ``(gx, ggamma, gbeta)`` of a normalization once more.

    The first-order gradients of ``y = gamma * x_hat + beta`` (``gamma``
    and ``beta`` constant over ``axes``) are ``gbeta = sum(gy)``,
    ``ggamma = sum(gy * x_hat)`` and ``gx = gamma * P(gy)``.  Given the
    gradients ``ggx``, ``gggamma``, ``ggbeta`` flowing into them, this
    returns those of ``x``, ``gamma`` and ``gy`` (``gamma`` None means 1;
    ``gggamma``/``ggbeta`` None mean 0; sums stay keepdims-shaped).  With
    ``A = sum(ggx * gy) - sum(ggx) sum(gy) / m``, ``B = sum(ggx * x_hat)``,
    ``C = sum(gy * x_hat)``:

        g_gy    = P(gamma * ggx) + gggamma * x_hat + ggbeta
        g_gamma = sum(ggx * P(gy))
        g_x     = P(u) - gamma * r**2 / m * (A - B * C / m) * x_hat,
        u       = -gamma * r / m * (C * ggx + B * gy) + gggamma * gy
    """
    mean, inv_std = stats if stats is not None else (None, None)

    def P(v):
        return StandardizeGrad(axes, eps, mean, inv_std).apply((x, v))[0]

    m = reduced_size(x.shape, axes)
    x_hat = Standardize(axes, eps).apply((x,))[0]
    g_x = g_gamma = g_gy = None
    if need_gy:
        g_gy = P(ggx if gamma is None else gamma * ggx)
        if gggamma is not None:
            g_gy = g_gy + gggamma * x_hat
        if ggbeta is not None:
            g_gy = g_gy + ggbeta
    if need_gamma:
        g_gamma = _sum(ggx * P(gy), axes)
    if need_x:
        r = inv_std_variable(x, axes, eps)
        scale = r * (1.0 / m) if gamma is None else gamma * r * (1.0 / m)
        b = _sum(ggx * x_hat, axes)
        c = _sum(gy * x_hat, axes)
        a = _sum(ggx * gy, axes) - _sum(ggx, axes) * _sum(gy, axes) * (
            1.0 / m)
        u = -scale * (c * ggx + b * gy)
        if gggamma is not None:
            u = u + gggamma * gy
        g_x = P(u) - (scale * r) * (a - b * c * (1.0 / m)) * x_hat
    return g_x, g_gamma, g_gy
