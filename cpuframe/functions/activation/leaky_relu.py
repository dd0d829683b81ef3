"""Leaky rectified linear unit."""
from cpuframe import backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class LeakyReLU(FunctionNode):
    bf16_inputs = (0,)
    bf16_outputs = (0,)

    def __init__(self, slope=0.2):
        self.slope = slope

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        negative = x < 0
        # With a positive slope the sign of y is the sign of x, so the output
        # can stand in for the input in backward; otherwise keep the mask.
        if self.slope > 0:
            self.retain_outputs((0,))
            self._negative = None
        else:
            self._negative = negative
        y = xp.where(negative, x * x.dtype.type(self.slope), x)
        return utils.force_array(y, x.dtype),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and inputs[0].ndim >= 1 and \
            inputs[0].size > 0

    intel64_profitable = intel64.size_rule('leaky_relu', 0)

    def forward_intel64(self, inputs):
        x, = inputs
        # backward reads the signs of x from y (slope > 0) or from x.
        self._negative = None
        if self.slope > 0:
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return intel64.native().leaky_relu_forward(x, self.slope),

    def backward(self, indexes, grad_outputs):
        negative = self._negative
        ref = None
        if negative is None:
            # y (slope > 0) or x has the signs of x.
            ref, = self.get_retained_outputs() if self.slope > 0 else \
                self.get_retained_inputs()
            ref = ref.array
        return LeakyReLUGrad(negative, self.slope, ref).apply(
            (grad_outputs[0],))


class LeakyReLUGrad(FunctionNode):
    """``gx = gy * (slope if x < 0 else 1)``; linear in ``gy``.

    The signs of ``x`` come as the mask ``negative`` or as ``ref``, an
    array with the signs of ``x`` (``x`` itself, or ``y`` when
    ``slope > 0``), which the oneDNN route reads directly.
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    def __init__(self, negative, slope, ref=None):
        self._mask = negative
        self.slope = slope
        self.ref = ref

    @property
    def negative(self):
        if self._mask is None:
            self._mask = intel64.to_numpy(self.ref) < 0
        return self._mask

    def _shape(self):
        return tuple((self.ref if self._mask is None else self._mask).shape)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self._shape())

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.where(self.negative, gy * gy.dtype.type(self.slope), gy)
        return utils.force_array(gx, gy.dtype),

    def intel64_on_device(self, inputs):
        return intel64.any_native((self.ref,) + tuple(inputs))

    def intel64_supports(self, inputs):
        return self.ref is not None and \
            intel64.all_float32((self.ref,) + tuple(inputs)) and \
            self.ref.ndim >= 1 and self.ref.size > 0

    intel64_profitable = intel64.size_rule('leaky_relu', 'ref')

    def forward_intel64(self, inputs):
        return intel64.native().leaky_relu_backward(
            self.ref, inputs[0], self.slope),

    def backward(self, indexes, grad_outputs):
        return LeakyReLUGrad(self._mask, self.slope, self.ref).apply(
            (grad_outputs[0],))


def leaky_relu(x, slope=0.2):
    """Leaky rectified linear unit, elementwise.

    .. math:: y = x \\text{ if } x \\ge 0, \\quad y = a x \\text{ if } x < 0

    Args:
        x: a float Variable or array of any shape.
        slope (float): the slope ``a`` for negative inputs.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.leaky_relu(np.array([-1., 2.], np.float32), slope=0.2).array
    array([-0.2,  2. ], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]
