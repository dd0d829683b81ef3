"""Indexing: basic (ints, slices, None, Ellipsis) and advanced (arrays)."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


def _normalize_slices(slices):
    if not isinstance(slices, tuple):
        slices = (slices,)
    out = []
    for s in slices:
        if isinstance(s, Variable):
            s = s.array
        if isinstance(s, list):
            s = numpy.asarray(s)
            if s.dtype.kind not in 'iub':
                raise TypeError('get_item: expected an integer or boolean '
                                'index list, got dtype {}'.format(s.dtype))
        out.append(s)
    return tuple(out)


def _axes_consumed(s):
    """How many axes of x the index entry ``s`` uses up."""
    if s is None or s is Ellipsis or isinstance(s, (bool, numpy.bool_)):
        return 0  # a scalar bool, like None, adds an axis
    if hasattr(s, 'dtype') and s.dtype.kind == 'b':
        return s.ndim
    return 1


def _is_advanced(slices):
    return any(hasattr(s, 'shape') and getattr(s, 'ndim', 0) >= 0 and
               not isinstance(s, (int, numpy.integer)) for s in slices)


class GetItem(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, slices):
        self.slices = _normalize_slices(slices)

    @property
    def label(self):
        return 'GetItem'

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        ndim = type_check.eval(in_types[0].ndim)
        used = sum(_axes_consumed(s) for s in self.slices)
        if used > ndim:
            raise type_check.InvalidType(
                'x.ndim >= {} (the number of indexed axes)'.format(used),
                'x.ndim = {}'.format(ndim))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        try:
            y = x[self.slices]
        except IndexError as e:
            raise IndexError('get_item: {} (x.shape={})'.format(e, x.shape)) from None
        xp = backend.get_array_module(x)
        return xp.asarray(y),

    def backward(self, indexes, grad_outputs):
        return GetItemGrad(self.slices, self._in_shape).apply(grad_outputs)

    def backward_arrays(self, indexes, grad_outputs):
        return GetItemGrad(self.slices, self._in_shape)._compute(grad_outputs)


class GetItemGrad(FunctionNode):
    """Scatters a gradient into zeros of the input's shape (adds repeats)."""

    def __init__(self, slices, in_shape):
        self.slices = slices
        self._in_shape = in_shape

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, dtype=gy.dtype)
        if _is_advanced(self.slices):
            from cpuframe.functions.array._indexing import add_at
            add_at(gx, self.slices, gy)
        else:
            gx[self.slices] = gy
        return gx,

    def backward(self, indexes, grad_outputs):
        return get_item(grad_outputs[0], self.slices),


def get_item(x, slices):
    """``x[slices]`` with NumPy's indexing rules, differentiable.

    Integer and boolean arrays index as in NumPy; entries picked several
    times get the sum of their gradients.
    """
    return GetItem(slices).apply((x,))[0]
