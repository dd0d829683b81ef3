"""Logistic sigmoid."""
import numpy

from cpuframe import backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _supported(arrays):
    """float32 arrays of at least one element and one dimension."""
    return intel64.all_float32(arrays) and arrays[0].ndim >= 1 and \
        arrays[0].size > 0


class Sigmoid(FunctionNode):
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
        xp = numpy if type(x) is numpy.ndarray else \
            backend.get_array_module(x)
        # 1 / (1 + e^-x) written through tanh, which neither overflows for
        # large |x| nor loses precision near 0.
        y = xp.tanh(x * 0.5)
        # (in place: the same values as ``* 0.5 + 0.5``, two arrays fewer;
        # a 0-d input's scalar is rebound)
        y *= 0.5
        y += 0.5
        if type(y) is numpy.ndarray and y.dtype is x.dtype:
            return y,
        return utils.force_array(y, x.dtype),

    def intel64_supports(self, inputs):
        return _supported(inputs)

    intel64_profitable = intel64.size_rule('sigmoid', 0)

    def forward_intel64(self, inputs):
        return intel64.native().sigmoid_forward(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return SigmoidGrad().apply((y, grad_outputs[0]))

    def backward_arrays(self, indexes, grad_outputs):
        y, = self._retained_output_arrays()
        return SigmoidGrad()._compute((y, grad_outputs[0]))


class SigmoidGrad(FunctionNode):
    """``gx = gy * y * (1 - y)`` from the output ``y`` of sigmoid."""

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
        return utils.force_array(gy * y * (1 - y), y.dtype),

    def intel64_supports(self, inputs):
        return _supported(inputs)

    intel64_profitable = intel64.size_rule('sigmoid', 0)

    def forward_intel64(self, inputs):
        y, gy = inputs
        return intel64.native().sigmoid_backward(y, gy),

    def backward(self, indexes, grad_outputs):
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * (1.0 - y * 2.0))
            else:
                # linear in gy: the same map applied to ggx
                ret.append(SigmoidGrad().apply((y, ggx))[0])
        return tuple(ret)


def sigmoid(x):
    """Elementwise logistic sigmoid, ``y = 1 / (1 + exp(-x))``.

    The gradient is ``y * (1 - y)``, computed from the output, so ``x`` is
    not kept for backward.  Higher-order gradients are supported.

    >>> F.sigmoid(np.array([0.], np.float32)).array
    array([0.5], dtype=float32)
    """
    return Sigmoid().apply((x,))[0]
