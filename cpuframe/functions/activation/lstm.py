"""The LSTM cell as an activation function (Chainer's ``F.lstm``)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _sigmoid(xp, z):
    half = z.dtype.type(0.5)
    return xp.tanh(z * half) * half + half


def _split_gates(x):
    """Views of the four gate pre-activations ``(a, i, f, o)`` of ``x``.

    Chainer interleaves the gates along axis 1: channel ``4 * k + g`` holds
    gate ``g`` of unit ``k``.
    """
    r = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return r[:, :, 0], r[:, :, 1], r[:, :, 2], r[:, :, 3]


def _merge_gates(xp, parts, x_shape):
    """Inverse of ``_split_gates``: interleave four arrays along axis 1."""
    return xp.stack(parts, axis=2).reshape(x_shape)


def _activations(xp, x):
    xa, xi, xf, xo = _split_gates(x)
    return xp.tanh(xa), _sigmoid(xp, xi), _sigmoid(xp, xf), _sigmoid(xp, xo)


def _check_lstm_types(c_type, x_type):
    type_check.expect(
        c_type.dtype.kind == 'f',
        x_type.dtype == c_type.dtype,
        c_type.ndim >= 2,
        x_type.ndim == c_type.ndim,
        x_type.shape[0] <= c_type.shape[0],
        x_type.shape[1] == 4 * c_type.shape[1],
    )
    for i in range(2, type_check.eval(c_type.ndim)):
        type_check.expect(x_type.shape[i] == c_type.shape[i])


class LSTM(FunctionNode):
    """Inputs ``(c_prev, x)``, outputs ``(c, h)``."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('c', 'x'))
        _check_lstm_types(*in_types)

    def forward(self, inputs):
        c_prev, x = inputs
        xp = backend.get_array_module(c_prev, x)
        self.retain_inputs((0, 1))
        batch = x.shape[0]
        a, i, f, o = _activations(xp, x)
        c_new = a * i + f * c_prev[:batch]
        h = o * xp.tanh(c_new)
        if batch < c_prev.shape[0]:
            # rows without input keep their state (variable-length batches)
            c = xp.concatenate((c_new, c_prev[batch:]), axis=0)
        else:
            c = c_new
        return utils.force_array(c, x.dtype), utils.force_array(h, x.dtype)

    def backward(self, indexes, grad_outputs):
        c_prev, x = self.get_retained_inputs()
        gc, gh = grad_outputs
        gxs = LSTMGrad().apply((c_prev, x, gc, gh))
        return tuple(gxs[i] for i in indexes)


class LSTMGrad(FunctionNode):
    """Inputs ``(c_prev, x, gc, gh)``, outputs ``(gc_prev, gx)``."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('c_prev', 'x', 'gc', 'gh'))
        c_prev, x, gc, gh = in_types
        _check_lstm_types(c_prev, x)
        type_check.expect(gc.dtype == c_prev.dtype, gh.dtype == c_prev.dtype,
                          gc.shape == c_prev.shape,
                          gh.shape[0] == x.shape[0],
                          gh.shape[1:] == c_prev.shape[1:])

    def forward(self, inputs):
        c_prev, x, gc, gh = inputs
        xp = backend.get_array_module(*inputs)
        self.retain_inputs((0, 1, 2, 3))
        batch = x.shape[0]
        a, i, f, o = _activations(xp, x)
        cp = c_prev[:batch]
        t = xp.tanh(a * i + f * cp)
        co = gc[:batch] + gh * o * (1 - t * t)
        gc_prev = gc.copy()
        gc_prev[:batch] = co * f
        gx = _merge_gates(xp, (co * i * (1 - a * a),
                               co * a * i * (1 - i),
                               co * cp * f * (1 - f),
                               gh * t * o * (1 - o)), x.shape)
        return utils.force_array(gc_prev, x.dtype), \
            utils.force_array(gx, x.dtype)

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        ggc_prev, ggx = grad_outputs
        ret = LSTMGradGrad().apply(tuple(inputs) + (ggc_prev, ggx))
        return tuple(ret[i] for i in indexes)


class LSTMGradGrad(FunctionNode):
    """Second-order terms of the LSTM cell (no further derivative).

    Inputs ``(c_prev, x, gc, gh, ggc_prev, ggx)``; outputs the gradients of
    ``<ggc_prev, gc_prev> + <ggx, gx>`` with respect to
    ``(c_prev, x, gc, gh)``.
    """

    def forward(self, inputs):
        c_prev, x, gc, gh, ggc_prev, ggx = inputs
        xp = backend.get_array_module(*inputs)
        batch = x.shape[0]
        a, i, f, o = _activations(xp, x)
        cp = c_prev[:batch]
        t = xp.tanh(a * i + f * cp)
        dt = 1 - t * t
        da = 1 - a * a
        di = i * (1 - i)
        df = f * (1 - f)
        do = o * (1 - o)
        co = gc[:batch] + gh * o * dt
        gga, ggi, ggf, ggo = _split_gates(ggx)
        ggcp = ggc_prev[:batch]

        # d/dco of the seeded first-order outputs
        d_co = ggcp * f + gga * i * da + ggi * a * di + ggf * cp * df
        g_gh = d_co * o * dt + ggo * t * do
        g_t = -2 * d_co * gh * o * t + ggo * gh * do
        g_o = d_co * gh * dt + ggo * gh * t * (1 - 2 * o)
        g_c = g_t * dt
        g_a = -2 * gga * co * i * a + ggi * co * di + g_c * i
        g_i = gga * co * da + ggi * co * a * (1 - 2 * i) + g_c * a
        g_f = ggcp * co + ggf * co * cp * (1 - 2 * f) + g_c * cp
        g_cp = ggf * co * df + g_c * f

        g_c_prev = xp.zeros_like(c_prev)
        g_c_prev[:batch] = g_cp
        g_x = _merge_gates(xp, (g_a * da, g_i * di, g_f * df, g_o * do),
                           x.shape)
        g_gc = ggc_prev.copy()
        g_gc[:batch] = d_co
        dtype = x.dtype
        return tuple(utils.force_array(g, dtype)
                     for g in (g_c_prev, g_x, g_gc, g_gh))

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'lstm: gradients of third order are not supported')


def lstm(c_prev, x):
    """Long short-term memory cell with forget gate, as an activation.

    ``x`` holds the pre-activations of the four gates, interleaved along
    axis 1 as in Chainer: channel ``4 * k + g`` of ``x`` is gate ``g`` of
    unit ``k``, with ``g`` = 0, 1, 2, 3 for ``a`` (cell input), ``i``
    (input gate), ``f`` (forget gate), ``o`` (output gate), i.e.
    ``x.reshape(B, units, 4, ...)[:, :, g]``.  Then

    .. math::
        c &= \\tanh(a) \\sigma(i) + c_{prev} \\sigma(f), \\\\
        h &= \\tanh(c) \\sigma(o).

    Variable-length batches: ``x`` may have fewer rows than ``c_prev``
    (sequences sorted by decreasing length); then only ``c[:len(x)]`` is
    updated, ``c[len(x):]`` is ``c_prev[len(x):]`` unchanged, and ``h`` has
    ``len(x)`` rows.

    Args:
        c_prev: the previous cell state, shape ``(B, units, ...)``.
        x: the gate pre-activations, shape ``(B', 4 * units, ...)`` with
            ``B' <= B`` and the same trailing axes as ``c_prev``.

    Returns:
        A tuple ``(c, h)``: the new cell state (``c_prev``'s shape) and the
        output ``(B', units, ...)``.  Second-order gradients are supported.

    >>> c, h = F.lstm(np.zeros((1, 1), np.float32),
    ...               np.zeros((1, 4), np.float32))
    >>> c.shape, h.shape
    ((1, 1), (1, 1))
    """
    return LSTM().apply((c_prev, x))
