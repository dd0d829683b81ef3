"""The S-LSTM cell (two children) as an activation function."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.rnn.lstm import (
    _merge_gates,
    _sigmoid,
    _split_gates,
)
from cpuframe.utils import type_check


def _activations(xp, x1, x2):
    a1, i1, f1, o1 = _split_gates(x1)
    a2, i2, f2, o2 = _split_gates(x2)
    return (xp.tanh(a1 + a2), _sigmoid(xp, i1 + i2), _sigmoid(xp, f1),
            _sigmoid(xp, f2), _sigmoid(xp, o1 + o2))


def _check_slstm_types(c1, c2, x1, x2):
    type_check.expect(
        c1.dtype.kind == 'f',
        c2.dtype == c1.dtype,
        x1.dtype == c1.dtype,
        x2.dtype == c1.dtype,
        c1.ndim >= 2,
        x1.ndim == c1.ndim,
        c1.shape == c2.shape,
        x1.shape == x2.shape,
        x1.shape[0] == c1.shape[0],
        x1.shape[1] == 4 * c1.shape[1],
    )
    for i in range(2, type_check.eval(c1.ndim)):
        type_check.expect(x1.shape[i] == c1.shape[i])


class SLSTM(FunctionNode):
    """Inputs ``(c_prev1, c_prev2, x1, x2)``, outputs ``(c, h)``."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('c_prev1', 'c_prev2', 'x1', 'x2'))
        _check_slstm_types(*in_types)

    def forward(self, inputs):
        c1, c2, x1, x2 = inputs
        xp = backend.get_array_module(*inputs)
        self.retain_inputs((0, 1, 2, 3))
        a, i, f1, f2, o = _activations(xp, x1, x2)
        c = a * i + f1 * c1 + f2 * c2
        h = o * xp.tanh(c)
        return utils.force_array(c, x1.dtype), utils.force_array(h, x1.dtype)

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        gxs = SLSTMGrad().apply(tuple(inputs) + tuple(grad_outputs))
        return tuple(gxs[i] for i in indexes)


class SLSTMGrad(FunctionNode):
    """Inputs ``(c_prev1, c_prev2, x1, x2, gc, gh)``; the four gradients."""

    def forward(self, inputs):
        c1, c2, x1, x2, gc, gh = inputs
        xp = backend.get_array_module(*inputs)
        a, i, f1, f2, o = _activations(xp, x1, x2)
        t = xp.tanh(a * i + f1 * c1 + f2 * c2)
        co = gc + gh * o * (1 - t * t)
        ga = co * i * (1 - a * a)
        gi = co * a * i * (1 - i)
        go = gh * t * o * (1 - o)
        gx1 = _merge_gates(xp, (ga, gi, co * c1 * f1 * (1 - f1), go),
                           x1.shape)
        gx2 = _merge_gates(xp, (ga, gi, co * c2 * f2 * (1 - f2), go),
                           x2.shape)
        dtype = x1.dtype
        return tuple(utils.force_array(g, dtype)
                     for g in (co * f1, co * f2, gx1, gx2))

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'slstm: gradients of second order are not supported')


def slstm(c_prev1, c_prev2, x1, x2):
    """S-LSTM cell: an LSTM unit merging two children (Zhu et al., 2015).

    ``x1`` and ``x2`` hold the gate pre-activations from the two children,
    each interleaved along axis 1 as in :func:`lstm` (channel ``4 * k + g``
    is gate ``g`` of unit ``k``, ``g`` = a, i, f, o).  With ``a = tanh(a1 +
    a2)``, ``i = sigmoid(i1 + i2)``, ``o = sigmoid(o1 + o2)`` and one forget
    gate per child, ``f1 = sigmoid(f1)``, ``f2 = sigmoid(f2)``:

    .. math::
        c &= a i + f_1 c_{prev1} + f_2 c_{prev2}, \\\\
        h &= o \\tanh(c).

    Args:
        c_prev1, c_prev2: the children's cell states, shape
            ``(B, units, ...)``.
        x1, x2: the gate pre-activations, shape ``(B, 4 * units, ...)``.

    Returns:
        A tuple ``(c, h)``, both of ``c_prev1``'s shape.  Only first-order
        gradients are supported (as in Chainer).

    >>> z = np.zeros((1, 1), np.float32)
    >>> c, h = F.slstm(z, z, np.zeros((1, 4), np.float32),
    ...                np.zeros((1, 4), np.float32))
    >>> c.shape, h.shape
    ((1, 1), (1, 1))
    """
    return SLSTM().apply((c_prev1, c_prev2, x1, x2))
