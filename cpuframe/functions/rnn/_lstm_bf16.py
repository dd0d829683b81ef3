"""The NumPy reference of an LSTM layer in the mixed_bf16 mode.

What ``n_step_lstm`` (and ``NStepLSTM``, ``NStepBiLSTM``) compute when
``config.dtype`` is ``cpuframe.mixed_bf16``, written out in NumPy so that
the oneDNN route (``csrc/lstm_layer.hpp``) has a reference of exactly the
same rounding:

- the GEMMs read bf16 operands (``x``, ``h_{t-1}`` and the weights rounded
  to bf16) and accumulate in float32; the bias is added in float32;
- the gates, their activations and the cell state ``c`` stay float32;
- ``h_t`` is rounded to bf16 as it is computed: the state carried to the
  next step, the layer's output ``y`` and ``hy`` hold bf16 values;
- backward, the gates' gradients are rounded to bf16 for the GEMMs that
  read them (``h_{t-1}``'s and ``x``'s gradients, the weight gradients);
  the bias gradient sums them in float32, and every gradient that leaves
  the layer (inputs, states, weights) is float32.

The per-step operations of the composite float32 path (``_cells.py``) are
not used here: under the mode each of its ``sigmoid``/``tanh``/``concat``
calls would round on its own, which is not what a fused LSTM layer does.
"""
import numpy

from cpuframe import _bf16


def _sigmoid(x):
    return numpy.float32(0.5) * numpy.tanh(numpy.float32(0.5) * x) + \
        numpy.float32(0.5)


def _steps(batches, reverse):
    """(row offset, rows) of each step in the order the direction runs."""
    offsets = numpy.concatenate([[0], numpy.cumsum(batches)[:-1]]).astype(int)
    order = range(len(batches) - 1, -1, -1) if reverse else range(len(batches))
    return [(int(offsets[t]), int(batches[t])) for t in order]


def layer_forward(x, hx, cx, wl, wi, bias, batches, reverse=False):
    """One direction of one layer over packed steps.

    x (R, C), hx and cx (B, N), wl (4N, C), wi (4N, N) and bias (4N,) in
    oneDNN's gate order i, f, c~, o. Returns ``(y, hy, cy, saved)``; saved
    is what ``layer_backward`` needs.
    """
    rnd = _bf16.round_array
    n = hx.shape[1]
    xr, wlr, wir = rnd(x), rnd(wl), rnd(wi)
    pre = xr @ wlr.T + bias
    h, c = hx.copy(), cx.copy()
    y = numpy.empty((x.shape[0], n), numpy.float32)
    gates = numpy.empty_like(pre)
    cs = numpy.empty_like(y)
    hprev = numpy.empty_like(y)
    cprev = numpy.empty_like(y)
    for r, b in _steps(batches, reverse):
        rows = slice(r, r + b)
        hp = rnd(h[:b])
        g = pre[rows] + hp @ wir.T
        i = _sigmoid(g[:, :n])
        f = _sigmoid(g[:, n:2 * n])
        a = numpy.tanh(g[:, 2 * n:3 * n])
        o = _sigmoid(g[:, 3 * n:])
        cn = f * c[:b] + i * a
        hn = rnd(o * numpy.tanh(cn))
        gates[rows] = numpy.concatenate([i, f, a, o], axis=1)
        cs[rows], hprev[rows], cprev[rows] = cn, hp, c[:b]
        h[:b], c[:b], y[rows] = hn, cn, hn
    saved = (xr, wlr, wir, gates, cs, hprev, cprev)
    return y, h, c, saved


def layer_backward(saved, gy, ghy, gcy, batches, reverse=False):
    """Gradients ``(gx, ghx, gcx, gwl, gwi, gbias)`` of ``layer_forward``."""
    rnd = _bf16.round_array
    xr, wlr, wir, gates, cs, hprev, cprev = saved
    n = ghy.shape[1]
    one = numpy.float32(1)
    dh, dc = ghy.copy(), gcy.copy()
    dg = numpy.empty_like(gates)
    for r, b in reversed(_steps(batches, reverse)):
        rows = slice(r, r + b)
        g = gates[rows]
        i, f, a, o = g[:, :n], g[:, n:2 * n], g[:, 2 * n:3 * n], g[:, 3 * n:]
        tc = numpy.tanh(cs[rows])
        hg = dh[:b] + gy[rows]
        dct = hg * o * (one - tc * tc) + dc[:b]
        d = numpy.concatenate([dct * a * i * (one - i),
                               dct * cprev[rows] * f * (one - f),
                               dct * i * (one - a * a),
                               hg * tc * o * (one - o)], axis=1)
        dg[rows] = d
        dc[:b] = dct * f
        dh[:b] = rnd(d) @ wir
    dgr = rnd(dg)
    gwl = dgr.T @ xr
    gwi = dgr.T @ hprev
    gbias = dg.sum(axis=0)
    gx = dgr @ wlr
    return gx, dh, dc, gwl, gwi, gbias
