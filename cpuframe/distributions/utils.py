"""Helpers shared by the distributions."""
import warnings

import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.variable import Variable, as_variable


class ModifiedXLogX(FunctionNode):
    """``x log x`` with the value 0 at ``x = 0`` (the limit); ``log x`` is
    passed in (a Variable, kept for the gradient ``1 + log x``)."""

    def __init__(self, logx):
        self._logx = logx

    @property
    def label(self):
        return 'modified_xlogx'

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self._zero = x == 0
        y = x * self._logx.array
        return xp.asarray(xp.where(self._zero, 0, y), dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        if self._zero.any():
            warnings.warn('modified_xlogx: the gradient at x = 0 is '
                          'undefined; it is taken to be 0.', RuntimeWarning,
                          stacklevel=2)
        gy, = grad_outputs
        keep = (~self._zero).astype(gy.dtype)
        return gy * (1 + self._logx) * keep,


def _modified_xlogx(x):
    """``x log x`` (0 at 0) of a Variable or array of probabilities."""
    from cpuframe.functions.array.where import where
    from cpuframe.functions.math.exponential import log
    x = as_variable(x)
    xp = x.xp
    safe = where(x.array > 0, x, xp.ones_like(x.array))
    return ModifiedXLogX(log(safe)).apply((x,))[0]


def as_param(owner, name, value):
    """``value`` as a float Variable; a TypeError naming ``owner`` and
    ``name`` otherwise."""
    if value is None:
        raise ValueError('{}: {} must be given'.format(owner, name))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = numpy.asarray(value, numpy.float32)
    v = value if isinstance(value, Variable) else as_variable(value)
    if v.dtype.kind != 'f':
        raise TypeError('{}: {} must be a floating-point array, got dtype '
                        '{}'.format(owner, name, v.dtype))
    return v


def broadcast_params(owner, names, values, core_ndim=0):
    """The Variables ``values`` broadcast to their common shape (the last
    ``core_ndim`` axes are kept apart: they must already agree); a
    ValueError naming ``owner`` when the shapes do not broadcast."""
    from cpuframe.functions.array.broadcast import broadcast_to
    shapes = [v.shape for v in values]
    try:
        lead = numpy.broadcast_shapes(
            *[s[:len(s) - core_ndim] for s in shapes])
    except ValueError:
        raise ValueError('{}: the shapes of {} do not broadcast: {}'.format(
            owner, ', '.join(names), ', '.join(map(str, shapes)))) from None
    dtypes = {v.dtype for v in values}
    if len(dtypes) > 1:
        raise TypeError('{}: {} must share one dtype, got {}'.format(
            owner, ', '.join(names), ', '.join(str(v.dtype) for v in values)))
    out = []
    for v in values:
        target = lead + v.shape[len(v.shape) - core_ndim:]
        out.append(v if v.shape == target else broadcast_to(v, target))
    return out


def random_like(xp, dtype, shape, method, *args):
    """``xp.random.<method>(*args, size=shape)`` cast to ``dtype``."""
    fn = getattr(xp.random, method)
    return xp.asarray(fn(*args, size=shape)).astype(dtype, copy=False)


def uniform_open(xp, dtype, shape):
    """Uniform samples in the open interval (0, 1) in ``dtype``."""
    tiny = numpy.finfo(dtype).tiny if numpy.dtype(dtype).itemsize > 2 \
        else numpy.float16(6.1e-5)
    u = xp.random.uniform(0.0, 1.0, size=shape)
    eps = numpy.finfo(dtype).eps
    return xp.clip(u, max(tiny, eps / 2), 1 - eps / 2).astype(dtype)


def points(x):
    """The array of a point argument (a Variable or an array)."""
    return x.array if isinstance(x, Variable) else x


def keep_where(cond, value, fill):
    """``value`` where the boolean array ``cond`` (broadcast to value's
    shape) holds, else the constant ``fill``."""
    from cpuframe.functions.array.where import where
    xp = value.xp
    cond = xp.broadcast_to(xp.asarray(cond), value.shape)
    if cond.all():
        return value
    return where(cond, value, xp.full(value.shape, fill, value.dtype))
