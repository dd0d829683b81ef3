"""Pick one element per row."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class SelectItem(FunctionNode):
    """``x[arange(B), t]``; ``t`` gets no gradient."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 't'))
        x, t = in_types
        type_check.expect(t.dtype.kind == 'i', x.ndim == 2, t.ndim == 1,
                          x.shape[0] == t.shape[0])

    def forward(self, inputs):
        self.retain_inputs((1,))
        x, t = inputs
        xp = backend.get_array_module(x, t)
        # The range check runs on NumPy only: on a GPU it would synchronize.
        if xp is numpy and t.size and (t.min() < 0 or t.max() >= x.shape[1]):
            raise ValueError(
                'select_item: expected 0 <= t < x.shape[1] = {}, got t in '
                '[{}, {}]'.format(x.shape[1], t.min(), t.max()))
        self._in_shape = x.shape
        return x[xp.arange(len(t)), t],

    def backward(self, indexes, grad_outputs):
        t, = self.get_retained_inputs()
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(SelectItemGrad(self._in_shape).apply(
                    (t, grad_outputs[0]))[0])
            else:
                ret.append(None)
        return tuple(ret)


class SelectItemGrad(FunctionNode):
    """Zeros of x's shape with ``gy[b]`` placed at ``(b, t[b])``."""

    def __init__(self, in_shape):
        self._in_shape = in_shape

    def forward(self, inputs):
        self.retain_inputs((0,))
        t, gy = inputs
        xp = backend.get_array_module(t, gy)
        gx = xp.zeros(self._in_shape, dtype=gy.dtype)
        gx[xp.arange(len(t)), t] = gy
        return gx,

    def backward(self, indexes, grad_outputs):
        t, = self.get_retained_inputs()
        return tuple(select_item(grad_outputs[0], t) if i == 1 else None
                     for i in indexes)


def select_item(x, t):
    """``x[b, t[b]]`` for every row ``b``.

    Args:
        x: a Variable or array of shape ``(B, N)``.
        t: an integer array or Variable of shape ``(B,)`` with entries in
            ``[0, N)``.

    Returns:
        A Variable of shape ``(B,)``.

    >>> x = np.array([[0., 1., 2.], [3., 4., 5.]], np.float32)
    >>> F.select_item(x, np.array([2, 0], np.int32)).array
    array([2., 3.], dtype=float32)
    """
    return SelectItem().apply((x, t))[0]
