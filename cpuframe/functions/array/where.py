"""Choose elements from two arrays by a condition."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class Where(FunctionNode):
    """``xp.where(condition, x, y)``; ``condition`` is a constant.

    The three operands broadcast together.  The gradient routes each
    output element's gradient to the operand it was taken from.
    """

    def __init__(self, condition):
        if isinstance(condition, Variable):
            condition = condition.array
        elif isinstance(condition, numpy.generic):
            condition = numpy.asarray(condition)
        if not backend.is_array(condition):
            raise TypeError('where: expected condition as a boolean array or '
                            'Variable, got {}'.format(
                                type(condition).__name__))
        self.condition = condition

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'y'))
        x, y = in_types
        condition = type_check.make_variable(
            type_check.TypeInfo(self.condition.shape, self.condition.dtype),
            'condition')
        type_check.expect(condition.dtype == numpy.bool_,
                          x.dtype == y.dtype)
        type_check.expect_broadcast_shapes(condition.shape, x.shape, y.shape)

    def forward(self, inputs):
        x, y = inputs
        xp = backend.get_array_module(x, y)
        self._in_shapes = (x.shape, y.shape)
        return xp.asarray(xp.where(self.condition, x, y)),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.sum_to import sum_to
        gy, = grad_outputs
        zero = gy.xp.zeros((), dtype=gy.dtype)
        ret = []
        for i in indexes:
            if i == 0:
                g = Where(self.condition).apply((gy, zero))[0]
            else:
                g = Where(self.condition).apply((zero, gy))[0]
            ret.append(sum_to(g, self._in_shapes[i]))
        return tuple(ret)


def where(condition, x, y):
    """Elements of ``x`` where ``condition`` holds, else elements of ``y``.

    Args:
        condition: a boolean array or Variable; it gets no gradient.
        x, y: Variables or arrays of one dtype.

    ``condition``, ``x`` and ``y`` broadcast together to the output shape.

    >>> c = np.array([True, False]); x = np.ones(2, np.float32)
    >>> F.where(c, x, -x).array
    array([ 1., -1.], dtype=float32)
    """
    return Where(condition).apply((x, y))[0]
