"""The NumPy reference of the LSTM and GRU layers in the mixed_bf16 mode.

What ``n_step_lstm`` and ``n_step_gru`` (and their links, bidirectional
too) compute when ``config.dtype`` is ``cpuframe.mixed_bf16``, written out
in NumPy so that the native route (``csrc/lstm_layer.hpp``,
``csrc/gru_layer.hpp``) has a reference of exactly the same rounding:

- the GEMMs read bf16 operands (``x``, ``h_{t-1}`` and the weights rounded
  to bf16) and accumulate in float32; the biases are added in float32;
- the gates, their activations and the LSTM's cell state ``c`` stay
  float32 (the GRU's ``h' = u h + (1 - u) o`` reads the float32 ``h``);
- ``h_t`` is rounded to bf16 as it is computed: the state carried to the
  next step, the layer's output ``y`` and ``hy`` hold bf16 values;
- backward, the gates' gradients are rounded to bf16 for the GEMMs that
  read them (``h_{t-1}``'s and ``x``'s gradients, the weight gradients);
  the bias gradient sums them in float32, and every gradient that leaves
  the layer (inputs, states, weights) is float32.

The per-step operations of the composite float32 path (``_cells.py``) are
not used here: under the mode each of its ``sigmoid``/``tanh``/``concat``
calls would round on its own, which is not what a fused layer does.

Weights and biases come stacked in oneDNN's gate order (LSTM i, f, c~, o;
GRU u, r, o with the bias rows u, r, o and the hidden bias of o).
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


def _input_side(x, wl, wi, bias, n):
    """The rounded GEMM operands, the input projection of all steps, a
    buffer like it (the gates) and four (R, n) buffers (y and what the
    backward keeps)."""
    rnd = _bf16.round_array
    xr, wlr, wir = rnd(x), rnd(wl), rnd(wi)
    pre = xr @ wlr.T + bias
    rows = [numpy.empty((x.shape[0], n), numpy.float32) for _ in range(4)]
    return (xr, wlr, wir, pre, numpy.empty_like(pre)), rows


def lstm_forward(x, hx, cx, wl, wi, bias, batches, reverse=False):
    """One direction of one layer over packed steps.

    x (R, C), hx and cx (B, N), wl (4N, C), wi (4N, N) and bias (4N,) in
    oneDNN's gate order i, f, c~, o. Returns ``(y, hy, cy, saved)``; saved
    is what ``lstm_backward`` needs.
    """
    rnd = _bf16.round_array
    n = hx.shape[1]
    (xr, wlr, wir, pre, gates), (y, cs, hprev, cprev) = _input_side(
        x, wl, wi, bias, n)
    h, c = hx.copy(), cx.copy()
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


def lstm_backward(saved, gy, ghy, gcy, batches, reverse=False):
    """Gradients ``(gx, ghx, gcx, gwl, gwi, gbias)`` of ``lstm_forward``."""
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


def gru_forward(x, hx, wl, wi, bias, batches, reverse=False):
    """One direction of one GRU layer over packed steps (linear before
    reset, Chainer's GRU): x (R, C), hx (B, N), wl (3N, C), wi (3N, N),
    bias (4, N). Returns ``(y, hy, saved)``."""
    rnd = _bf16.round_array
    n = hx.shape[1]
    (xr, wlr, wir, pre, gates), (y, hn_all, hprev, hprev_r) = _input_side(
        x, wl, wi, bias[:3].reshape(-1), n)
    h = hx.copy()
    for r, b in _steps(batches, reverse):
        rows = slice(r, r + b)
        hp = rnd(h[:b])
        hw = hp @ wir.T
        g = pre[rows]
        u = _sigmoid(g[:, :n] + hw[:, :n])
        rr = _sigmoid(g[:, n:2 * n] + hw[:, n:2 * n])
        hn = hw[:, 2 * n:] + bias[3]
        o = numpy.tanh(g[:, 2 * n:] + rr * hn)
        hnew = rnd(u * h[:b] + (numpy.float32(1) - u) * o)
        gates[rows] = numpy.concatenate([u, rr, o], axis=1)
        hn_all[rows], hprev[rows], hprev_r[rows] = hn, h[:b], hp
        h[:b], y[rows] = hnew, hnew
    saved = (xr, wlr, wir, gates, hn_all, hprev, hprev_r)
    return y, h, saved


def gru_backward(saved, gy, ghy, batches, reverse=False):
    """Gradients ``(gx, ghx, gwl, gwi, gbias)`` of ``gru_forward``."""
    rnd = _bf16.round_array
    xr, wlr, wir, gates, hn_all, hprev, hprev_r = saved
    n = ghy.shape[1]
    one = numpy.float32(1)
    dh = ghy.copy()
    dgx = numpy.empty_like(gates)
    dgh = numpy.empty_like(gates)
    for r, b in reversed(_steps(batches, reverse)):
        rows = slice(r, r + b)
        g = gates[rows]
        u, rr, o = g[:, :n], g[:, n:2 * n], g[:, 2 * n:]
        hn, hp = hn_all[rows], hprev[rows]
        dht = dh[:b] + gy[rows]
        du = dht * (hp - o) * u * (one - u)
        do = dht * (one - u) * (one - o * o)
        dr = do * hn * rr * (one - rr)
        dgx[rows] = numpy.concatenate([du, dr, do], axis=1)
        dgh[rows] = numpy.concatenate([du, dr, do * rr], axis=1)
        dh[:b] = dht * u + rnd(dgh[rows]) @ wir
    dgxr, dghr = rnd(dgx), rnd(dgh)
    gwl = dgxr.T @ xr
    gwi = dghr.T @ hprev_r
    gbias = numpy.concatenate([dgx.sum(axis=0), dgh[:, 2 * n:].sum(axis=0)])
    gx = dgxr @ wlr
    return gx, dh, gwl, gwi, gbias.reshape(4, n)
