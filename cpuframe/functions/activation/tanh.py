"""Hyperbolic tangent."""
import numpy

from cpuframe import backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _supported(arrays):
    """float32 arrays of at least one element and one dimension."""
    return intel64.all_float32(arrays) and arrays[0].ndim >= 1 and \
        arrays[0].size > 0


class Tanh(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((), (0,))

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        if type(x) is _ndarray:
            y = _tanh(x)
            if type(y) is _ndarray and y.dtype is x.dtype:
                return y,
            return utils.force_array(y, x.dtype),
        return utils.force_array(
            backend.get_array_module(x).tanh(x), x.dtype),

    def intel64_supports(self, inputs):
        return _supported(inputs)

    intel64_profitable = intel64.size_rule('tanh', 0)

    def forward_intel64(self, inputs):
        return intel64.native().tanh_forward(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return TanhGrad().apply((y, grad_outputs[0]))

    def backward_arrays(self, indexes, grad_outputs):
        y, = self._retained_output_arrays()
        return TanhGrad()._compute((y, grad_outputs[0]))


class TanhGrad(FunctionNode):
    """``gx = gy * (1 - y ** 2)`` from the output ``y`` of tanh."""

    bf16_inputs = (0, 1)  # (y, gy)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('y', 'gy'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].dtype == in_types[1].dtype,
                          in_types[0].shape == in_types[1].shape)

    def forward(self, inputs):
        y, gy = inputs
        return utils.force_array(gy * (1 - y * y), y.dtype),

    def intel64_supports(self, inputs):
        return _supported(inputs)

    intel64_profitable = intel64.size_rule('tanh', 0)

    def forward_intel64(self, inputs):
        y, gy = inputs
        return intel64.native().tanh_backward(y, gy),

    def backward(self, indexes, grad_outputs):
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * y * -2.0)
            else:
                # linear in gy: the same map applied to ggx
                ret.append(TanhGrad().apply((y, ggx))[0])
        return tuple(ret)


def tanh(x):
    """Elementwise hyperbolic tangent, ``y = tanh x``.

    The gradient is ``1 - y ** 2``, computed from the output, so ``x`` is
    not kept for backward.  Higher-order gradients are supported.

    >>> F.tanh(np.array([0.], np.float32)).array
    array([0.], dtype=float32)
    """
    return Tanh().apply((x,))[0]


_ndarray = numpy.ndarray
_tanh = numpy.tanh
