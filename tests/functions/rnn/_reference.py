"""An independent float64 NumPy model of the n_step_* functions for tests.

It walks every sequence on its own, one step at a time, with the cell
equations written out per gate, and only converts between the time-major
lists the functions take and per-sequence arrays at the edges.
"""
import numpy

N_WEIGHTS = {'rnn_tanh': 2, 'rnn_relu': 2, 'gru': 6, 'lstm': 8}
N_X = {'rnn_tanh': 1, 'rnn_relu': 1, 'gru': 3, 'lstm': 4}


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _step(kind, x, h, c, w, b):
    def lin(j, v):
        return w[j] @ v + b[j]

    if kind == 'rnn_tanh':
        return numpy.tanh(lin(0, x) + lin(1, h)), None
    if kind == 'rnn_relu':
        return numpy.maximum(lin(0, x) + lin(1, h), 0), None
    if kind == 'gru':
        r = _sigmoid(lin(0, x) + lin(3, h))
        z = _sigmoid(lin(1, x) + lin(4, h))
        h_bar = numpy.tanh(lin(2, x) + r * lin(5, h))
        return (1 - z) * h_bar + z * h, None
    i = _sigmoid(lin(0, x) + lin(4, h))
    f = _sigmoid(lin(1, x) + lin(5, h))
    a = numpy.tanh(lin(2, x) + lin(6, h))
    o = _sigmoid(lin(3, x) + lin(7, h))
    c = f * c + i * a
    return o * numpy.tanh(c), c


def lengths_of(batches, n_seq):
    """Per-sequence lengths from time-major batch sizes."""
    return [sum(1 for bt in batches if bt > s) for s in range(n_seq)]


def to_time_major(seqs):
    """Sequences ``(len_i, ...)`` sorted longest first -> ``xs[t]``."""
    n_steps = len(seqs[0])
    return [numpy.stack([s[t] for s in seqs if len(s) > t])
            for t in range(n_steps)]


def reference(kind, n_layers, bi, hx, cx, ws, bs, xs, masks=None):
    """``(hy, cy, ys)`` in float64; ``masks[idx]`` multiplies the packed
    time-major input of layer/direction ``idx`` (layers > 0 only)."""
    f64 = [numpy.asarray(x, numpy.float64) for x in xs]
    hx = numpy.asarray(hx, numpy.float64)
    cx = None if cx is None else numpy.asarray(cx, numpy.float64)
    ws = [[numpy.asarray(w, numpy.float64) for w in wl] for wl in ws]
    bs = [[numpy.asarray(b, numpy.float64) for b in bl] for bl in bs]
    n_dirs = 2 if bi else 1
    n_seq, n_units = hx.shape[1], hx.shape[2]
    batches = [len(x) for x in f64]
    offsets = numpy.concatenate([[0], numpy.cumsum(batches)[:-1]])
    lengths = lengths_of(batches, n_seq)
    inputs = [numpy.array([f64[t][s] for t in range(lengths[s])]).reshape(
        lengths[s], f64[0].shape[1]) for s in range(n_seq)]
    hy = hx.copy()
    cy = None if cx is None else cx.copy()
    for layer in range(n_layers):
        outputs = []
        for d in range(n_dirs):
            idx = layer * n_dirs + d
            per_seq = []
            for s in range(n_seq):
                seq = inputs[s]
                if masks is not None and layer > 0:
                    rows = [offsets[t] + s for t in range(lengths[s])]
                    seq = seq * masks[idx][rows]
                h = hx[idx, s].copy()
                c = None if cx is None else cx[idx, s].copy()
                out = numpy.zeros((lengths[s], n_units))
                steps = range(lengths[s])
                for t in (steps if d == 0 else reversed(steps)):
                    h, c = _step(kind, seq[t], h, c, ws[idx], bs[idx])
                    out[t] = h
                hy[idx, s] = h
                if cy is not None:
                    cy[idx, s] = c
                per_seq.append(out)
            outputs.append(per_seq)
        inputs = [numpy.concatenate([o[s] for o in outputs], axis=1)
                  for s in range(n_seq)]
    ys = [numpy.stack([inputs[s][t] for s in range(batches[t])])
          for t in range(len(batches))]
    return hy, cy, ys


def make_inputs(kind, n_layers, bi, lengths, in_size=3, n_units=2,
                dtype=numpy.float64, seed=0):
    """Random ``hx, cx, ws, bs, xs`` (xs time-major) for these lengths."""
    rng = numpy.random.RandomState(seed)
    n_dirs = 2 if bi else 1
    n_w = N_WEIGHTS[kind]

    def rand(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)

    seqs = [rand(n, in_size) for n in lengths]
    xs = to_time_major(seqs)
    hx = rand(n_layers * n_dirs, len(lengths), n_units)
    cx = rand(*hx.shape) if kind == 'lstm' else None
    ws, bs = [], []
    for layer in range(n_layers):
        layer_in = in_size if layer == 0 else n_units * n_dirs
        for _ in range(n_dirs):
            ws.append([rand(n_units, layer_in if j < N_X[kind] else n_units)
                       for j in range(n_w)])
            bs.append([rand(n_units) for _ in range(n_w)])
    return hx, cx, ws, bs, xs
