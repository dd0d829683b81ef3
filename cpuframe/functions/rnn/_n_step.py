"""The loop shared by ``n_step_rnn``, ``n_step_gru`` and ``n_step_lstm``.

Sequences arrive time-major, as in Chainer: ``xs[t]`` holds the inputs of
the ``B_t`` sequences still running at time ``t`` (``B_0 >= B_1 >= ...``,
the sequences sorted by length, longest first).  Concatenated, they form a
packed ``(sum_t B_t, in)`` matrix, cuDNN's packed layout, so each layer
projects its whole input with one matrix product and then loops over time
steps only for the hidden-side product and the gates.  Finished sequences
keep their last state, which ends up in ``hy`` (and ``cy``).
"""
import numpy

from cpuframe import _bf16, backend
from cpuframe.configuration import config, using_config
from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.separate import separate
from cpuframe.functions.array.split_axis import split_axis
from cpuframe.functions.array.stack import stack
from cpuframe.functions.math.basic_math import matmul
from cpuframe.functions.rnn import _intel64
from cpuframe.variable import Variable, as_variable


def check_kwargs(name, kwargs):
    """Reject Chainer's removed ``train``/``use_cudnn`` keywords by name."""
    for key in ('train', 'use_cudnn'):
        if key in kwargs:
            raise ValueError(
                '{}: the {} argument is not supported anymore; use '
                'cpuframe.using_config'.format(name, key))
    if kwargs:
        raise TypeError('{}() got unexpected keyword argument(s) {}'.format(
            name, ', '.join(sorted(kwargs))))


def _is_array_like(x):
    return isinstance(x, Variable) or backend.is_array(x)


def _shape(x):
    return tuple(x.shape)


def _check_state(name, what, state, expected_shape, dtype):
    if not _is_array_like(state):
        raise TypeError('{}: expected {} as a Variable or an array, got '
                        '{}'.format(name, what, type(state).__name__))
    if _shape(state) != expected_shape:
        raise ValueError(
            '{}: expected {} of shape {} (n_layers * n_directions, batch, '
            'n_units), got {}'.format(name, what, expected_shape,
                                      _shape(state)))
    if state.dtype != dtype:
        raise TypeError('{}: expected {} of dtype {} (the dtype of xs), got '
                        '{}'.format(name, what, dtype, state.dtype))


def _check_inputs(name, cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                  n_dirs):
    """Validate everything before any computation.

    Returns the dropout ratio as a float and the batch size of every step.
    """
    if not isinstance(n_layers, (int, numpy.integer)) or \
            isinstance(n_layers, bool) or n_layers < 1:
        raise ValueError('{}: expected a positive int n_layers, got '
                         '{!r}'.format(name, n_layers))
    try:
        ratio = float(dropout_ratio)
    except (TypeError, ValueError):
        raise TypeError('{}: expected a float dropout_ratio, got {!r}'.format(
            name, dropout_ratio)) from None
    if not 0.0 <= ratio < 1.0:
        raise ValueError('{}: expected dropout_ratio in [0, 1), got '
                         '{}'.format(name, dropout_ratio))

    if not isinstance(xs, (list, tuple)):
        raise TypeError('{}: expected xs as a list of (B_t, in_size) inputs, '
                        'one per time step, got {}'.format(
                            name, type(xs).__name__))
    if not xs:
        raise ValueError('{}: expected xs as a non-empty list of (B_t, '
                         'in_size) inputs, one per time step, got an empty '
                         'list'.format(name))
    for t, x in enumerate(xs):
        if not _is_array_like(x):
            raise TypeError('{}: expected xs[{}] as a Variable or an array, '
                            'got {}'.format(name, t, type(x).__name__))
    x0 = xs[0]
    if x0.ndim != 2:
        raise ValueError('{}: expected 2-dim xs[t] of shape (B_t, in_size), '
                         'got xs[0].shape={}'.format(name, _shape(x0)))
    dtype = x0.dtype
    if dtype.kind != 'f':
        raise TypeError('{}: expected floating point xs, got dtype {}'.format(
            name, dtype))
    in_size = x0.shape[1]
    batches = []
    for t, x in enumerate(xs):
        if x.ndim != 2 or x.shape[1] != in_size:
            raise ValueError(
                '{}: expected xs[{}] of shape (B_t, {}) like xs[0], got '
                '{}'.format(name, t, in_size, _shape(x)))
        if x.dtype != dtype:
            raise TypeError('{}: expected xs[{}] of dtype {} like xs[0], got '
                            '{}'.format(name, t, dtype, x.dtype))
        if x.shape[0] < 1:
            raise ValueError('{}: expected at least one sequence at every '
                             'time step, got xs[{}].shape={}'.format(
                                 name, t, _shape(x)))
        if t and x.shape[0] > batches[-1]:
            raise ValueError(
                '{}: expected xs[t].shape[0] >= xs[t + 1].shape[0] (sequences '
                'sorted by length, longest first, then transposed with '
                'transpose_sequence), got batch sizes {}'.format(
                    name, [len(v) for v in xs]))
        batches.append(x.shape[0])

    if not _is_array_like(hx):
        raise TypeError('{}: expected hx as a Variable or an array, got '
                        '{}'.format(name, type(hx).__name__))
    if hx.ndim != 3:
        raise ValueError(
            '{}: expected hx of shape (n_layers * n_directions, batch, '
            'n_units) = ({}, >={}, n_units), got {}'.format(
                name, n_layers * n_dirs, batches[0], _shape(hx)))
    n_units = hx.shape[2]
    batch = hx.shape[1]
    if hx.shape[0] != n_layers * n_dirs or batch < batches[0]:
        raise ValueError(
            '{}: expected hx of shape (n_layers * n_directions, batch, '
            'n_units) = ({}, >={}, n_units), got {}'.format(
                name, n_layers * n_dirs, batches[0], _shape(hx)))
    state_shape = (n_layers * n_dirs, batch, n_units)
    _check_state(name, 'hx', hx, state_shape, dtype)
    if cell.has_cell:
        _check_state(name, 'cx', cx, state_shape, dtype)

    n_sets = n_layers * n_dirs
    for what, params in (('ws', ws), ('bs', bs)):
        if not isinstance(params, (list, tuple)) or len(params) != n_sets:
            raise ValueError(
                '{}: expected {} as a list of {} lists (n_layers={} * '
                'n_directions={}), got {}'.format(
                    name, what, n_sets, n_layers, n_dirs,
                    len(params) if isinstance(params, (list, tuple))
                    else type(params).__name__))
        for i, p in enumerate(params):
            if not isinstance(p, (list, tuple)) or len(p) != cell.n_weights:
                raise ValueError(
                    '{}: expected {}[{}] to hold {} {}, got {}'.format(
                        name, what, i, cell.n_weights,
                        'matrices' if what == 'ws' else 'vectors',
                        len(p) if isinstance(p, (list, tuple))
                        else type(p).__name__))
    for i in range(n_sets):
        layer_in = in_size if i < n_dirs else n_units * n_dirs
        for j in range(cell.n_weights):
            w, b = ws[i][j], bs[i][j]
            expected = (n_units, layer_in if j < cell.n_x else n_units)
            for what, p, exp in (('ws', w, expected), ('bs', b, (n_units,))):
                if not _is_array_like(p):
                    raise TypeError(
                        '{}: expected {}[{}][{}] as a Variable or an array, '
                        'got {}'.format(name, what, i, j, type(p).__name__))
                if _shape(p) != exp:
                    raise ValueError(
                        '{}: expected {}[{}][{}] of shape {}, got {}'.format(
                            name, what, i, j, exp, _shape(p)))
                if p.dtype != dtype:
                    raise TypeError(
                        '{}: expected {}[{}][{}] of dtype {} (the dtype of '
                        'xs), got {}'.format(name, what, i, j, dtype, p.dtype))
    return ratio, batches


def _dropout(x, ratio):
    """Inverted dropout with a fresh mask; identity outside training."""
    if ratio == 0.0 or not config.train:
        return x
    xp = backend.get_array_module(x.array)
    scale = x.dtype.type(1.0 / (1.0 - ratio))
    mask = (xp.random.rand(*x.shape) >= ratio).astype(x.dtype) * scale
    return x * mask


def _run_forward(cell, xws, batches, h, c, hp):
    """Steps t = 0 .. T-1; returns final (h, c) of all rows and the outputs."""
    finished_h, finished_c = [], []
    active = h.shape[0]
    outs = []
    for xw, bt in zip(xws, batches):
        if bt < active:
            h, h_done = split_axis(h, [bt], axis=0)
            finished_h.append(h_done)
            if c is not None:
                c, c_done = split_axis(c, [bt], axis=0)
                finished_c.append(c_done)
            active = bt
        h, c = cell.step(xw, h, c, hp)
        outs.append(h)
    # Sequences finish from the last row upwards, so the first piece set
    # aside belongs at the bottom.
    if finished_h:
        h = concat([h] + finished_h[::-1], axis=0)
        if c is not None:
            c = concat([c] + finished_c[::-1], axis=0)
    return h, c, outs


def _run_backward(cell, xws, batches, h0, c0, hp):
    """Steps t = T-1 .. 0: each sequence starts from its own last input."""
    batch = h0.shape[0]
    cuts = sorted(set(batches) | {batch})
    if len(cuts) > 1:
        h_parts = list(split_axis(h0, cuts[:-1], axis=0))
        c_parts = None if c0 is None else list(
            split_axis(c0, cuts[:-1], axis=0))
    else:
        h_parts = [h0]
        c_parts = None if c0 is None else [c0]
    h = c = None
    used = 0
    active = 0
    outs = []
    for t in range(len(xws) - 1, -1, -1):
        bt = batches[t]
        if bt > active:
            # sequences of length t + 1 join here, from their initial state
            h = h_parts[used] if h is None else concat(
                [h, h_parts[used]], axis=0)
            if c_parts is not None:
                c = c_parts[used] if c is None else concat(
                    [c, c_parts[used]], axis=0)
            used += 1
            active = bt
        h, c = cell.step(xws[t], h, c, hp)
        outs.append(h)
    outs.reverse()
    if used < len(h_parts):
        # hx rows beyond xs[0]'s batch: sequences of length 0
        h = concat([h] + h_parts[used:], axis=0)
        if c_parts is not None:
            c = concat([c] + c_parts[used:], axis=0)
    return h, c, outs


def n_step_impl(name, cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                use_bi_direction):
    """Run the stacked (bi)directional recurrence; see ``n_step_lstm``.

    Returns ``(hy, cy, ys)`` with ``cy`` None for cells without a cell
    state and ``ys`` a tuple of ``(B_t, n_units * n_directions)`` Variables.
    """
    n_dirs = 2 if use_bi_direction else 1
    ratio, batches = _check_inputs(
        name, cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, n_dirs)
    # The whole stack on oneDNN, when the FunctionNode machinery chooses it.
    routed = _intel64.apply_route(name, cell, n_layers, ratio, hx, cx, ws, bs,
                                  xs, n_dirs, batches)
    if routed is not None:
        return routed
    if _bf16.requested():
        # GRU and vanilla RNN layers have no bf16 route: float32 in the
        # mixed_bf16 mode on both paths (an LSTM ran as the node above).
        with using_config('dtype', numpy.float32):
            return reference_stack(cell, n_layers, ratio, hx, cx, ws, bs, xs,
                                   n_dirs, batches)
    return reference_stack(cell, n_layers, ratio, hx, cx, ws, bs, xs, n_dirs,
                           batches)


def reference_stack(cell, n_layers, ratio, hx, cx, ws, bs, xs, n_dirs,
                    batches):
    """The stack on the NumPy path, from checked arguments (``n_step_impl``
    without the route; differentiable any number of times)."""
    ws = [[as_variable(w) for w in wl] for wl in ws]
    bs = [[as_variable(b) for b in bl] for bl in bs]
    h0s = separate(hx, axis=0)
    c0s = separate(cx, axis=0) if cell.has_cell else [None] * len(h0s)
    points = [int(p) for p in numpy.cumsum(batches[:-1])]

    x = concat(xs, axis=0) if len(xs) > 1 else as_variable(xs[0])
    hy, cy = [], []
    for layer in range(n_layers):
        packed = []
        for d in range(n_dirs):
            idx = layer * n_dirs + d
            w, b = ws[idx], bs[idx]
            # Chainer drops out the input of every layer but the first, with
            # a fresh mask for each direction.
            x_in = x if layer == 0 else _dropout(x, ratio)
            xw = matmul(x_in, cell.x_weight(w), transb=True) + cell.x_bias(b)
            xws = split_axis(xw, points, axis=0) if points else (xw,)
            run = _run_backward if d == 1 else _run_forward
            h, c, outs = run(cell, xws, batches, h0s[idx], c0s[idx],
                             cell.h_params(w, b))
            hy.append(h)
            cy.append(c)
            packed.append(outs)
        if n_dirs == 1 and layer == n_layers - 1:
            # the last layer's per-step outputs are already ys
            return _finish(hy, cy, cell, tuple(packed[0]))
        parts = [concat(outs, axis=0) if len(outs) > 1 else outs[0]
                 for outs in packed]
        x = parts[0] if n_dirs == 1 else concat(parts, axis=1)
    ys = split_axis(x, points, axis=0) if points else (x,)
    return _finish(hy, cy, cell, tuple(ys))


def _finish(hy, cy, cell, ys):
    hy = stack(hy, axis=0)
    cy = stack(cy, axis=0) if cell.has_cell else None
    return hy, cy, ys
