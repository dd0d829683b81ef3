"""The oneDNN route of ``n_step_lstm``, ``n_step_gru``, ``n_step_rnn`` and
their bidirectional forms: one FunctionNode per call.

``NStepRNN`` runs the whole stack, every layer and direction, natively
(``cpuframe._dnnl.rnn_forward``: one layer, both directions, over the packed
variable-length steps; LSTM layers on cpuframe's own GEMM + fused-gate
kernels, GRU and vanilla RNN layers on oneDNN's RNN primitives, cut into
segments of constant batch); its backward is ``NStepRNNGrad``, which runs
``rnn_backward`` layer by layer from the top and skips the first layer's
input gradient when no input needs one.  Whether the route runs is decided
by the FunctionNode machinery (``FunctionNode.choose_intel64``), asked once
per call by ``n_step_impl``; otherwise the NumPy path (``_n_step.py``) runs.

Weights keep Chainer's layout for the user (``ws[k][j]`` matrices, ``bs[k][j]``
vectors); for each call they are stacked in oneDNN's gate order:

- LSTM: oneDNN's gates ``i, f, c~, o`` are Chainer's ``W0/W4`` (input gate),
  ``W1/W5`` (forget gate), ``W2/W6`` (cell input ``a``), ``W3/W7`` (output
  gate) in this order; the bias of gate ``g`` is ``b_g + b_{4+g}``.
- GRU: Chainer's GRU applies the reset gate to ``W5 h + b5``, which is
  oneDNN's linear-before-reset GRU exactly: its gates ``u, r, o`` are
  Chainer's ``z`` (``W1/W4``), ``r`` (``W0/W3``) and ``h~`` (``W2/W5``), its
  four biases ``b1 + b4``, ``b0 + b3``, ``b2`` and ``b5`` (the hidden bias
  inside ``r * (...)``), and ``h' = u h + (1 - u) o`` is Chainer's ``(1 - z)
  h~ + z h``.
- RNN: one gate, ``W0``, ``W1``, bias ``b0 + b1``; tanh or ReLU.

Dropout between layers draws its masks exactly as the NumPy path does (same
calls to ``numpy.random`` in the same order: layer by layer, a fresh mask per
direction), so a seeded run sees the same masks on both paths.

In the mixed_bf16 mode an LSTM or GRU stack always runs as this node:
natively with bf16 GEMMs (``rnn_forward(..., bf16=True)``), else on its
NumPy reference of the same rounding (``_rnn_bf16.py``), both forward and
backward. Vanilla RNN layers compute in float32 in the mode.
"""
import numpy

from cpuframe import _bf16
from cpuframe.backends import intel64
from cpuframe.configuration import config, using_config
from cpuframe.function_node import FunctionNode
from cpuframe.variable import as_variable

# Inputs (and weights) of larger magnitude take the NumPy path: see
# NStepRNN.intel64_supports.
_INPUT_BOUND = 1e30

# The cells with a mixed_bf16 route (and NumPy reference).
_MIXED_KINDS = ('lstm', 'gru')

# For each cell: Chainer's matrix index of oneDNN's gates, input side and
# hidden side.
_GATES = {
    'lstm': ((0, 1, 2, 3), (4, 5, 6, 7)),
    'gru': ((1, 0, 2), (4, 3, 5)),
    'rnn_tanh': ((0,), (1,)),
    'rnn_relu': ((0,), (1,)),
}


def _view(t):
    """A plain native Tensor as an ndarray over its buffer (no copy; a
    bfloat16 one as a float32 copy)."""
    if t.storage_dtype != 'float32':
        return intel64.to_numpy(t)
    return t.raw_view()[:t.size].reshape(t.shape)


def _as_numpy(a):
    """An input as an ndarray: a plain mdarray without a copy (the route
    only reads it), others through the device boundary."""
    if intel64.is_native_array(a) and a.is_plain and \
            a.storage_dtype == 'float32':
        return _view(a)
    return intel64.to_numpy(a)


def _stack(kind, w, b, native=True):
    """Chainer's matrices and biases of one layer and direction, stacked:
    the matrices on the native team (or, for the NumPy reference, with
    NumPy), the biases as (G', N)."""
    gx, gh = _GATES[kind]
    stack = intel64.native().rnn_stack_rows if native else \
        (lambda ws: numpy.concatenate(ws, axis=0))
    wl = stack([w[j] for j in gx])
    wi = stack([w[j] for j in gh])
    if kind == 'gru':
        bias = numpy.stack([b[1] + b[4], b[0] + b[3], b[2], b[5]])
    else:
        bias = numpy.stack([b[i] + b[h] for i, h in zip(gx, gh)])
    return wl, wi, bias


def _dropout_mask(shape, ratio):
    """As _n_step._dropout draws it: a fresh mask per direction."""
    scale = numpy.float32(1.0 / (1.0 - ratio))
    return (numpy.random.rand(*shape) >= ratio).astype(numpy.float32) * scale


def _unstack(kind, gwl, gwi, gb, n_units, on_device=False):
    """Gradients of the stacked parameters (native tensors, or NumPy arrays
    from the NumPy reference) back to Chainer's ``(gW, gb)``: views of
    their rows (no copies), ndarrays or, on the device, mdarrays."""
    gx, gh = _GATES[kind]
    n = len(gx) + len(gh)
    if on_device:
        split = intel64.native().rnn_split_rows
        wl = split(gwl, [n_units] * len(gx))
        wi = split(gwi, [n_units] * len(gh))
        bias = split(gb, [1] * gb.shape[0], squeeze=True)

        def copy(a):
            return intel64.from_numpy(_view(a))
    else:
        wl_all, wi_all, bias = (
            a if isinstance(a, numpy.ndarray) else _view(a)
            for a in (gwl, gwi, gb))
        bias = bias.reshape(-1, n_units)
        wl = [wl_all[g * n_units:(g + 1) * n_units] for g in range(len(gx))]
        wi = [wi_all[g * n_units:(g + 1) * n_units] for g in range(len(gh))]

        def copy(a):
            return a.copy()
    gws = [None] * n
    gbs = [None] * n
    for g, (i, h) in enumerate(zip(gx, gh)):
        gws[i] = wl[g]
        gws[h] = wi[g]
        gbs[i] = bias[g]
        gbs[h] = copy(bias[g])  # the same values; separate arrays
    if kind == 'gru':
        gbs[5] = bias[3]  # the hidden bias of h~ has a row of its own
    return gws, gbs


def _to_device(arrays):
    """ndarrays sent to the device; native arrays as they are."""
    return [a if intel64.is_native_array(a) else intel64.from_numpy(a)
            for a in arrays]


class NStepRNN(FunctionNode):
    """The whole ``n_step_*`` stack on oneDNN.

    Inputs ``(hx, [cx], W..., b..., xs...)`` (the matrices and biases of
    every layer and direction in order, flattened); outputs ``(hy, [cy],
    ys...)``.
    """

    def __init__(self, name, kind, n_layers, n_dirs, dropout_ratio, batches,
                 has_cell, n_weights):
        self.name = name
        self.kind = kind
        self.n_layers = n_layers
        self.n_dirs = n_dirs
        self.dropout_ratio = dropout_ratio
        self.batches = list(batches)
        self.has_cell = has_cell
        self.n_weights = n_weights
        self.training = True
        self.on_device = False
        self.layers = None
        # mixed_bf16 LSTM / GRU: bf16 GEMMs, or the NumPy reference
        self.mixed = kind in _MIXED_KINDS and _bf16.active()
        self.reference = False  # forward ran on the NumPy reference

    @property
    def label(self):
        return self.name

    def intel64_supports(self, inputs):
        # Saturated gates have gradients below the smallest normal float,
        # which our kernels flush to zero where NumPy keeps them; times an
        # input beyond 1e30 they reach the size of ordinary gradients (and
        # 0 * inf is NaN only where NumPy has an exact 0). Such inputs
        # (and NaN, inf) take the NumPy path: every array is read once.
        # Zero units or a zero in_size: oneDNN's GEMMs reject the empty
        # operands the NumPy path computes with.
        return intel64.all_float32(inputs) and \
            intel64.geometry_supported(inputs) and all(
                a is None or intel64.all_within(a, -_INPUT_BOUND, _INPUT_BOUND)
                for a in inputs)

    def intel64_profitable(self, inputs):
        # Every step of the NumPy path is several small ops driven from
        # Python; the primitive wins at any size.
        return True

    def forward(self, inputs):
        if not self.mixed:
            raise RuntimeError(
                '{}: the oneDNN node ran without its route; n_step_impl '
                'applies it only when FunctionNode.choose_intel64 chose it '
                '(or for an LSTM or GRU in the mixed_bf16 mode)'.format(
                    self.label))
        return self._forward_reference(inputs)

    def _forward_reference(self, inputs):
        """The mixed_bf16 stack on its NumPy reference (_rnn_bf16)."""
        from cpuframe.functions.rnn import _rnn_bf16
        self.reference = True
        hx, cx, ws, bs, xs = self._split_inputs(list(inputs))
        nw, n_dirs = self.n_weights, self.n_dirs
        x = numpy.concatenate(xs, axis=0) if len(xs) > 1 else xs[0]
        ratio = self.dropout_ratio
        dropout = ratio > 0.0 and bool(config.train)
        hy = numpy.empty_like(hx)
        cy = numpy.empty_like(cx) if self.has_cell else None
        layers = []
        for layer in range(self.n_layers):
            ys, saved, masks = [], [], []
            for d in range(n_dirs):
                idx = layer * n_dirs + d
                mask = _dropout_mask(x.shape, ratio) \
                    if layer > 0 and dropout else None
                wl, wi, bias = _stack(
                    self.kind, ws[idx * nw:(idx + 1) * nw],
                    bs[idx * nw:(idx + 1) * nw], native=False)
                x_in = x if mask is None else x * mask
                if self.has_cell:
                    y, hy[idx], cy[idx], keep = _rnn_bf16.lstm_forward(
                        x_in, hx[idx], cx[idx], wl, wi, bias.reshape(-1),
                        self.batches, reverse=d == 1)
                else:
                    y, hy[idx], keep = _rnn_bf16.gru_forward(
                        x_in, hx[idx], wl, wi, bias, self.batches,
                        reverse=d == 1)
                ys.append(y)
                saved.append(keep)
                masks.append(mask)
            layers.append((saved, masks))
            x = ys[0] if n_dirs == 1 else numpy.concatenate(ys, axis=1)
        self.layers = layers if self.training else None
        points = numpy.cumsum(self.batches[:-1])
        ys = numpy.split(x, points, axis=0) if len(points) else [x]
        return tuple([hy] + ([cy] if self.has_cell else []) + list(ys))

    def _split_inputs(self, arrays):
        n_sets = self.n_layers * self.n_dirs
        nw = self.n_weights
        pos = 2 if self.has_cell else 1
        hx = arrays[0]
        cx = arrays[1] if self.has_cell else None
        ws = arrays[pos:pos + n_sets * nw]
        bs = arrays[pos + n_sets * nw:pos + 2 * n_sets * nw]
        xs = arrays[pos + 2 * n_sets * nw:]
        return hx, cx, ws, bs, xs

    def forward_intel64(self, inputs):
        dnnl = intel64.native()
        # References only (no copy): a double backprop recomputes from them.
        self.retain_inputs(tuple(range(len(inputs))))
        self.on_device = self.intel64_on_device(inputs)
        arrays = [_as_numpy(a) for a in inputs]
        hx, cx, ws, bs, xs = self._split_inputs(arrays)
        nw = self.n_weights
        n_dirs = self.n_dirs
        x = numpy.concatenate(xs, axis=0) if len(xs) > 1 else xs[0]
        ratio = self.dropout_ratio
        dropout = ratio > 0.0 and bool(config.train)
        hy = numpy.empty(hx.shape, numpy.float32)
        cy = numpy.empty(hx.shape, numpy.float32) if self.has_cell else None
        layers = []
        y = None  # the previous layer's output (a native Tensor)
        for layer in range(self.n_layers):
            x_ins, masks, stacked = [], [], []
            if y is not None:
                # bf16 (mixed_bf16) goes to the next layer as it is
                x = _view(y) if dropout or not self.mixed else y
            for d in range(n_dirs):
                idx = layer * n_dirs + d
                x_in, mask = x, None
                if layer > 0 and dropout:
                    mask = _dropout_mask(x.shape, ratio)
                    x_in = x * mask
                x_ins.append(x_in)
                masks.append(mask)
                stacked.append(_stack(self.kind, ws[idx * nw:(idx + 1) * nw],
                                      bs[idx * nw:(idx + 1) * nw]))
            sets = range(layer * n_dirs, (layer + 1) * n_dirs)
            contexts, y, hs, cs = dnnl.rnn_forward(
                self.kind, self.training, self.batches, x_ins,
                [hx[i] for i in sets],
                None if cx is None else [cx[i] for i in sets],
                [w[0] for w in stacked], [w[1] for w in stacked],
                [w[2] for w in stacked], bf16=self.mixed)
            for d, i in enumerate(sets):
                hy[i] = _view(hs[d])
                if cy is not None:
                    cy[i] = _view(cs[d])
            layers.append((contexts, masks))
        self.layers = layers if self.training else None
        if self.on_device:
            # the steps' rows of the last layer's output, viewed
            ys = dnnl.rnn_split_rows(y, self.batches)
        else:
            x = _view(y)
            points = numpy.cumsum(self.batches[:-1])
            ys = numpy.split(x, points, axis=0) if len(points) else [x]
        outputs = [hy] + ([cy] if cy is not None else []) + list(ys)
        if self.on_device:
            outputs = _to_device(outputs)
        return tuple(outputs)

    def backward(self, indexes, grad_outputs):
        if config.enable_backprop:
            # The gradients must be differentiable again (double backprop):
            # recompute this call on the NumPy path and differentiate that.
            return self._reference_backward(indexes, grad_outputs)
        n_xs = len(self.batches)
        first_x = len(self.inputs) - n_xs
        need_gx = any(i >= first_x for i in indexes)
        grads = NStepRNNGrad(self, need_gx).apply(grad_outputs)
        if not need_gx:
            # the first layer's input gradient was not computed
            grads = tuple(grads) + (None,) * n_xs
        return grads


    def _reference_backward(self, indexes, grad_outputs):
        from cpuframe.function_node import grad
        from cpuframe.functions.rnn._n_step import reference_stack
        if self.mixed:
            raise NotImplementedError(
                '{}: double backprop of an LSTM in the mixed_bf16 mode is not '
                'supported (its bf16 gradients are computed once; use '
                'float32 for higher-order gradients)'.format(self.label))
        if self.dropout_ratio > 0 and self.training:
            raise NotImplementedError(
                '{}: double backprop through the oneDNN route with dropout '
                '(ratio {}) is not supported: its masks are not kept (use '
                'dropout_ratio=0 or config.use_ideep = "never")'.format(
                    self.label, self.dropout_ratio))
        inputs = self.get_retained_inputs()
        n_sets = self.n_layers * self.n_dirs
        hx, cx, ws, bs, xs = self._split_inputs(list(inputs))
        nw = self.n_weights
        ws = [list(ws[i * nw:(i + 1) * nw]) for i in range(n_sets)]
        bs = [list(bs[i * nw:(i + 1) * nw]) for i in range(n_sets)]
        with using_config('use_ideep', 'never'):
            hy, cy, ys = reference_stack(
                self.cell, self.n_layers, 0.0, hx, cx, ws, bs, list(xs),
                self.n_dirs, self.batches)
            outputs = [hy] + ([cy] if cy is not None else []) + list(ys)
            pairs = [(y, g) for y, g in zip(outputs, grad_outputs)
                     if g is not None]
            wanted = [inputs[i] for i in indexes]
            gs = grad([y for y, _ in pairs], wanted,
                      grad_outputs=[g for _, g in pairs],
                      enable_double_backprop=True)
        return tuple(gs)


class NStepRNNGrad(FunctionNode):
    """The backward of ``NStepRNN`` (``rnn_backward``, layer by layer).

    Inputs: the gradients of ``(hy, [cy], ys...)``; outputs: the gradients
    of every input of ``NStepRNN`` (those of ``xs`` only with ``need_gx``).
    Not differentiable again.
    """

    def __init__(self, fwd, need_gx=True):
        self.fwd = fwd
        self.need_gx = need_gx

    @property
    def label(self):
        return self.fwd.label + '_grad'

    def intel64_on_device(self, inputs):
        return self.fwd.on_device

    def intel64_supports(self, inputs):
        return True

    def forward(self, inputs):
        if self.fwd.reference:
            return self._forward_reference(inputs)
        # The forward took the oneDNN route; its backward runs on oneDNN
        # whatever use_ideep says now (the workspace is oneDNN's).
        return self.forward_intel64(inputs)

    def forward_intel64(self, inputs):
        if self.fwd.reference:
            return self._forward_reference(inputs)
        return self._forward_native(inputs)

    def _forward_reference(self, inputs):
        """The gradients of the mixed_bf16 stack's NumPy reference."""
        from cpuframe.functions.rnn import _rnn_bf16
        fwd = self.fwd
        if fwd.layers is None:
            raise RuntimeError(
                '{}: the forward computation kept nothing for backward (it ran '
                'without a graph)'.format(fwd.label))
        inputs = [intel64.to_numpy(a) for a in inputs]
        n_dirs, nw = fwd.n_dirs, fwd.n_weights
        cell = fwd.has_cell
        ghy, gys = inputs[0], inputs[2 if cell else 1:]
        gcy = inputs[1] if cell else None
        n_units = ghy.shape[2]
        gy = numpy.concatenate(gys, axis=0) if len(gys) > 1 else gys[0]
        n_sets = fwd.n_layers * n_dirs
        gws, gbs = [None] * (n_sets * nw), [None] * (n_sets * nw)
        ghx = numpy.empty_like(ghy)
        gcx = numpy.empty_like(gcy) if cell else None
        for layer in range(fwd.n_layers - 1, -1, -1):
            saved, masks = fwd.layers[layer]
            gx = None
            for d in range(n_dirs):
                idx = layer * n_dirs + d
                gy_d = gy[:, d * n_units:(d + 1) * n_units]
                if cell:
                    gx_d, ghx[idx], gcx[idx], gwl, gwi, gb = \
                        _rnn_bf16.lstm_backward(
                            saved[d], gy_d, ghy[idx], gcy[idx], fwd.batches,
                            reverse=d == 1)
                else:
                    gx_d, ghx[idx], gwl, gwi, gb = _rnn_bf16.gru_backward(
                        saved[d], gy_d, ghy[idx], fwd.batches,
                        reverse=d == 1)
                if masks[d] is not None:
                    gx_d *= masks[d]
                gx = gx_d if gx is None else gx + gx_d
                w_grads, b_grads = _unstack(fwd.kind, gwl, gwi, gb,
                                            n_units)
                gws[idx * nw:(idx + 1) * nw] = w_grads
                gbs[idx * nw:(idx + 1) * nw] = b_grads
            gy = gx
        gxs = []
        if self.need_gx:
            points = numpy.cumsum(fwd.batches[:-1])
            gxs = numpy.split(gy, points, axis=0) if len(points) else [gy]
        return tuple([ghx] + ([gcx] if cell else []) + gws + gbs + gxs)

    def _forward_native(self, inputs):
        fwd = self.fwd
        if fwd.layers is None:
            raise RuntimeError(
                '{}: the forward computation kept nothing for backward (it ran '
                'without a graph)'.format(fwd.label))
        dnnl = intel64.native()
        inputs = [_as_numpy(a) for a in inputs]
        n_dirs = fwd.n_dirs
        nw = fwd.n_weights
        ghy = inputs[0]
        gcy = inputs[1] if fwd.has_cell else None
        gys = inputs[2 if fwd.has_cell else 1:]
        n_units = ghy.shape[2]
        gy = numpy.concatenate(gys, axis=0) if len(gys) > 1 else gys[0]
        n_sets = fwd.n_layers * n_dirs
        gws = [None] * (n_sets * nw)
        gbs = [None] * (n_sets * nw)
        ghx = numpy.empty(ghy.shape, numpy.float32)
        gcx = numpy.empty(ghy.shape, numpy.float32) if gcy is not None \
            else None
        for layer in range(fwd.n_layers - 1, -1, -1):
            contexts, masks = fwd.layers[layer]
            sets = range(layer * n_dirs, (layer + 1) * n_dirs)
            need_gx = layer > 0 or self.need_gx
            gx_list, ghx_list, gcx_list, gwls, gwis, gbiases = \
                dnnl.rnn_backward(
                    contexts, gy, [ghy[i] for i in sets],
                    None if gcy is None else [gcy[i] for i in sets],
                    need_gx=need_gx)
            gx = gx_tensor = None
            for d, idx in enumerate(sets):
                ghx[idx] = _view(ghx_list[d])
                if gcx is not None:
                    gcx[idx] = _view(gcx_list[d])
                if need_gx:
                    gx_d = _view(gx_list[d])
                    if masks[d] is not None:
                        gx_d *= masks[d]
                    if gx is None:
                        gx, gx_tensor = gx_d, gx_list[d]
                    else:
                        gx += gx_d  # in place: gx stays a view of gx_tensor
                w_grads, b_grads = _unstack(fwd.kind, gwls[d], gwis[d],
                                            gbiases[d], n_units, fwd.on_device)
                gws[idx * nw:(idx + 1) * nw] = w_grads
                gbs[idx * nw:(idx + 1) * nw] = b_grads
            gy = gx
        if not self.need_gx:
            gxs = []
        elif fwd.on_device:
            gxs = list(dnnl.rnn_split_rows(gx_tensor, fwd.batches))
        else:
            points = numpy.cumsum(fwd.batches[:-1])
            gxs = numpy.split(gy, points, axis=0) if len(points) else [gy]
        outputs = [ghx] + ([gcx] if gcx is not None else []) + gws + gbs + \
            gxs
        if fwd.on_device:
            outputs = _to_device(outputs)
        return tuple(outputs)

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            '{}: double backprop through the oneDNN route is not supported '
            '(run with config.use_ideep = "never" for higher-order '
            'gradients)'.format(self.fwd.label))


def apply_route(name, cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                n_dirs, batches):
    """Run the stack on oneDNN when the machinery chooses the route.

    Returns ``(hy, cy, ys)`` like ``n_step_impl`` (``cy`` None without a
    cell state), or None to let the NumPy path run.
    """
    inputs = [hx] + ([cx] if cell.has_cell else [])
    inputs += [w for wl in ws for w in wl]
    inputs += [b for bl in bs for b in bl]
    inputs += list(xs)
    input_vars = [as_variable(v) for v in inputs]
    node = NStepRNN(name, cell.kind, n_layers, n_dirs, dropout_ratio, batches,
                    cell.has_cell, cell.n_weights)
    if not node.choose_intel64(tuple(v.array for v in input_vars)) and \
            not node.mixed:
        return None
    node.training = bool(config.enable_backprop) and any(
        v.requires_grad for v in input_vars)
    node.cell = cell  # for a NumPy-path recomputation (double backprop)
    outs = node.apply(input_vars)
    hy = outs[0]
    cy = outs[1] if cell.has_cell else None
    ys = tuple(outs[2 if cell.has_cell else 1:])
    return hy, cy, ys
