"""The recurrent family: ``n_step_gru``/``NStepGRU`` (and their LSTM and
Elman siblings, bidirectional too) as ONNX's GRU, LSTM and RNN ops.

cpuframe records ``L.NStepGRU(...)(hx, xs)`` as TransposeSequence (the
sequences, longest first, to one array per time step), one ``NStepRNN``
node (``hx`` [, ``cx``], every layer's and direction's weights, then its
biases, then the time steps; ``hy`` [, ``cy``] and the top layer's output
per time step) and TransposeSequence back. Here the time steps are padded
into ONNX's ``X`` (time, batch, features) with ``sequence_lens`` (the
lengths of the traced run: the exported graph is for those lengths), one
ONNX op per layer, both directions in one op; the gates reordered from
Chainer's (GRU r, z, n; LSTM i, f, c, o) to ONNX's (z, r, h; i, o, f, c),
GRU with ``linear_before_reset`` (Chainer applies the reset gate after
the hidden projection and its bias).
"""
import numpy

from cpuframe.onnx_chainer.functions._common import (
    GraphBuilder,
    const,
    slice_op,
    unsupported,
)

# Chainer's weight index of each ONNX gate, for the input (x) and the
# hidden (h) projection; the biases follow the weights' order.
_GATES = {
    'gru': ([1, 0, 2], [4, 3, 5], 'GRU'),
    'lstm': ([0, 3, 1, 2], [4, 7, 5, 6], 'LSTM'),
    'rnn_tanh': ([0], [1], 'RNN'),
    'rnn_relu': ([0], [1], 'RNN'),
}


def _shape(params, values):
    return const(params, numpy.asarray(values, numpy.int64), 'shape')


def _stack_rows(params, gb, names, lead):
    """``names`` (2-D or 1-D arrays) concatenated along their first axis,
    with a leading axis of 1 (``lead``: the shape to reshape to)."""
    joined = gb.op('Concat', names, axis=0)
    return gb.op('Reshape', [joined, _shape(params, lead)])


def _n_step_rnn(params):
    f = params.func
    kind = f.kind
    if kind not in _GATES:
        raise unsupported(params, 'recurrent kind {!r}'.format(kind))
    x_gates, h_gates, op = _GATES[kind]
    n_layers, n_dirs, n_w = int(f.n_layers), int(f.n_dirs), int(f.n_weights)
    has_cell = bool(f.has_cell)
    batches = [int(b) for b in f.batches]
    names = list(params.input_names)
    hx = names[0]
    cx = names[1] if has_cell else None
    first = 2 if has_cell else 1
    n_ws = n_layers * n_dirs * n_w
    w_names = names[first:first + n_ws]
    b_names = names[first + n_ws:first + 2 * n_ws]
    steps = names[first + 2 * n_ws:]
    if len(steps) != len(batches):
        raise unsupported(params, 'inputs not as recorded by n_step_rnn')
    n_hidden = int(f.inputs[0].shape[2])
    n_batch, n_time = batches[0], len(batches)
    in_size = int(f.inputs[first + 2 * n_ws].shape[1])
    dtype = numpy.dtype(f.inputs[0].dtype)
    gb = GraphBuilder()
    # X: each step padded to the batch with zeros, stacked over time
    padded = []
    for t, name in enumerate(steps):
        rows = batches[t]
        if rows < n_batch:
            zeros = const(params, numpy.zeros((n_batch - rows, in_size),
                                              dtype), 'pad')
            name = gb.op('Concat', [name, zeros], axis=0)
        padded.append(gb.op('Reshape', [name, _shape(
            params, [1, n_batch, in_size])]))
    x = gb.op('Concat', padded, axis=0) if len(padded) > 1 else \
        gb.op('Identity', padded)
    lengths = [sum(1 for b in batches if b > i) for i in range(n_batch)]
    seq_lens = const(params, numpy.asarray(lengths, numpy.int32),
                     'sequence_lens')
    direction = 'bidirectional' if n_dirs == 2 else 'forward'
    attrs = {'hidden_size': n_hidden, 'direction': direction}
    if op == 'GRU':
        attrs['linear_before_reset'] = 1
    if op == 'RNN':
        act = 'Relu' if kind == 'rnn_relu' else 'Tanh'
        attrs['activations'] = [act] * n_dirs
    h_finals, c_finals = [], []
    for layer in range(n_layers):
        ws, rs, bs = [], [], []
        for d in range(n_dirs):
            base = (layer * n_dirs + d) * n_w
            w = w_names[base:base + n_w]
            b = b_names[base:base + n_w]
            width = int(f.inputs[first + base].shape[1])
            ws.append(_stack_rows(params, gb, [w[i] for i in x_gates],
                                  [1, len(x_gates) * n_hidden, width]))
            rs.append(_stack_rows(params, gb, [w[i] for i in h_gates],
                                  [1, len(h_gates) * n_hidden, n_hidden]))
            bs.append(_stack_rows(params, gb, [b[i] for i in x_gates] +
                                  [b[i] for i in h_gates],
                                  [1, 2 * len(x_gates) * n_hidden]))
        w_all, r_all, b_all = (
            gb.op('Concat', v, axis=0) if n_dirs > 1 else v[0]
            for v in (ws, rs, bs))
        rows = [layer * n_dirs, (layer + 1) * n_dirs]
        h0 = slice_op(params, gb, hx, [rows[0]], [rows[1]], [0])
        inputs = [x, w_all, r_all, b_all, seq_lens, h0]
        if has_cell:
            inputs.append(slice_op(params, gb, cx, [rows[0]], [rows[1]], [0]))
        outs = gb.op(op, inputs, num_outputs=3 if has_cell else 2, **attrs)
        y, h_final = outs[0], outs[1]
        h_finals.append(h_final)
        if has_cell:
            c_finals.append(outs[2])
        # (time, dirs, batch, hidden) -> (time, batch, dirs * hidden)
        y = gb.op('Transpose', [y], perm=[0, 2, 1, 3])
        x = gb.op('Reshape', [y, _shape(
            params, [n_time, n_batch, n_dirs * n_hidden])])
        in_size = n_dirs * n_hidden
    out = list(params.output_names)
    finals = [h_finals] + ([c_finals] if has_cell else [])
    for k, parts in enumerate(finals):
        gb.op_output_named('Concat' if len(parts) > 1 else 'Identity', parts,
                           [out[k]], **({'axis': 0} if len(parts) > 1
                                        else {}))
    for t, name in enumerate(out[len(finals):]):
        step = slice_op(params, gb, x, [t], [t + 1], [0])
        step = gb.op('Reshape', [step, _shape(params,
                                              [n_batch, in_size])])
        if batches[t] < n_batch:
            step = slice_op(params, gb, step, [0], [batches[t]], [0])
        gb.op_output_named('Identity', [step], [name])
    return gb.nodes()


def _transpose_sequence(params):
    """Arrays of decreasing length (sequences, or time steps) to one array
    per position: row ``t`` of every input that has it, in order."""
    f = params.func
    lengths = [int(n.shape[0]) for n in f.inputs]
    gb = GraphBuilder()
    for t, name in enumerate(params.output_names):
        rows = [slice_op(params, gb, x, [t], [t + 1], [0])
                for x, n in zip(params.input_names, lengths) if n > t]
        gb.op_output_named('Concat' if len(rows) > 1 else 'Identity', rows,
                           [name], **({'axis': 0} if len(rows) > 1 else {}))
    return gb.nodes()


CONVERTERS = {
    'NStepRNN': _n_step_rnn,
    'TransposeSequence': _transpose_sequence,
}
