"""Rectified linear unit."""
import sys

import numpy

from cpuframe import _temporaries, backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class ReLU(FunctionNode):
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
        # (a Python 0 keeps x's dtype, NumPy 1's value-based casting and 2's
        # weak scalars alike; ``dtype=`` would cost the ufunc ~0.7 us more)
        if type(x) is numpy.ndarray:
            # (NumPy without get_array_module and force_array's calls: 0.3
            # of relu's 3 us on 4 elements)
            y = numpy.maximum(x, 0)
            if type(y) is numpy.ndarray and y.dtype is x.dtype:
                return y,
            return utils.force_array(y, x.dtype),
        xp = backend.get_array_module(x)
        return utils.force_array(xp.maximum(x, 0), x.dtype),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and inputs[0].ndim >= 1

    intel64_profitable = intel64.size_rule('relu', 0)

    _claim = False  # set by relu(): the input is a temporary

    def forward_intel64(self, inputs):
        x = inputs[0]
        # A convolution output nobody else can see, not computed yet: relu
        # becomes its post-op and the same tensor is the output (no hook
        # may hold the input either).
        if self._claim and not self._function_hooks() and \
                intel64.native().fuse_relu(x):
            return x,
        return intel64.native().relu(x),

    accepts_donated_grads = True

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        grad = ReLUGrad(y.array, overwrite_gy=self.donated_grad_outputs[0])
        return grad.apply((grad_outputs[0],))

    def backward_arrays(self, indexes, grad_outputs):
        y, = self._retained_output_arrays()
        grad = ReLUGrad(y, overwrite_gy=self.donated_grad_outputs[0])
        return grad._compute(grad_outputs)


class ReLUGrad(FunctionNode):
    """``gx = gy * (y > 0)`` with the output ``y`` of relu as a constant.

    The map is linear in ``gy`` and the mask is piecewise constant in ``x``,
    so its own gradient is the same map applied to ``ggx``.
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    def __init__(self, y, overwrite_gy=False):
        self.y = y
        # gy is given up (donated by the backward engine): gx may be
        # written over it.
        self.overwrite_gy = overwrite_gy

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self.y.shape)

    def forward(self, inputs):
        gy, = inputs
        if self.overwrite_gy and isinstance(gy, numpy.ndarray) and \
                isinstance(self.y, numpy.ndarray):
            numpy.multiply(gy, self.y > 0, out=gy)
            return gy,
        return utils.force_array(gy * (self.y > 0), gy.dtype),

    def intel64_on_device(self, inputs):
        return intel64.any_native((self.y,) + tuple(inputs))

    def intel64_supports(self, inputs):
        return intel64.all_float32((self.y,) + tuple(inputs)) and \
            self.y.ndim >= 1

    intel64_profitable = intel64.size_rule('relu', 'y')

    def forward_intel64(self, inputs):
        return intel64.native().relu_grad(self.y, inputs[0],
                                          overwrite_gy=self.overwrite_gy),

    def backward(self, indexes, grad_outputs):
        return ReLUGrad(self.y).apply((grad_outputs[0],))


def relu(x):
    """Rectified linear unit, ``y = max(0, x)``, elementwise.

    Args:
        x: a float Variable or array of any shape.

    Returns:
        A Variable of the same shape and dtype.  The gradient is
        ``gy * (y > 0)``, computed from the output (``x`` is not kept).

    >>> F.relu(np.array([-1., 0., 2.], np.float32)).array
    array([0., 0., 2.], dtype=float32)
    """
    node = ReLU()
    if type(x) is Variable and type(x._array) is not numpy.ndarray:
        # (only a device tensor can be a pending convolution to fold into;
        # a Variable held elsewhere, e.g. by a name, is never one: the
        # count read first, without a call)
        n_var = sys.getrefcount(x)
        refs = _temporaries._CLAIM_REFS
        if refs is False or (refs is not None and n_var <= refs[0]):
            n_array = sys.getrefcount(x._array)
            node._claim = _temporaries.claimable_by_relu(x, n_var, n_array)
    return node.apply((x,))[0]
