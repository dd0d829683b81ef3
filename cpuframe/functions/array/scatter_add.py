"""Add values into an array at indexed positions (``numpy.add.at``)."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.functions.array._indexing import add_at
from cpuframe.utils import type_check


def _indexed_shape(shape, slices):
    """The shape of ``x[slices]`` for an ``x`` of ``shape``, without data."""
    # A zero-strided view indexes like a real array of that shape.
    dummy = numpy.broadcast_to(numpy.empty((), dtype=numpy.bool_), shape)
    return dummy[slices].shape


class ScatterAdd(FunctionNode):
    """A copy of ``a`` with ``b`` added at ``slices``.

    Gradients: ``a`` gets the output gradient unchanged, ``b`` the output
    gradient read at ``slices`` (summed back to ``b``'s shape when ``b``
    was broadcast).
    """

    def __init__(self, slices):
        from cpuframe.functions.array.get_item import _normalize_slices
        self.slices = _normalize_slices(slices)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a', 'b'))
        a, b = in_types
        type_check.expect(a.dtype == b.dtype)
        a_shape = type_check.eval(a.shape)
        try:
            target = _indexed_shape(a_shape, self._host_slices())
        except IndexError as e:
            raise type_check.InvalidType(
                'slices valid for a.shape = {}'.format(a_shape),
                str(e)) from None
        b_shape = type_check.eval(b.shape)
        try:
            ok = numpy.broadcast_shapes(b_shape, target) == target
        except ValueError:
            ok = False
        if not ok:
            raise type_check.InvalidType(
                'b.shape broadcastable to a[slices].shape = {}'.format(target),
                'b.shape = {}'.format(b_shape))

    def _host_slices(self):
        return tuple(backend.cpu_device.send(s) if backend.is_array(s) else s
                     for s in self.slices)

    def forward(self, inputs):
        a, b = inputs
        self._b_shape = b.shape
        y = a.copy()
        add_at(y, self.slices, b)
        return y,

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.get_item import get_item
        from cpuframe.functions.array.sum_to import sum_to
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy)
            else:
                ret.append(sum_to(get_item(gy, self.slices), self._b_shape))
        return tuple(ret)


def scatter_add(a, slices, b):
    """A copy of ``a`` with ``b`` added at ``slices``; ``a`` is unchanged.

    Args:
        a: a Variable or array.
        slices: an index as ``get_item`` takes it: ints, slices, None,
            Ellipsis, integer or boolean arrays, lists, or a tuple of them.
            A position indexed several times receives every addition, as
            with ``numpy.add.at``.
        b: a Variable or array of ``a``'s dtype, broadcastable to the shape
            of ``a[slices]``.

    >>> a = np.zeros(3, np.float32)
    >>> F.scatter_add(a, [0, 0, 2], np.ones(3, np.float32)).array
    array([2., 0., 1.], dtype=float32)
    """
    return ScatterAdd(slices).apply((a, b))[0]
