"""Elementwise C-style remainder ``fmod(x, divisor)``."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Fmod(FunctionNode):
    @property
    def label(self):
        return 'fmod'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'divisor'))
        x, divisor = in_types
        type_check.expect(x.dtype.kind == 'f', x.dtype == divisor.dtype,
                          x.shape == divisor.shape)

    def forward(self, inputs):
        x, divisor = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x, divisor)
        return utils.force_array(xp.fmod(x, divisor), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, divisor = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy)
            else:
                # d fmod / d divisor = -trunc(x / divisor), piecewise constant.
                xp = backend.get_array_module(x.array)
                q = utils.force_array(-xp.trunc(x.array / divisor.array),
                                      x.dtype)
                ret.append(gy * q)
        return tuple(ret)


def fmod(x, divisor):
    """Elementwise remainder of ``x / divisor`` with the sign of ``x``.

    ``fmod(x, d) = x - d * trunc(x / d)`` (``numpy.fmod``); ``x`` and
    ``divisor`` are float arrays of the same shape and dtype.  The gradient
    is ``1`` for ``x`` and ``-trunc(x / d)`` for ``divisor``.

    >>> F.fmod(np.array([-3., 5.]), np.array([2., 3.])).array
    array([-1.,  2.])
    """
    return Fmod().apply((x, divisor))[0]
