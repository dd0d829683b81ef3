"""The tree-structured LSTM cell with N children (Chainer's ``F.tree_lstm``)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.rnn.lstm import _sigmoid
from cpuframe.utils import type_check


def _blocks(x, n):
    """Views of the ``n`` consecutive blocks of ``x`` along axis 1.

    Unlike :func:`lstm`'s interleaved gates, the tree LSTM cuts axis 1
    into ``n`` contiguous pieces: block ``g`` is channels
    ``g * units .. (g + 1) * units - 1``.
    """
    r = x.reshape((x.shape[0], n, x.shape[1] // n) + x.shape[2:])
    return [r[:, g] for g in range(n)]


def _activations(xp, x, n_ary):
    blocks = _blocks(x, 3 + n_ary)
    a = xp.tanh(blocks[0])
    i = _sigmoid(xp, blocks[1])
    o = _sigmoid(xp, blocks[2])
    fs = [_sigmoid(xp, f) for f in blocks[3:]]
    return a, i, o, fs


def _cell(a, i, fs, cs):
    c = a * i
    for f, c_child in zip(fs, cs):
        c = c + f * c_child
    return c


def _check_tree_lstm_types(c_types, x_type):
    n_ary = len(c_types)
    c0 = c_types[0]
    type_check.expect(
        c0.dtype.kind == 'f',
        c0.ndim >= 2,
        x_type.dtype == c0.dtype,
        x_type.ndim == c0.ndim,
        x_type.shape[0] == c0.shape[0],
        x_type.shape[1] == (3 + n_ary) * c0.shape[1],
    )
    for i in range(2, type_check.eval(c0.ndim)):
        type_check.expect(x_type.shape[i] == c0.shape[i])
    for c in c_types[1:]:
        type_check.expect(c.dtype == c0.dtype, c.shape == c0.shape)


class TreeLSTM(FunctionNode):
    """Inputs ``(c_1, ..., c_N, x)``, outputs ``(c, h)``."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() >= 2)
        _check_tree_lstm_types(in_types[:-1], in_types[-1])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        cs, x = inputs[:-1], inputs[-1]
        self.retain_inputs(tuple(range(len(inputs))))
        a, i, o, fs = _activations(xp, x, len(cs))
        c = _cell(a, i, fs, cs)
        h = o * xp.tanh(c)
        return utils.force_array(c, x.dtype), utils.force_array(h, x.dtype)

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        gxs = TreeLSTMGrad().apply(tuple(inputs) + tuple(grad_outputs))
        return tuple(gxs[i] for i in indexes)


class TreeLSTMGrad(FunctionNode):
    """Inputs ``(c_1, ..., c_N, x, gc, gh)``; the ``N + 1`` gradients."""

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        cs, x, gc, gh = inputs[:-3], inputs[-3], inputs[-2], inputs[-1]
        a, i, o, fs = _activations(xp, x, len(cs))
        t = xp.tanh(_cell(a, i, fs, cs))
        # the gradient reaching c through both outputs
        co = gc + gh * o * (1 - t * t)
        g_blocks = [co * i * (1 - a * a), co * a * i * (1 - i),
                    gh * t * o * (1 - o)]
        g_blocks += [co * c * f * (1 - f) for f, c in zip(fs, cs)]
        gx = xp.stack(g_blocks, axis=1).reshape(x.shape)
        dtype = x.dtype
        return tuple(utils.force_array(co * f, dtype) for f in fs) + \
            (utils.force_array(gx, dtype),)

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'tree_lstm: gradients of second order are not supported')


def tree_lstm(*inputs):
    """Tree LSTM cell merging ``N`` children, as an activation function.

    Serves both the N-ary and the Child-Sum tree LSTM (Tai et al., 2015;
    Bowman et al., 2016).  The call is ``tree_lstm(c_1, ..., c_N, x)``:
    the children's cell states, then ``x``, whose axis 1 is ``3 + N``
    times the cells' and is cut into ``3 + N`` *contiguous* blocks
    ``a, i, o, f_1, ..., f_N`` (unlike :func:`lstm`, which interleaves its
    gates).  Then (:math:`\\sigma` the logistic sigmoid)

    .. math::
        c &= \\tanh(a) \\sigma(i) + \\sum_n \\sigma(f_n) c_n, \\\\
        h &= \\tanh(c) \\sigma(o).

    Args:
        inputs: ``c_1, ..., c_N`` (``N >= 1``), each of shape
            ``(B, units, ...)``, and ``x`` of shape
            ``(B, (3 + N) * units, ...)``; Variables or arrays of one float
            dtype.

    Returns:
        A tuple ``(c, h)``, both of ``c_1``'s shape.  Only first-order
        gradients are supported (as in Chainer).

    >>> c1 = np.zeros((2, 3), np.float32)
    >>> c, h = F.tree_lstm(c1, c1, np.zeros((2, 15), np.float32))
    >>> c.shape, h.shape
    ((2, 3), (2, 3))
    """
    return TreeLSTM().apply(inputs)
