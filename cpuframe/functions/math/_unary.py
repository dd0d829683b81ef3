"""The shape shared by the elementwise math functions of one float input
(exp, log, trig, hyperbolic, ...): ``y = ufunc(x)``, a gradient written with
FunctionNodes so that it is differentiable again."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class UnaryUfunc(FunctionNode):
    """``y = xp.<ufunc>(x)`` for a float array ``x``.

    Subclasses set ``ufunc`` (the NumPy/CuPy function's name) and ``retain``
    (``'x'``: the backward reads the input, ``'y'``: the output) and define
    ``grad(kept, gy)``, the input's gradient from the kept array (a
    Variable) and the output's gradient.
    """

    ufunc = None
    retain = 'x'
    # (a backward_arrays computes what ``grad`` computes)
    _backward_arrays_follows = ('backward', 'backward_accumulate', 'grad')

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        x, = inputs
        if self.retain == 'x':
            self.retain_inputs((0,))
        else:
            self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(getattr(xp, self.ufunc)(x), x.dtype),

    def backward(self, indexes, grad_outputs):
        if self.retain == 'x':
            kept, = self.get_retained_inputs()
        else:
            kept, = self.get_retained_outputs()
        return self.grad(kept, grad_outputs[0]),

    def grad(self, kept, gy):
        raise NotImplementedError
