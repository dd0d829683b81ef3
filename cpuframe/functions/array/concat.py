"""Join arrays along an existing axis."""
import numpy

from cpuframe import backend
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.array.split_axis import SplitAxis, split_axis
from cpuframe.utils import type_check


def _split_points(sizes):
    """Where to split a concatenation of pieces of these lengths."""
    points = []
    total = 0
    for size in sizes[:-1]:
        total += size
        points.append(total)
    return points


class Concat(FunctionNode):
    """Concatenate the inputs along ``axis``; backward splits the gradient."""

    bf16_inputs = 'all'
    bf16_outputs = (0,)

    def __init__(self, axis=1):
        if not isinstance(axis, (int, numpy.integer)) or \
                isinstance(axis, bool):
            raise TypeError('concat: expected an int axis, got {!r}'.format(
                axis))
        self.axis = int(axis)
        self._intel64_ctx = None

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        x0 = in_types[0]
        axis = type_check.make_variable(self.axis, 'axis')
        type_check.expect(-x0.ndim <= axis, axis < x0.ndim)
        ndim = type_check.eval(x0.ndim)
        axis = self.axis % ndim
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype, x.ndim == x0.ndim)
            for d in range(ndim):
                if d != axis:
                    type_check.expect(x.shape[d] == x0.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self._sizes = [x.shape[self.axis] for x in inputs]
        return xp.concatenate(inputs, axis=self.axis),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and \
            1 <= inputs[0].ndim <= 12 and all(x.size > 0 for x in inputs)

    # A concatenation is a memory-bound copy, which NumPy does as fast:
    # NumPy inputs stay on NumPy.
    intel64_profitable = intel64.size_rule(None)

    def intel64_profitable_on_device(self, inputs):
        return intel64.auto_profitable(
            'concat_on_device', sum(x.size for x in inputs))

    def forward_intel64(self, inputs):
        self._sizes = [x.shape[self.axis] for x in inputs]
        y, self._intel64_ctx = intel64.native().concat_forward(
            list(inputs), self.axis % inputs[0].ndim)
        self._native_inputs = [intel64.is_native_array(x) for x in inputs]
        return y,

    def _split_node(self, gy):
        # the node splitting the gradient back into the inputs' pieces
        if self._intel64_ctx is not None and (
                any(self._native_inputs) or intel64.is_native_array(gy)):
            # On the Intel64 device: split with oneDNN, each piece in its
            # input's layout.
            return _ConcatGrad(self)
        return SplitAxis(_split_points(self._sizes), self.axis)

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        gxs = self._split_node(gy.array).apply((gy,))
        return tuple(gxs[i] for i in indexes)

    def backward_arrays(self, indexes, grad_outputs):
        gxs = self._split_node(grad_outputs[0])._compute(grad_outputs)
        return tuple(gxs[i] for i in indexes)


class _ConcatGrad(FunctionNode):
    """The gradient of a oneDNN :class:`Concat`: ``gy`` split along its axis.

    Its own gradient concatenates again. In the mixed_bf16 mode it rounds
    nothing (the pieces keep gy's storage), as split_axis on the NumPy path.
    """

    def __init__(self, concat):
        self.concat = concat

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        return tuple(xp.split(gy, _split_points(self.concat._sizes),
                              axis=self.concat.axis))

    def intel64_on_device(self, inputs):
        return any(self.concat._native_inputs) or \
            super().intel64_on_device(inputs)

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs)

    def forward_intel64(self, inputs):
        gxs = intel64.native().concat_backward(inputs[0],
                                               self.concat._intel64_ctx)
        # NumPy inputs get NumPy gradients.
        return tuple(gx if native else intel64.to_numpy(gx) for gx, native
                     in zip(gxs, self.concat._native_inputs))

    def backward(self, indexes, grad_outputs):
        return Concat(self.concat.axis).apply(grad_outputs)


def concat(xs, axis=1):
    """Concatenate the Variables or arrays ``xs`` along ``axis``.

    Every input has the same ndim and dtype, and the same length on every
    axis but ``axis`` (negative values count from the end).

    >>> a = np.zeros((2, 3), np.float32); b = np.zeros((2, 4), np.float32)
    >>> F.concat((a, b), axis=1).shape
    (2, 7)
    """
    return Concat(axis).apply(tuple(xs))[0]


class _PromotedConcat(FunctionNode):
    """Concatenation after promoting each input to a minimum ndim.

    The base of ``hstack``, ``vstack`` and ``dstack``: a subclass gives
    ``_promote(shape)`` (NumPy's ``atleast_Nd`` rule) and ``_axis(ndim)``
    (the joining axis for promoted inputs of that ndim).  Backward splits
    the gradient and reshapes each piece back to its input's shape.
    """

    def _promote(self, shape):
        raise NotImplementedError

    def _axis(self, ndim):
        raise NotImplementedError

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        x0 = in_types[0]
        for x in in_types[1:]:
            type_check.expect(x.dtype == x0.dtype)
        shapes = [self._promote(type_check.eval(x.shape)) for x in in_types]
        ndim = len(shapes[0])
        axis = self._axis(ndim)
        for i, shape in enumerate(shapes[1:], 1):
            if len(shape) != ndim or any(
                    s != t for d, (s, t) in enumerate(zip(shape, shapes[0]))
                    if d != axis):
                raise type_check.InvalidType(
                    'in_types[{}] matches in_types[0] on every axis but axis '
                    '{} (after promotion to {} dims)'.format(i, axis, ndim),
                    'promoted shapes {} and {}'.format(shapes[0], shape))

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self._in_shapes = [x.shape for x in inputs]
        promoted = [x.reshape(self._promote(x.shape)) for x in inputs]
        self._join_axis = self._axis(promoted[0].ndim)
        self._sizes = [x.shape[self._join_axis] for x in promoted]
        return xp.concatenate(promoted, axis=self._join_axis),

    def backward(self, indexes, grad_outputs):
        gxs = split_axis(grad_outputs[0], _split_points(self._sizes),
                         self._join_axis)
        return tuple(reshape(gxs[i], self._in_shapes[i]) for i in indexes)
