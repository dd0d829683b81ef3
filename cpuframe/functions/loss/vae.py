"""Losses of variational autoencoders: KL divergence and negative log
likelihoods of Bernoulli and Gaussian distributions.

The inputs broadcast against each other as in Chainer 7's arithmetic; the
gradient of each input is summed back to its own shape.
"""
import math

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_reduce
from cpuframe.utils import type_check

_REDUCE = ('sum', 'no')


def _check_float_broadcast(in_types, names):
    type_check.argname(in_types, names)
    first = in_types[0]
    type_check.expect(first.dtype.kind == 'f')
    for t in in_types[1:]:
        type_check.expect(first.dtype == t.dtype)
    type_check.expect_broadcast_shapes(*[t.shape for t in in_types])


class _ElementwiseLoss(FunctionNode):
    """Shared reduction and gradient plumbing of the VAE losses."""

    def __init__(self, reduce):
        self.reduce = reduce

    def _finish(self, xp, loss, inputs):
        self._shapes = [x.shape for x in inputs]
        self._out_shape = loss.shape
        if self.reduce == 'sum':
            loss = xp.asarray(loss.sum(), dtype=loss.dtype)
        return utils.force_array(loss, inputs[0].dtype),

    def _grad_output(self, gy):
        """``gy`` as a Variable of the elementwise loss's shape."""
        from cpuframe.functions.array.broadcast import broadcast_to
        return broadcast_to(gy, self._out_shape)

    def _to_input(self, g, i):
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.sum_to import sum_to
        if g.shape != self._out_shape:
            g = broadcast_to(g, self._out_shape)
        return sum_to(g, self._shapes[i])


class GaussianKLDivergence(_ElementwiseLoss):
    """``(mean ** 2 + exp(ln_var) - ln_var - 1) / 2`` elementwise."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_float_broadcast(in_types, ('mean', 'ln_var'))

    def forward(self, inputs):
        mean, ln_var = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(mean)
        loss = (mean * mean + xp.exp(ln_var) - ln_var - 1) * 0.5
        return self._finish(xp, loss, inputs)

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        mean, ln_var = self.get_retained_inputs()
        gy = self._grad_output(grad_outputs[0])
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(self._to_input(gy * mean, 0))
            else:
                ret.append(self._to_input(gy * (exp(ln_var) - 1.0) * 0.5, 1))
        return tuple(ret)


def gaussian_kl_divergence(mean, ln_var, reduce='sum'):
    """KL divergence of ``N(mean, exp(ln_var))`` from ``N(0, 1)``.

    Elementwise ``(mean ** 2 + exp(ln_var) - ln_var - 1) / 2`` for a
    diagonal Gaussian.

    Args:
        mean: float array, the means.
        ln_var: float array (broadcastable with ``mean``), the log variances.
        reduce (str): ``'sum'`` (a scalar) or ``'no'`` (elementwise).

    Returns:
        Variable of ``mean``'s dtype.

    >>> F.gaussian_kl_divergence(np.array([0., 1.]), np.array([0., 0.])).array
    array(0.5)
    """
    check_reduce('gaussian_kl_divergence', reduce, _REDUCE)
    return GaussianKLDivergence(reduce).apply((mean, ln_var))[0]


class BernoulliNLL(_ElementwiseLoss):
    """``softplus(y) - x * y`` elementwise."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_float_broadcast(in_types, ('x', 'y'))

    def forward(self, inputs):
        x, y = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        # softplus(y) = max(y, 0) + log(1 + exp(-|y|)), exp never overflows
        loss = xp.maximum(y, 0) + xp.log1p(xp.exp(-abs(y))) - x * y
        return self._finish(xp, loss, inputs)

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.activation.sigmoid import sigmoid
        x, y = self.get_retained_inputs()
        gy = self._grad_output(grad_outputs[0])
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(self._to_input(-(gy * y), 0))
            else:
                ret.append(self._to_input(gy * (sigmoid(y) - x), 1))
        return tuple(ret)


def bernoulli_nll(x, y, reduce='sum'):
    """Negative log likelihood of ``x`` under Bernoulli(``sigmoid(y)``).

    Elementwise ``-x log p - (1 - x) log(1 - p)`` with ``p = sigmoid(y)``,
    i.e. ``softplus(y) - x y``.

    Args:
        x: float array, the data (usually in ``[0, 1]``).
        y: float array (broadcastable with ``x``), the pre-sigmoid means.
        reduce (str): ``'sum'`` (a scalar) or ``'no'`` (elementwise).

    Returns:
        Variable of ``x``'s dtype.

    >>> F.bernoulli_nll(np.array([1., 0.]), np.array([0., 0.])).array
    array(1.38629436)
    """
    check_reduce('bernoulli_nll', reduce, _REDUCE)
    return BernoulliNLL(reduce).apply((x, y))[0]


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class GaussianNLL(_ElementwiseLoss):
    """``(ln_var + log 2pi) / 2 + (x - mean) ** 2 exp(-ln_var) / 2``."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_float_broadcast(in_types, ('x', 'mean', 'ln_var'))

    def forward(self, inputs):
        x, mean, ln_var = inputs
        self.retain_inputs((0, 1, 2))
        xp = backend.get_array_module(x)
        diff = x - mean
        loss = (ln_var + diff * diff * xp.exp(-ln_var)) * 0.5 + _HALF_LOG_2PI
        return self._finish(xp, loss, inputs)

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import exp
        x, mean, ln_var = self.get_retained_inputs()
        gy = self._grad_output(grad_outputs[0])
        diff = x - mean
        prec = exp(-ln_var)
        ret = []
        for i in indexes:
            if i == 2:
                g = gy * (1.0 - diff * diff * prec) * 0.5
            else:
                g = gy * diff * prec
                if i == 1:
                    g = -g
            ret.append(self._to_input(g, i))
        return tuple(ret)


def gaussian_nll(x, mean, ln_var, reduce='sum'):
    """Negative log likelihood of ``x`` under ``N(mean, exp(ln_var))``.

    Elementwise ``(ln_var + log(2 pi)) / 2 + (x - mean) ** 2 / (2 var)``
    for a diagonal Gaussian with ``var = exp(ln_var)``.

    Args:
        x: float array, the data.
        mean, ln_var: float arrays (broadcastable with ``x``), the means and
            log variances.
        reduce (str): ``'sum'`` (a scalar) or ``'no'`` (elementwise).

    Returns:
        Variable of ``x``'s dtype.

    >>> F.gaussian_nll(np.array([0.]), np.array([0.]), np.array([0.])).array
    array(0.91893853)
    """
    check_reduce('gaussian_nll', reduce, _REDUCE)
    return GaussianNLL(reduce).apply((x, mean, ln_var))[0]
