"""Split an array along an axis (the inverse of concat)."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


def _is_int(value):
    return isinstance(value, (int, numpy.integer)) and \
        not isinstance(value, bool)


def _normalized(indices, length):
    return [i + length if i < 0 else i for i in indices]


class SplitAxis(FunctionNode):
    """Split ``x`` along ``axis`` at indices or into equal sections.

    Backward concatenates the output gradients.  The engine passes a
    zero-filled Variable for every output that received no gradient, so the
    concatenation always sees one piece per output.
    """

    def __init__(self, indices_or_sections, axis):
        if _is_int(indices_or_sections):
            if indices_or_sections <= 0:
                raise ValueError(
                    'split_axis: expected a positive number of sections, got '
                    '{}'.format(indices_or_sections))
            self.sections = int(indices_or_sections)
            self.indices = None
        else:
            try:
                indices = list(indices_or_sections)
            except TypeError:
                indices = None
            if indices is None or isinstance(indices_or_sections, str) or \
                    not all(_is_int(i) for i in indices):
                raise TypeError(
                    'split_axis: expected an int or a sequence of ints for '
                    'indices_or_sections, got {!r}'.format(
                        indices_or_sections))
            self.sections = None
            self.indices = tuple(int(i) for i in indices)
        if not _is_int(axis):
            raise TypeError('split_axis: expected an int axis, got {!r}'
                            .format(axis))
        self.axis = int(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('indices', 'sections', 'axis')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x = in_types[0]
        axis = type_check.make_variable(self.axis, 'axis')
        type_check.expect(-x.ndim <= axis, axis < x.ndim)
        ndim = type_check.eval(x.ndim)
        length = x.shape[self.axis % ndim]
        if self.sections is not None:
            sections = type_check.make_variable(self.sections, 'sections')
            type_check.expect(length % sections == 0)
        else:
            for i, index in enumerate(self.indices):
                index = type_check.make_variable(
                    index, 'indices[{}]'.format(i))
                type_check.expect(-length <= index, index <= length)
            # A negative index counts from the end, as in NumPy and Chainer.
            # Indices out of order are refused: NumPy (and Chainer 7.8.1)
            # return overlapping pieces then, whose gradients cannot be
            # concatenated back into x's.
            indices = _normalized(self.indices, length)
            if indices != sorted(indices):
                raise type_check.InvalidType(
                    'indices in ascending order',
                    'indices = {}'.format(list(self.indices)))

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self._axis = self.axis % x.ndim
        split = self.sections if self.indices is None else _normalized(
            self.indices, x.shape[self._axis])
        return tuple(xp.split(x, split, self._axis))

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.concat import concat
        gys = []
        for i, gy in enumerate(grad_outputs):
            if gy is None:
                shape, dtype, device = self._output_meta[i]
                gy = Variable(device.xp.zeros(shape, dtype=dtype),
                              requires_grad=False)
            gys.append(gy)
        return concat(gys, axis=self._axis),


def split_axis(x, indices_or_sections, axis, force_tuple=True):
    """Split ``x`` along ``axis``.

    Args:
        x: the Variable or array to split.
        indices_or_sections: an int ``n`` splits into ``n`` equal sections
            (the length along ``axis`` must be divisible by ``n``); a
            sequence of ascending ints gives the split points, as in
            ``numpy.split``.
        axis (int): the axis to split along (negative counts from the end).
        force_tuple (bool): when False and the split yields one piece,
            return that Variable instead of a 1-tuple.

    Returns:
        A tuple of Variables (or one Variable, see ``force_tuple``).

    >>> ys = F.split_axis(np.zeros((2, 6), np.float32), [1, 4], axis=1)
    >>> [y.shape for y in ys]
    [(2, 1), (2, 3), (2, 2)]
    """
    ys = SplitAxis(indices_or_sections, axis).apply((x,))
    if not force_tuple and len(ys) == 1:
        return ys[0]
    return ys
