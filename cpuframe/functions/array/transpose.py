"""Permute axes."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Transpose(FunctionNode):
    def __init__(self, axes=None):
        self.axes = None if axes is None else tuple(int(a) for a in axes)

    @property
    def label(self):
        return 'Transpose'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axes',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        if self.axes is not None:
            ndim = type_check.eval(in_types[0].ndim)
            normalized = sorted(a % ndim if -ndim <= a < ndim else a
                                for a in self.axes)
            if normalized != list(range(ndim)):
                raise type_check.InvalidType(
                    'axes is a permutation of range({})'.format(ndim),
                    'axes = {}'.format(self.axes))

    def forward(self, inputs):
        return inputs[0].transpose(self.axes),

    def backward(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        if self.axes is None:
            return transpose(gy),
        ndim = gy.ndim
        inv = [0] * ndim
        for i, a in enumerate(self.axes):
            inv[a % ndim] = i
        return transpose(gy, inv),


def transpose(x, axes=None):
    """Permute the axes of ``x`` (reverse them when ``axes`` is None)."""
    return Transpose(axes).apply((x,))[0]
