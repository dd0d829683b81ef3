"""Elementwise maximum and minimum of two Variables."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_pair(in_types):
    type_check.argname(in_types, ('x1', 'x2'))
    type_check.expect(
        in_types[0].dtype.kind == 'f',
        in_types[0].dtype == in_types[1].dtype,
    )
    type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)


def _routed_grads(indexes, gy, first_wins, x1_shape, x2_shape):
    """Send ``gy`` to x1 where ``first_wins`` holds and to x2 elsewhere.

    The mask is a constant, so the result is linear in ``gy`` and its own
    gradient (double backprop) follows from Mul and SumTo.
    """
    from cpuframe.functions.array.sum_to import sum_to
    ret = []
    for i in indexes:
        mask = first_wins if i == 0 else ~first_wins
        g = gy * mask.astype(gy.dtype)
        ret.append(sum_to(g, x1_shape if i == 0 else x2_shape))
    return tuple(ret)


class Maximum(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_pair(in_types)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1, x2)
        return utils.force_array(xp.maximum(x1, x2), x1.dtype),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gy, = grad_outputs
        first_wins = x1.array >= x2.array
        first_wins = x1.xp.broadcast_to(first_wins, gy.shape)
        return _routed_grads(indexes, gy, first_wins, x1.shape, x2.shape)


def maximum(x1, x2):
    """Elementwise maximum, ``y = max(x1, x2)``.

    ``x1`` and ``x2`` must have the same float dtype; their shapes broadcast
    against each other (as in Chainer 7), and the gradient is summed back to
    each input's shape.  Where ``x1 == x2`` the whole gradient goes to
    ``x1`` (the first argument) and ``x2`` gets zero.

    >>> F.maximum(np.array([1., 4.], np.float32),
    ...           np.array([3., 2.], np.float32)).array
    array([3., 4.], dtype=float32)
    """
    return Maximum().apply((x1, x2))[0]


class Minimum(FunctionNode):
    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_pair(in_types)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1, x2)
        return utils.force_array(xp.minimum(x1, x2), x1.dtype),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gy, = grad_outputs
        first_wins = x1.array <= x2.array
        first_wins = x1.xp.broadcast_to(first_wins, gy.shape)
        return _routed_grads(indexes, gy, first_wins, x1.shape, x2.shape)


def minimum(x1, x2):
    """Elementwise minimum, ``y = min(x1, x2)``.

    Same rules as :func:`maximum`: equal float dtypes, broadcast shapes,
    and at ties (``x1 == x2``) the whole gradient goes to ``x1``.

    >>> F.minimum(np.array([1., 4.], np.float32),
    ...           np.array([3., 2.], np.float32)).array
    array([1., 2.], dtype=float32)
    """
    return Minimum().apply((x1, x2))[0]
