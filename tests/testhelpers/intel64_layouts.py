"""Inputs in every layout the intel64 routes meet, and a native-call recorder.

Shared by the parity tests of this directory (imported as a plain module:
conftest.py puts this directory on sys.path).
"""
import numpy

from cpuframe.backends import intel64


def conv_args(case, rng, bias):
    """Arrays ``[x, W(, b)]`` and keyword options for a convolution case
    given as ``dict(x=shape, w=shape, **options)``."""
    x = rng.standard_normal(case['x']).astype(numpy.float32)
    W = (rng.standard_normal(case['w']) * 0.3).astype(numpy.float32)
    arrays = [x, W]
    if bias:
        arrays.append(rng.standard_normal(case['w'][0]).astype(numpy.float32))
    opts = {k: v for k, v in case.items() if k not in ('x', 'w')}
    return arrays, opts


def as_layout(x, layout):
    """``x`` as a NumPy array or an mdarray in the named layout (same values)."""
    if layout == 'numpy':
        return x.copy()
    if layout == 'strided':  # a non-contiguous view with the same values
        buf = numpy.zeros(x.shape[:-1] + (2 * x.shape[-1],), numpy.float32)
        buf[..., ::2] = x
        return buf[..., ::2]
    if layout == 'transposed':  # a view with channels-last memory order
        if x.ndim < 3:
            return numpy.asfortranarray(x)
        perm = (0,) + tuple(range(2, x.ndim)) + (1,)
        return numpy.ascontiguousarray(x.transpose(perm)).transpose(
            numpy.argsort(perm))
    t = intel64.from_numpy(x)
    if layout == 'plain' or x.ndim < 3:
        return t
    nsp = x.ndim - 2
    if layout == 'nhwc':
        return t.reorder('a' + ''.join(chr(ord('c') + i) for i in range(nsp)) + 'b')
    # A 1x1 convolution gives oneDNN's blocked layout (aBcd16b and alike);
    # the values are reordered into it (a product with the identity would
    # turn an inf into NaN in the other channels: inf * 0).
    c = x.shape[1]
    W = numpy.eye(c, dtype=numpy.float32).reshape((c, c) + (1,) * nsp)
    dnnl = intel64.native()
    dnnl = getattr(dnnl, '_real', dnnl)  # not recorded by ``calls``
    like = dnnl.convolution_forward(
        numpy.zeros(x.shape, numpy.float32), W, None, [1] * nsp, [1] * nsp,
        [0] * nsp, [0] * nsp)
    assert not like.is_plain
    y = t.reorder_to_layout_of(like)
    assert not y.is_plain
    return y


class Calls:
    """Records which functions of the native module are called.

    The checks a route makes of its inputs before it runs (``all_within``,
    ``has_nan``) and the NumPy path's read of device inputs (``plain_views``)
    compute nothing and are not recorded.
    """

    _CHECKS = ('all_within', 'has_nan', 'plain_views')

    def __init__(self, real):
        self._real = real
        self.names = []

    def __getattr__(self, name):
        attr = getattr(self._real, name)
        if callable(attr) and not isinstance(attr, type) and name not in self._CHECKS:
            def wrapper(*args, **kwargs):
                self.names.append(name)
                return attr(*args, **kwargs)
            return wrapper
        return attr
