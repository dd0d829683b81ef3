"""The LSTM cell as an activation function (Chainer's ``F.lstm``)."""
import numpy

from cpuframe import _bf16, backend, utils
from cpuframe.backends import intel64
from cpuframe.configuration import config, using_config
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import as_variable


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


def _native_outputs(tensors, on_device):
    """The native route's Tensors as outputs: mdarrays on the Intel64
    device, else NumPy views of their (plain) buffers, without a copy."""
    if on_device:
        return tuple(tensors)
    # (plain float32 buffers, as the route writes them: their views made
    # in one native call; another layout would need a reorder)
    tensors = tuple(tensors)
    views = intel64.native().plain_views(tensors)
    if views is not None:
        return views
    views = []
    for t in tensors:
        view = t.plain_view()
        if view is None:
            view = intel64.to_numpy(t)
        views.append(view)
    return tuple(views)


def _numpy_accumulator(a):
    """A NumPy array the fused step's backward may add a weight gradient
    into in place (the kernel wraps it: float32, C-contiguous, aligned and
    writeable), as it adds into a plain device array. Where the weights are
    NumPy arrays (the fused step under use_ideep 'auto' or 'always'), the
    gradient of a weight used at every step is then summed by the GEMMs
    instead of an addition per step over the whole weight (PTB-sized, 650
    units and 35 steps: 0.86x the time);
    from AUTO_MIN['lstm_numpy_accumulate'] elements, outside mixed_bf16
    (whose NumPy path keeps its rounding points)."""
    if type(a) is not numpy.ndarray or a.dtype != numpy.float32:
        return False
    flags = a.flags
    return flags.c_contiguous and flags.aligned and flags.writeable


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

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('c', 'x'))
        _check_lstm_types(*in_types)

    def forward(self, inputs):
        c_prev, x = inputs
        xp = backend.get_array_module(c_prev, x)
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

    # The fused cell on the native module: the gate activations on oneDNN's
    # eltwise primitives, the products in one pass.
    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and inputs[1].size > 0

    def forward_intel64(self, inputs):
        c, h = intel64.native().lstm_cell_forward(*inputs)
        return _native_outputs((c, h), self.intel64_on_device(inputs))

    def backward(self, indexes, grad_outputs):
        c_prev, x = self.get_retained_inputs()
        gc, gh = grad_outputs
        gxs = LSTMGrad().apply((c_prev, x, gc, gh))
        return tuple(gxs[i] for i in indexes)

    def backward_arrays(self, indexes, grad_outputs):
        gxs = LSTMGrad()._compute(self._retained_input_arrays() +
                                  tuple(grad_outputs))
        return tuple(gxs[i] for i in indexes)


class LSTMGrad(FunctionNode):
    """Inputs ``(c_prev, x, gc, gh)``, outputs ``(gc_prev, gx)``."""

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1, 2, 3), ())

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

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

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and inputs[1].size > 0

    def forward_intel64(self, inputs):
        gc_prev, gx = intel64.native().lstm_cell_backward(*inputs)
        return _native_outputs((gc_prev, gx), self.intel64_on_device(inputs))

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

    On the intel64 backend the cell runs as one fused kernel of the native
    module, forward and backward (``L.LSTM`` also fuses its two projections
    into the step; its second-order gradients come from the NumPy path).

    >>> c, h = F.lstm(np.zeros((1, 1), np.float32),
    ...               np.zeros((1, 4), np.float32))
    >>> c.shape, h.shape
    ((1, 1), (1, 1))
    """
    return LSTM().apply((c_prev, x))


class LSTMStep(FunctionNode):
    """``L.LSTM``'s step fused on the native module (intel64 route only).

    Inputs ``(c_prev, x, W_up[, b_up][, h, W_lat])``; outputs ``(c, h)`` as
    :func:`lstm` gives them for ``x W_up^T + b_up + h W_lat^T``.  The gates
    come from two GEMMs accumulating into one buffer and the cell from one
    fused pass; the backward is :class:`LSTMStepGrad`.  ``lstm_step``
    applies it only when the FunctionNode machinery chooses its route.
    """

    # (its backward_arrays computes one LSTMStepGrad of this node:
    # @static_graph may replay that directly)
    _static_backward = True

    def __init__(self, with_bias, with_h):
        self.with_bias = with_bias
        self.with_h = with_h
        self.gates = None
        # mixed_bf16: the unfused step's rounding (Linear, Linear, F.lstm)
        self.mixed = _bf16.active()

    @property
    def label(self):
        return 'lstm'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('with_bias', 'with_h')

    def check_type_forward(self, in_types):
        names = ['c', 'x', 'W_up'] + (['b_up'] if self.with_bias else []) + \
            (['h', 'W_lat'] if self.with_h else [])
        type_check.argname(in_types, tuple(names))
        c, x, w_up = in_types[:3]
        type_check.expect(
            x.dtype.kind == 'f', c.dtype == x.dtype, w_up.dtype == x.dtype,
            x.ndim == 2, c.ndim == 2, w_up.ndim == 2,
            x.shape[1] == w_up.shape[1],
            w_up.shape[0] == 4 * c.shape[1],
            x.shape[0] <= c.shape[0],
        )
        if self.with_bias:
            b = in_types[3]
            type_check.expect(b.dtype == x.dtype, b.ndim == 1,
                              b.shape[0] == w_up.shape[0])
        if self.with_h:
            h, w_lat = in_types[-2:]
            type_check.expect(
                h.dtype == x.dtype, w_lat.dtype == x.dtype, h.ndim == 2,
                w_lat.ndim == 2, h.shape[0] == x.shape[0],
                h.shape[1] == c.shape[1], w_lat.shape[1] == h.shape[1],
                w_lat.shape[0] == w_up.shape[0])

    def intel64_supports(self, inputs):
        # An x of more axes goes the unfused way, where upward (Linear)
        # flattens it as Chainer's L.LSTM does.
        return intel64.all_float32(inputs) and inputs[1].size > 0 and \
            inputs[0].ndim == 2 and inputs[1].ndim == 2

    def forward(self, inputs):
        raise RuntimeError('lstm: the fused step ran without its route')

    def _unpack(self, inputs):
        c, x, w_up = inputs[:3]
        rest = list(inputs[3:])
        b = rest.pop(0) if self.with_bias else None
        h, w_lat = (rest[0], rest[1]) if self.with_h else (None, None)
        return c, x, w_up, b, h, w_lat

    def forward_intel64(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        c, h, self.gates = intel64.native().lstm_step_forward(
            *self._unpack(inputs), bf16=self.mixed)
        return _native_outputs((c, h), self.intel64_on_device(inputs))

    def backward(self, indexes, grad_outputs):
        if config.enable_backprop:
            # The gradients must be differentiable again (double backprop,
            # e.g. a gradient penalty through L.LSTM): recompute the step
            # unfused on the NumPy path and differentiate that, as Chainer
            # would. First-order backward stays on the fused kernel.
            return self._reference_backward(indexes, grad_outputs)
        inputs = self.get_retained_inputs()
        return LSTMStepGrad(self).apply(tuple(inputs) + tuple(grad_outputs))

    def backward_arrays(self, indexes, grad_outputs):
        # (the engine asks only where nothing records the backward: the
        # fused kernel's branch of ``backward``)
        gxs = LSTMStepGrad(self)._compute(self._retained_input_arrays() +
                                          tuple(grad_outputs))
        if len(gxs) == len(self.inputs) and len(gxs) != len(indexes):
            gxs = tuple(gxs[i] for i in indexes)
        return gxs

    def _reference_backward(self, indexes, grad_outputs):
        from cpuframe.function_node import grad
        from cpuframe.functions.connection.linear import linear
        inputs = self.get_retained_inputs()
        c, x, w_up, b, h, w_lat = self._unpack(inputs)
        with using_config('use_ideep', 'never'):
            gates = linear(x, w_up, b)
            if h is not None:
                gates = gates + linear(h, w_lat)
            outputs = lstm(c, gates)
            pairs = [(y, g) for y, g in zip(outputs, grad_outputs)
                     if g is not None]
            gs = grad([y for y, _ in pairs], [inputs[i] for i in indexes],
                      grad_outputs=[g for _, g in pairs],
                      enable_double_backprop=True)
        return tuple(gs)

    def _weight_positions(self):
        # Input positions of W_up, b_up, W_lat (None where absent).
        b = 3 if self.with_bias else None
        w_lat = 3 + int(self.with_bias) + 1 if self.with_h else None
        return 2, b, w_lat

    def _accumulates_into(self, sums):
        # (in place into a device array or a NumPy accumulator, below)
        if self._accumulates_into_device_arrays(LSTMStep, self.mixed, sums):
            return True
        # (a weight's sum that owns its memory: one the engine may give up;
        # the first, the kernel's view of its own buffer, is added to as
        # before, and so are the other inputs' sums)
        weights = None
        for s in sums:
            if self._takes_numpy_sum(s) and s.flags.owndata:
                if weights is None:
                    weights = {self.inputs[pos].shape
                               for pos in self._weight_positions()
                               if pos is not None}
                if s.shape in weights:
                    return True
        return False

    def _takes_numpy_sum(self, a):
        # (a NumPy sum the backward may add into: an accumulator of
        # AUTO_MIN['lstm_numpy_accumulate'] elements on, outside mixed_bf16)
        return not self.mixed and _numpy_accumulator(a) and \
            intel64.auto_profitable('lstm_numpy_accumulate', a)

    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        # The weights of an LSTM link called at every step: their gradients
        # are added into the sums so far (those only the engine holds) by
        # the GEMMs that compute them.
        accs, done = [], {}
        for pos in self._weight_positions():
            acc = None
            if pos is not None and pos in indexes:
                k = indexes.index(pos)
                acc = self.donated_grad_input(k, grad_inputs)
                if acc is not None and (self._takes_numpy_sum(acc) or (
                        intel64.is_native_array(acc) and acc.is_plain and
                        acc.dtype == numpy.float32)):
                    done[k] = grad_inputs[k]
                else:
                    acc = None
            accs.append(acc)
        if not done:
            return super().backward_accumulate(indexes, grad_outputs,
                                               grad_inputs)
        inputs = self.get_retained_inputs()
        outs = LSTMStepGrad(self, accs).apply(
            tuple(inputs) + tuple(grad_outputs))
        gxs = tuple(outs[i] for i in indexes)
        ret = []
        for k, (gx, g_in) in enumerate(zip(gxs, grad_inputs)):
            if k in done and type(g_in.array) is numpy.ndarray:
                # (the NumPy accumulator itself, summed in place: gx views
                # its buffer; the array that owns it stays the one the
                # engine may give up again at the next step)
                ret.append(g_in)
            elif k in done or g_in is None:
                ret.append(gx)  # the accumulator itself, or the only one
            else:
                ret.append(gx + g_in)
        return tuple(ret)


class LSTMStepGrad(FunctionNode):
    """Gradients of :class:`LSTMStep` (not differentiable again).

    ``accs``: per weight (W_up, b_up, W_lat), a plain mdarray or a NumPy
    accumulator (``_numpy_accumulator``) the gradient is added into in place
    and returned as, or None.
    """

    # (of its forward node it reads the settings and the gates its forward
    # kept: @static_graph may run it on a replay not linked)
    _static_reads_node_state = True

    def __init__(self, fwd, accs=(None, None, None)):
        self.fwd = fwd
        self.accs = tuple(accs)

    @property
    def label(self):
        return 'lstm_grad'

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs)

    def forward(self, inputs):
        # The route of the forward ran; its backward runs on the same kernel
        # whatever use_ideep says now.
        return self.forward_intel64(inputs)

    def forward_intel64(self, inputs):
        fwd = self.fwd
        n = len(inputs) - 2
        c, x, w_up, _, h, w_lat = fwd._unpack(inputs[:n])
        gc, gh = inputs[n:]
        gcp, gx, gw_up, gb, gh_prev, gw_lat = \
            intel64.native().lstm_step_backward(
                c, x, w_up, fwd.with_bias, h, w_lat, fwd.gates, gc, gh,
                *self.accs, bf16=fwd.mixed)
        outs = [gcp, gx, gw_up] + ([gb] if fwd.with_bias else []) + \
            ([gh_prev, gw_lat] if fwd.with_h else [])
        return _native_outputs(outs, self.intel64_on_device(inputs))

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'lstm: double backprop through the fused L.LSTM step of the oneDNN '
            'route is not supported (run with config.use_ideep = "never")')


def lstm_step(c_prev, x, upward, h=None, lateral=None):
    """``lstm(c_prev, upward(x) + lateral(h))`` fused, or None.

    Returns ``(c, h)`` when the intel64 route is chosen for these inputs,
    else None (the caller computes it unfused).  ``upward`` and ``lateral``
    are Linear links; ``h`` None skips ``lateral``.
    """
    if upward.W.array is None or (h is not None and lateral.W.array is None):
        return None
    inputs = [as_variable(c_prev), as_variable(x), upward.W]
    if upward.b is not None:
        inputs.append(upward.b)
    if h is not None:
        inputs += [as_variable(h), lateral.W]
    node = LSTMStep(upward.b is not None, h is not None)
    if not node.choose_intel64(tuple(v.array for v in inputs)):
        return None
    return node.apply(inputs)
