"""Huber loss: quadratic near zero, linear beyond ``delta``."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_reduce, check_same_float
from cpuframe.utils import type_check

_NAME = 'huber_loss'


class HuberLoss(FunctionNode):
    """Elementwise Huber loss of ``x - t``, summed over axis 1 or not."""

    def __init__(self, delta, reduce='sum_along_second_axis'):
        self.delta = delta
        self.reduce = reduce

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('reduce',)

    def check_type_forward(self, in_types):
        check_same_float(in_types, ('x', 't'))
        if self.reduce == 'sum_along_second_axis':
            type_check.expect(in_types[0].ndim >= 2)

    def forward(self, inputs):
        x, t = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        delta = x.dtype.type(self.delta)
        diff = x - t
        abs_diff = abs(diff)
        y = xp.where(abs_diff <= delta, diff * diff * 0.5,
                     delta * (abs_diff - delta * 0.5))
        if self.reduce == 'sum_along_second_axis':
            y = y.sum(axis=1)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.clip import clip
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'sum_along_second_axis':
            gy = gy.reshape(gy.shape[:1] + (1,) + gy.shape[1:])
        gx = clip(x - t, -self.delta, self.delta) * gy
        return tuple(gx if i == 0 else -gx for i in indexes)


def huber_loss(x, t, delta, reduce='sum_along_second_axis'):
    """Huber loss, less sensitive to outliers than the squared error.

    With ``a = x - t``, elementwise ``L(a) = a ** 2 / 2`` where
    ``|a| <= delta`` and ``delta * (|a| - delta / 2)`` elsewhere; the
    gradient is ``clip(a, -delta, delta)``.

    Args:
        x, t: float arrays of the same shape and dtype.
        delta (float): the threshold between the two regimes.
        reduce (str): ``'sum_along_second_axis'`` sums over axis 1 (the
            result has ``x``'s shape without axis 1; ``x.ndim >= 2``);
            ``'no'`` keeps the elementwise losses.

    Returns:
        Variable of ``x``'s dtype.

    >>> x = np.array([[0.5, 3.]], np.float32)
    >>> F.huber_loss(x, np.zeros_like(x), delta=1.).array
    array([2.625], dtype=float32)
    """
    check_reduce(_NAME, reduce, ('sum_along_second_axis', 'no'))
    return HuberLoss(delta, reduce).apply((x, t))[0]
