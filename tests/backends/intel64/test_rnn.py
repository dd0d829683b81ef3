"""The oneDNN routes of the recurrent functions (issue 6).

n_step_lstm / bilstm / gru / bigru / rnn / birnn on oneDNN's RNN primitives
and the fused F.lstm cell, checked against the NumPy path
(``use_ideep='never'``): outputs, final states and every gradient (inputs,
initial states, all weights and biases).
"""
import numpy
import pytest
from testhelpers.hooks import SeenLabels

import cpuframe
from cpuframe import Variable
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

N_WEIGHTS = {'lstm': 8, 'gru': 6, 'rnn_tanh': 2, 'rnn_relu': 2}


class Problem:
    """Random inputs of one n_step_* call (time-major, sorted lengths)."""

    def __init__(self, kind, n_layers, bi, lengths, in_size=3, n_units=4,
                 extra_rows=0, seed=0):
        rng = numpy.random.default_rng(seed)
        self.kind, self.n_layers, self.bi = kind, n_layers, bi
        d = 2 if bi else 1
        lengths = sorted(lengths, reverse=True)
        batches = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
        self.xs = [rng.standard_normal((b, in_size)).astype(numpy.float32)
                   for b in batches]
        batch = len(lengths) + extra_rows
        shape = (n_layers * d, batch, n_units)
        self.hx = rng.standard_normal(shape).astype(numpy.float32)
        self.cx = rng.standard_normal(shape).astype(numpy.float32)
        nw = N_WEIGHTS[kind]
        self.ws, self.bs = [], []
        for layer in range(n_layers):
            for _ in range(d):
                first = in_size if layer == 0 else n_units * d
                self.ws.append([
                    (rng.standard_normal(
                        (n_units, first if j < nw // 2 else n_units)) * 0.6
                     ).astype(numpy.float32) for j in range(nw)])
                self.bs.append([(rng.standard_normal(n_units) * 0.5).astype(
                    numpy.float32) for _ in range(nw)])

    def call(self, hx, cx, ws, bs, xs, ratio=0.0):
        if self.kind == 'lstm':
            f = F.n_step_bilstm if self.bi else F.n_step_lstm
            return f(self.n_layers, ratio, hx, cx, ws, bs, xs)
        if self.kind == 'gru':
            f = F.n_step_bigru if self.bi else F.n_step_gru
            hy, ys = f(self.n_layers, ratio, hx, ws, bs, xs)
        else:
            f = F.n_step_birnn if self.bi else F.n_step_rnn
            hy, ys = f(self.n_layers, ratio, hx, ws, bs, xs,
                       activation=self.kind[4:])
        return hy, None, ys

    def run(self, mode, ratio=0.0, seed=None, device=False):
        """Outputs and every gradient, as ndarrays, under ``mode``."""
        send = intel64.from_numpy if device else (lambda a: a.copy())
        with using_config('use_ideep', mode):
            hx, cx = Variable(send(self.hx)), Variable(send(self.cx))
            xs = [Variable(send(x)) for x in self.xs]
            ws = [[Variable(send(w)) for w in wl] for wl in self.ws]
            bs = [[Variable(send(b)) for b in bl] for bl in self.bs]
            if seed is not None:
                numpy.random.seed(seed)
            hy, cy, ys = self.call(hx, cx, ws, bs, xs, ratio)
            rng = numpy.random.default_rng(1)
            outs = [hy] + ([cy] if cy is not None else []) + list(ys)
            loss = None
            for o in outs:
                term = F.sum(o * rng.standard_normal(o.shape).astype(
                    numpy.float32))
                loss = term if loss is None else loss + term
            loss.backward()
            params = [hx] + ([cx] if self.kind == 'lstm' else []) + xs + \
                [w for wl in ws for w in wl] + [b for bl in bs for b in bl]
            self.out_types = {type(o.array) for o in outs}
            self.grad_types = {type(p.grad) for p in params}
            return ([numpy.asarray(o.array) for o in outs],
                    [numpy.asarray(p.grad) for p in params])


def assert_close(got, ref, tol=2e-5):
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.shape == r.shape and g.dtype == numpy.float32
        numpy.testing.assert_allclose(
            g, r, rtol=tol, atol=tol * max(1.0, float(numpy.abs(r).max())))


@pytest.fixture
def native_calls(monkeypatch):
    """Counts the calls of the native RNN and LSTM-cell kernels."""
    mod = intel64.native()
    counts = {}
    for name in ('rnn_forward', 'rnn_backward', 'lstm_cell_forward',
                 'lstm_cell_backward', 'lstm_step_forward',
                 'lstm_step_backward'):
        orig = getattr(mod, name)

        def wrapper(*args, _orig=orig, _name=name, **kwargs):
            counts[_name] = counts.get(_name, 0) + 1
            return _orig(*args, **kwargs)
        monkeypatch.setattr(mod, name, wrapper)
    return counts


LENGTHS = {
    'equal': ([4, 4, 4], 0),
    'variable': ([5, 3, 3, 1], 1),  # and a sequence of length 0 (extra hx row)
    'batch1': ([3], 0),
}


@pytest.mark.parametrize('kind', ['lstm', 'gru', 'rnn_tanh', 'rnn_relu'])
@pytest.mark.parametrize('n_layers', [1, 2])
@pytest.mark.parametrize('bi', [False, True])
@pytest.mark.parametrize('lengths', sorted(LENGTHS))
def test_n_step_parity(kind, n_layers, bi, lengths, native_calls):
    lens, extra = LENGTHS[lengths]
    p = Problem(kind, n_layers, bi, lens, extra_rows=extra)
    ref_out, ref_grads = p.run('never')
    assert native_calls == {}
    out, grads = p.run('always')
    assert native_calls['rnn_forward'] == n_layers
    assert native_calls['rnn_backward'] == n_layers
    assert p.out_types == {numpy.ndarray} and p.grad_types == {numpy.ndarray}
    assert_close(out, ref_out)
    assert_close(grads, ref_grads)


@pytest.mark.parametrize('kind', ['lstm', 'gru', 'rnn_relu'])
@pytest.mark.parametrize('bi', [False, True])
def test_wide_batch_split_into_parts(kind, bi, native_calls):
    # Big enough to run multi-threaded: with two threads a unidirectional
    # layer deals its rows out to two parts run side by side (exact).
    rng = numpy.random.default_rng(8)
    lengths = rng.integers(1, 6, 70).tolist()
    p = Problem(kind, 2, bi, lengths, in_size=64, n_units=96, extra_rows=1)
    ref_out, ref_grads = p.run('never')
    out, grads = p.run('always')
    assert_close(out, ref_out, tol=5e-5)
    assert_close(grads, ref_grads, tol=5e-5)


@pytest.mark.parametrize('bi', [False, True])
def test_lstm_parts_uneven_lengths_odd_units(bi, native_calls):
    # Many sequences of very different lengths (the rows are dealt out to
    # parts by contiguous ranges of sequences when threads allow) and a unit
    # count that is no multiple of the vector width.
    rng = numpy.random.default_rng(9)
    lengths = rng.integers(1, 13, 70).tolist()
    p = Problem('lstm', 2, bi, lengths, in_size=64, n_units=100,
                extra_rows=2, seed=4)
    ref_out, ref_grads = p.run('never')
    out, grads = p.run('always')
    assert native_calls['rnn_backward'] == 2
    assert_close(out, ref_out, tol=5e-5)
    # a weight gradient sums ~600 rows: in another order (the AVX2 GEMM's
    # blocking against OpenBLAS's) float32 sums differ by up to ~7e-5 of
    # the largest entry (seen on a Zen 3)
    assert_close(grads, ref_grads, tol=1e-4)


def test_lstm_saturated_gates():
    # Large pre-activations: sigmoid and tanh near 0/1 and -1/1 (and past
    # the range where exp overflows in float32) must match the NumPy path.
    p = Problem('lstm', 2, True, [5, 4, 2], n_units=20, seed=6)
    p.ws = [[w * 12 for w in wl] for wl in p.ws]
    p.bs = [[b * 30 for b in bl] for bl in p.bs]
    ref_out, ref_grads = p.run('never')
    out, grads = p.run('always')
    assert_close(out, ref_out, tol=5e-5)
    assert_close(grads, ref_grads, tol=5e-5)


def _run_without_input_grads(p, mode):
    """Outputs and the gradients of hx, cx, ws, bs with xs plain arrays (no
    gradient of xs is wanted)."""
    with using_config('use_ideep', mode):
        hx, cx = Variable(p.hx.copy()), Variable(p.cx.copy())
        ws = [[Variable(w.copy()) for w in wl] for wl in p.ws]
        bs = [[Variable(b.copy()) for b in bl] for bl in p.bs]
        hy, cy, ys = p.call(hx, cx, ws, bs, [x.copy() for x in p.xs])
        outs = [hy] + ([cy] if cy is not None else []) + list(ys)
        loss = sum(F.sum(o * o) for o in outs)
        loss.backward()
        params = [hx] + ([cx] if p.kind == 'lstm' else []) + \
            [w for wl in ws for w in wl] + [b for bl in bs for b in bl]
        return ([numpy.asarray(o.array) for o in outs],
                [numpy.asarray(v.grad) for v in params])


@pytest.mark.parametrize('kind', ['lstm', 'gru'])
@pytest.mark.parametrize('bi', [False, True])
def test_inputs_without_grad_skip_their_gradient(kind, bi, monkeypatch):
    # The first layer's input gradient is not computed when xs need none;
    # every other gradient is as on the NumPy path.
    p = Problem(kind, 2, bi, [5, 3, 3, 1], extra_rows=1, seed=2)
    ref = _run_without_input_grads(p, 'never')
    mod = intel64.native()
    orig = mod.rnn_backward
    seen = []

    def recording(*args, **kwargs):
        seen.append(kwargs.get('need_gx', True))
        return orig(*args, **kwargs)
    monkeypatch.setattr(mod, 'rnn_backward', recording)
    got = _run_without_input_grads(p, 'always')
    assert seen == [True, False]  # from the top layer down
    assert_close(got[0], ref[0])
    assert_close(got[1], ref[1])


def test_weight_updates_between_calls_are_seen():
    # Nothing derived from the weights outlives a call: an in-place update
    # (as an optimizer does) shows in the next call.
    p = Problem('lstm', 2, True, [4, 3, 1], seed=7)
    with using_config('use_ideep', 'always'):
        ws = [[Variable(w.copy()) for w in wl] for wl in p.ws]
        bs = [[Variable(b.copy()) for b in bl] for bl in p.bs]
        p.call(p.hx, p.cx, ws, bs, p.xs)
        for wl, bl in zip(ws, bs):
            for v in wl + bl:
                v.array[...] += numpy.float32(0.25)
        hy, cy, ys = p.call(p.hx, p.cx, ws, bs, p.xs)
    with using_config('use_ideep', 'never'):
        ref = p.call(p.hx, p.cx, [[w.array for w in wl] for wl in ws],
                     [[b.array for b in bl] for bl in bs], p.xs)
    assert_close([hy.array, cy.array] + [y.array for y in ys],
                 [ref[0].array, ref[1].array] + [y.array for y in ref[2]])


@pytest.mark.parametrize('kind,bi', [('lstm', True), ('gru', False),
                                     ('rnn_tanh', True)])
def test_dropout_same_masks(kind, bi):
    # The route draws its masks with the same numpy.random calls in the same
    # order as the NumPy path, so a seeded run sees the same masks.
    p = Problem(kind, 3, bi, [4, 2, 2, 1], seed=3)
    ref = p.run('never', ratio=0.4, seed=11)
    got = p.run('always', ratio=0.4, seed=11)
    assert_close(got[0], ref[0])
    assert_close(got[1], ref[1])
    with using_config('train', False):  # no dropout at test time
        assert_close(p.run('always', ratio=0.4)[0], p.run('never')[0])


@pytest.mark.parametrize('kind,bi', [('lstm', True), ('lstm', False),
                                     ('gru', True)])
def test_device_arrays_stay_on_device(kind, bi):
    # Outputs and gradients come back as mdarrays (views of the native
    # results' rows where they can, without copies).
    p = Problem(kind, 2, bi, [4, 2, 1], extra_rows=1)
    ref = p.run('never')
    got = p.run('never', device=True)  # mdarray inputs take the route
    assert p.out_types == {intel64.mdarray}
    assert p.grad_types == {intel64.mdarray}
    assert_close(got[0], ref[0])
    assert_close(got[1], ref[1])


def test_auto_mode_and_inference(native_calls):
    p = Problem('gru', 2, True, [3, 3, 2])
    ref = p.run('never')
    assert_close(p.run('auto')[1], ref[1])
    assert native_calls['rnn_backward'] == 2
    with using_config('use_ideep', 'always'), cpuframe.no_backprop_mode():
        hy, _, ys = p.call(p.hx, p.cx, p.ws, p.bs, p.xs)
    assert_close([hy.array] + [y.array for y in ys], ref[0])


def test_second_backward_regenerates_workspace():
    p = Problem('lstm', 2, True, [4, 3, 1])
    with using_config('use_ideep', 'always'):
        xs = [Variable(x) for x in p.xs]
        hy, cy, ys = p.call(p.hx, p.cx, p.ws, p.bs, xs)
        loss = F.sum(hy * hy) + F.sum(F.concat(ys, axis=0) ** 2)
        loss.backward()
        first = [x.grad.copy() for x in xs]
        for x in xs:
            x.cleargrad()
        loss.backward()
        for x, g in zip(xs, first):
            numpy.testing.assert_array_equal(x.grad, g)


def test_double_backprop_with_dropout_raises_naming_the_op():
    # Without dropout it recomputes on the NumPy path (see
    # test_rnn_double_backprop.py); dropout's masks are not kept.
    p = Problem('lstm', 2, False, [3, 2])
    with using_config('use_ideep', 'always'):
        xs = [Variable(x) for x in p.xs]
        hy, cy, ys = p.call(p.hx, p.cx, p.ws, p.bs, xs, ratio=0.5)
        with pytest.raises(NotImplementedError, match='n_step_lstm.*dropout'):
            cpuframe.grad([F.sum(hy * hy)], [xs[0]],
                          enable_double_backprop=True)


def test_float64_takes_the_numpy_path(native_calls):
    p = Problem('rnn_tanh', 1, False, [2, 1])
    xs = [x.astype(numpy.float64) for x in p.xs]
    ws = [[w.astype(numpy.float64) for w in wl] for wl in p.ws]
    bs = [[b.astype(numpy.float64) for b in bl] for bl in p.bs]
    with using_config('use_ideep', 'always'):
        hy, _, _ = p.call(p.hx.astype(numpy.float64), None, ws, bs, xs)
    assert hy.dtype == numpy.float64 and native_calls == {}


@pytest.mark.parametrize('link', [L.NStepLSTM, L.NStepBiLSTM, L.NStepGRU,
                                  L.NStepBiGRU, L.NStepRNNTanh,
                                  L.NStepBiRNNReLU])
def test_links_unsorted_sequences(link):
    rng = numpy.random.default_rng(5)
    numpy.random.seed(0)
    model = link(2, 3, 4, 0.0)
    xs = [rng.standard_normal((n, 3)).astype(numpy.float32)
          for n in (2, 5, 1, 5)]
    results = []
    for mode in ('never', 'always'):
        model.cleargrads()
        with using_config('use_ideep', mode):
            vs = [Variable(x) for x in xs]
            out = model(None, None, vs) if 'LSTM' in link.__name__ \
                else model(None, vs)
            ys = out[-1]
            loss = sum(F.sum(y * y) for y in ys) + F.sum(out[0] * out[0])
            loss.backward()
        results.append([numpy.asarray(y.array) for y in ys] +
                       [v.grad for v in vs] +
                       [p.grad.copy() for _, p in sorted(model.namedparams())])
    assert_close(results[1], results[0])


# -- F.lstm and L.LSTM ------------------------------------------------------------

@pytest.mark.parametrize('c_shape,x_rows', [((3, 5), 3), ((4, 5), 2),
                                            ((2, 3, 4), 2), ((1, 1), 1)])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_lstm_cell_parity(c_shape, x_rows, where, native_calls):
    rng = numpy.random.default_rng(2)
    c = rng.standard_normal(c_shape).astype(numpy.float32)
    x = (rng.standard_normal((x_rows, 4 * c_shape[1]) + c_shape[2:]) * 2
         ).astype(numpy.float32)
    gc = rng.standard_normal(c_shape).astype(numpy.float32)
    gh = rng.standard_normal((x_rows,) + c_shape[1:]).astype(numpy.float32)
    results = []
    for mode in ('never', 'always'):
        send = intel64.from_numpy if where == 'device' and mode == 'always' \
            else numpy.array
        with using_config('use_ideep', mode):
            vc, vx = Variable(send(c)), Variable(send(x))
            cn, h = F.lstm(vc, vx)
            gxs = cpuframe.grad([cn, h], [vc, vx], [Variable(send(gc)),
                                                  Variable(send(gh))])
            results.append([numpy.asarray(a) for a in
                            (cn.array, h.array, gxs[0].array, gxs[1].array)])
        if mode == 'always':
            want = intel64.mdarray if where == 'device' else numpy.ndarray
            assert isinstance(h.array, want)
            assert isinstance(gxs[1].array, want)
    assert native_calls['lstm_cell_forward'] >= 1
    assert native_calls['lstm_cell_backward'] == 1
    assert_close(results[1], results[0])


def _lstm_cell_results(c, x, gc, gh, mode):
    with using_config('use_ideep', mode):
        vc, vx = Variable(c), Variable(x)
        cn, h = F.lstm(vc, vx)
        gxs = cpuframe.grad([cn, h], [vc, vx], [Variable(gc), Variable(gh)])
    return [numpy.asarray(a) for a in (cn.array, h.array, gxs[0].array, gxs[1].array)]


def test_lstm_cell_kept_kernels_over_many_sizes(native_calls):
    # Each thread keeps the last 8 (activation, size) kernels of the cell
    # with memories pointed at each call's buffers: 10 sizes in turn, twice
    # (every call of the second round re-makes an evicted one), then a batch
    # whose activations (> 1 MiB) are not kept, then a small one again. Each
    # call equals the NumPy path's.
    rng = numpy.random.default_rng(5)
    sizes = [(1, n) for n in range(1, 11)] * 2 + [(700, 128), (2, 3)]
    for rows, units in sizes:
        c = rng.standard_normal((rows, units)).astype(numpy.float32)
        x = (rng.standard_normal((rows, 4 * units)) * 2).astype(numpy.float32)
        gc = rng.standard_normal((rows, units)).astype(numpy.float32)
        gh = rng.standard_normal((rows, units)).astype(numpy.float32)
        want = _lstm_cell_results(c, x, gc, gh, 'never')
        assert_close(_lstm_cell_results(c, x, gc, gh, 'always'), want)
    assert native_calls['lstm_cell_forward'] >= len(sizes)
    assert native_calls['lstm_cell_backward'] == len(sizes)


def test_lstm_cell_kept_kernels_follow_the_primitive_cache(native_calls):
    # The kept kernels come from the shared cache: cleared, the next call
    # asks it again (a creation); disabled (capacity 0), every call does;
    # the results are the NumPy path's throughout.
    d = intel64.native()
    rng = numpy.random.default_rng(7)
    c = rng.standard_normal((2, 3)).astype(numpy.float32)
    x = (rng.standard_normal((2, 12)) * 2).astype(numpy.float32)
    gc = rng.standard_normal((2, 3)).astype(numpy.float32)
    gh = rng.standard_normal((2, 3)).astype(numpy.float32)
    want = _lstm_cell_results(c, x, gc, gh, 'never')
    capacity = d.primitive_cache_stats()['capacity']
    try:
        assert_close(_lstm_cell_results(c, x, gc, gh, 'always'), want)
        before = d.primitive_cache_stats()['creations']
        assert_close(_lstm_cell_results(c, x, gc, gh, 'always'), want)
        assert d.primitive_cache_stats()['creations'] == before  # kept
        d.clear_primitive_cache()
        before = d.primitive_cache_stats()['creations']
        assert_close(_lstm_cell_results(c, x, gc, gh, 'always'), want)
        assert d.primitive_cache_stats()['creations'] > before  # let go
        d.set_primitive_cache_capacity(0)
        for _ in range(2):
            before = d.primitive_cache_stats()['creations']
            assert_close(_lstm_cell_results(c, x, gc, gh, 'always'), want)
            assert d.primitive_cache_stats()['creations'] > before  # none kept
    finally:
        d.set_primitive_cache_capacity(capacity)


def test_lstm_cell_double_backprop_still_works():
    rng = numpy.random.default_rng(4)
    c = rng.standard_normal((3, 2)).astype(numpy.float32)
    x = rng.standard_normal((3, 8)).astype(numpy.float32)
    results = []
    for mode in ('never', 'always'):
        with using_config('use_ideep', mode):
            vc, vx = Variable(c.copy()), Variable(x.copy())
            cn, h = F.lstm(vc, vx)
            gc, gx = cpuframe.grad([F.sum(cn * cn) + F.sum(h)], [vc, vx],
                                   enable_double_backprop=True)
            (F.sum(gx * gx) + F.sum(gc * gc)).backward()
            results.append([vc.grad, vx.grad])
    assert_close(results[1], results[0])


@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_lstm_link_fused_steps_with_shrinking_batch(where, native_calls):
    rng = numpy.random.default_rng(6)
    numpy.random.seed(1)
    model = L.LSTM(3, 4)
    steps = [rng.standard_normal((b, 3)).astype(numpy.float32)
             for b in (3, 3, 2, 1)]
    results = []
    for mode in ('never', 'always'):
        model.cleargrads()
        model.reset_state()
        if mode == 'always' and where == 'device':
            model.to_intel64()
        with using_config('use_ideep', mode):
            loss = sum(F.sum(model(Variable(x)) ** 2) for x in steps)
            loss.backward()
        results.append([numpy.asarray(model.h.array),
                        numpy.asarray(model.c.array)] +
                       [numpy.asarray(p.grad)
                        for _, p in sorted(model.namedparams())])
    # one fused call per step (upward and lateral GEMMs and the cell)
    assert native_calls['lstm_step_forward'] == len(steps)
    assert native_calls['lstm_step_backward'] == len(steps)
    assert_close(results[1], results[0])


def test_lstm_link_steps_sum_weight_gradients_on_arrays(monkeypatch):
    # On NumPy arrays every step but the last finds its weights' gradients
    # summed so far and cannot add into them in place (views of the
    # kernel's buffers): the engine runs the step's array backward and adds
    # the sums itself (LSTMStep._accumulates_into says no), without a
    # gradient node and Add nodes on Variables - the same values bit for bit
    # as backward_accumulate's Variable sums, for the inputs (x given a
    # gradient) and every weight; debug mode too (it checks the arrays).
    from cpuframe.functions.rnn import lstm as lstm_module
    rng = numpy.random.default_rng(8)
    xs = [rng.standard_normal((2, 3)).astype(numpy.float32) for _ in range(4)]

    def run(debug=False):
        numpy.random.seed(3)
        model = L.LSTM(3, 5)
        model.cleargrads()  # (a new parameter's gradient is NaN-filled)
        vs = [Variable(x) for x in xs]
        with using_config('use_ideep', 'auto'), using_config('debug', debug):
            loss = sum(F.sum(model(v) * model.c) for v in vs)
            loss.backward()
        return [v.grad for v in vs] + [
            p.grad for _, p in sorted(model.namedparams())]

    applied = []
    real_apply = lstm_module.LSTMStepGrad.apply
    monkeypatch.setattr(lstm_module.LSTMStepGrad, 'apply',
                        lambda self, inputs: applied.append(1) or
                        real_apply(self, inputs))
    fast = run()
    debugged = run(debug=True)
    assert applied == []  # every step's backward ran on arrays
    monkeypatch.setattr(lstm_module.LSTMStep, '_accumulates_into',
                        lambda self, sums: True)
    slow = run()
    # the default's Variable backward at every step (the loss reads each
    # step's c, so even the last step finds a sum so far: its c_prev's)
    assert len(applied) == 4
    for f, s, d in zip(fast, slow, debugged):
        assert type(f) is numpy.ndarray and numpy.isfinite(f).all()
        numpy.testing.assert_array_equal(f, s)
        numpy.testing.assert_array_equal(d, f)
    monkeypatch.undo()
    monkeypatch.setattr(lstm_module.LSTMStepGrad, 'apply',
                        lambda self, inputs: applied.append(1) or
                        real_apply(self, inputs))

    # A function hook sees the gradient nodes and the sums: the Variable
    # backward.
    del applied[:]
    with SeenLabels() as hook:
        hooked = run()
    assert len(applied) == 4 and hook.labels.count('_ + _') >= 3
    for f, h in zip(fast, hooked):
        numpy.testing.assert_array_equal(h, f)
    with using_config('use_ideep', 'never'):
        numpy.random.seed(3)
        ref = L.LSTM(3, 5)
        ref.cleargrads()
        vs = [Variable(x) for x in xs]
        sum(F.sum(ref(v) * ref.c) for v in vs).backward()
        want = [v.grad for v in vs] + [p.grad for _, p in sorted(ref.namedparams())]
    assert_close(fast, want)


def _lstm_link_run(mode, device, steps, scale=1.0, poison=None):
    """Outputs and gradients of L.LSTM(3, 4) over ``steps`` (rows per step,
    the first call without h), the loss using h and the last c."""
    numpy.random.seed(1)
    model = L.LSTM(3, 4)
    rng = numpy.random.default_rng(6)
    xs = [(rng.standard_normal((b, 3)) * scale).astype(numpy.float32)
          for b in steps]
    if poison is not None:
        poison(model, xs)
    if device:
        model.to_device('@intel64')
    with using_config('use_ideep', mode):
        ys = [model(x) for x in xs]
        loss = sum(F.sum(y * y) for y in ys) + F.sum(model.c)
        model.cleargrads()
        loss.backward()
    return [numpy.asarray(y.array) for y in ys] + \
        [numpy.asarray(model.c.array)] + \
        [None if p.grad is None else numpy.asarray(p.grad)
         for _, p in sorted(model.namedparams())]


def _put_values(model, xs):
    # NaN, +-inf and huge values in the inputs and the weights
    xs[0][0, 0] = numpy.nan
    xs[1][1, 2] = numpy.inf
    xs[2][0, 1] = -numpy.inf
    xs[3][0, 0] = 3e38
    model.upward.W.array[5, 1] = 1e30
    model.lateral.W.array[2, 3] = -numpy.inf


@pytest.mark.parametrize('device', [False, True])
@pytest.mark.parametrize('steps,values', [
    ((3, 3, 2, 1), 'normal'), ((1, 1), 'normal'), ((5,), 'normal'),
    ((3, 3, 2, 1), 'large'), ((5,), 'large'), ((3, 3, 2, 1), 'nonfinite')])
def test_lstm_link_fused_step_under_auto_matches_numpy(
        device, steps, values, fused_steps, native_calls):
    # 'auto' takes the fused step (on one thread at this size); 'never' is
    # the unfused NumPy path.
    kwargs = {'normal': {}, 'large': {'scale': 1e4},
              'nonfinite': {'poison': _put_values}}[values]
    ref = _lstm_link_run('never', False, steps, **kwargs)
    assert not fused_steps and not native_calls
    got = _lstm_link_run('auto', device, steps, **kwargs)
    assert fused_steps == ['auto'] * len(steps)
    assert native_calls['lstm_step_forward'] == len(steps)
    assert native_calls['lstm_step_backward'] == len(steps)
    for g, r in zip(got, ref):
        if r is None:  # (one step: the lateral weights have no gradient)
            assert g is None
            continue
        assert g.shape == r.shape and g.dtype == numpy.float32
        numpy.testing.assert_allclose(g, r, rtol=2e-5, atol=2e-5 * max(
            1.0, float(numpy.abs(r[numpy.isfinite(r)]).max(initial=0))))


def _lstm_gradient_penalty(mode, device, batches=(3, 3, 2)):
    """A gradient penalty through three steps of L.LSTM (Chainer's
    WGAN-GP pattern): d/dW of |d loss / d x|^2, with the batch shrinking."""
    numpy.random.seed(7)
    model = L.LSTM(4, 5)
    rng = numpy.random.RandomState(8)
    xs = [Variable(rng.uniform(-1, 1, (b, 4)).astype(numpy.float32))
          for b in batches]
    if device:
        model.to_device('@intel64')
        for x in xs:
            x.to_device('@intel64')
    with using_config('use_ideep', mode):
        model.reset_state()
        loss = sum(F.sum(model(x) ** 2) for x in xs)
        gxs = cpuframe.grad([loss], xs, enable_double_backprop=True)
        penalty = sum(F.sum(g * g) for g in gxs)
        model.cleargrads()
        penalty.backward()
    return [numpy.asarray(g.array) for g in gxs], {
        n: numpy.asarray(p.grad) for n, p in model.namedparams()}


@pytest.fixture
def fused_steps(monkeypatch):
    """Records each fused L.LSTM step's forward (its ``use_ideep``)."""
    from cpuframe.functions.rnn.lstm import LSTMStep
    runs = []
    orig = LSTMStep.forward_intel64

    def wrapper(self, inputs):
        runs.append(cpuframe.config.use_ideep)
        return orig(self, inputs)
    monkeypatch.setattr(LSTMStep, 'forward_intel64', wrapper)
    return runs


@pytest.mark.parametrize('mode,device', [('auto', False), ('always', False),
                                         ('auto', True)])
def test_lstm_link_fused_step_double_backprop_matches_numpy(mode, device,
                                                            fused_steps):
    ref_gxs, ref = _lstm_gradient_penalty('never', False)
    assert not fused_steps
    gxs, got = _lstm_gradient_penalty(mode, device)
    assert fused_steps == [mode] * 3  # the fused step ran
    for g, r in zip(gxs, ref_gxs):
        numpy.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)
    assert got.keys() == ref.keys()
    for name in ref:
        numpy.testing.assert_allclose(got[name], ref[name], rtol=1e-3,
                                      atol=1e-4, err_msg=name)


# -- training ----------------------------------------------------------------------

class TinyLM(cpuframe.Chain):
    """A PTB-style language model: embed, 2-layer LSTM, linear."""

    def __init__(self, vocab, units, nstep):
        super().__init__()
        self.nstep = nstep
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units)
            if nstep:
                self.rnn = L.NStepLSTM(2, units, units, 0.0)
            else:
                self.l1 = L.LSTM(units, units)
                self.l2 = L.LSTM(units, units)
            self.out = L.Linear(units, vocab)

    def loss(self, tokens, targets):
        # tokens, targets: (seq, batch) int32
        seq, batch = tokens.shape
        if self.nstep:
            h = self.embed(tokens.T.reshape(-1))
            hy, cy, ys = self.rnn(None, None, list(F.split_axis(h, batch, 0)))
            y = self.out(F.concat(ys, axis=0))
            return F.softmax_cross_entropy(y, targets.T.reshape(-1))
        self.l1.reset_state()
        self.l2.reset_state()
        loss = 0
        for t in range(seq):
            h = self.l2(self.l1(self.embed(tokens[t])))
            loss += F.softmax_cross_entropy(self.out(h), targets[t])
        return loss / seq


@pytest.mark.parametrize('nstep', [False, True])
def test_ptb_style_model_trains_like_numpy(nstep):
    rng = numpy.random.default_rng(0)
    vocab, units, seq, batch = 30, 16, 6, 4
    # a learnable stream: mostly a fixed successor of each token, some noise
    corpus = (numpy.arange(400) * 7 % vocab).astype(numpy.int32)
    noise = rng.random(400) < 0.1
    corpus[noise] = rng.integers(0, vocab, int(noise.sum()))
    losses = {}
    for path in ('numpy', 'intel64'):
        numpy.random.seed(0)
        model = TinyLM(vocab, units, nstep)
        if path == 'intel64':
            model.to_intel64()
        opt = cpuframe.optimizers.SGD(lr=4.0)
        opt.setup(model)
        mode = 'always' if path == 'intel64' else 'never'
        curve = []
        with using_config('use_ideep', mode):
            for step in range(20):
                starts = (numpy.arange(batch) * 97 + step * seq) % (
                    len(corpus) - seq - 1)
                idx = starts[None, :] + numpy.arange(seq)[:, None]
                model.cleargrads()
                loss = model.loss(corpus[idx], corpus[idx + 1])
                loss.backward()
                opt.update()
                curve.append(float(numpy.asarray(loss.array)))
        losses[path] = numpy.array(curve)
    numpy.testing.assert_allclose(losses['intel64'], losses['numpy'],
                                  rtol=1e-3)
    assert losses['intel64'][-5:].mean() < losses['intel64'][:5].mean() - 0.3


# -- primitives and errors ------------------------------------------------------------

def test_steady_state_creates_no_primitives():
    dnnl = intel64.native()
    p = Problem('lstm', 2, True, [5, 3, 3, 1])
    p.run('always')
    before = dnnl.primitive_cache_stats()['creations']
    p.run('always')
    assert dnnl.primitive_cache_stats()['creations'] == before


def test_native_bad_input_raises():
    dnnl = intel64.native()
    x = numpy.zeros((5, 3), numpy.float32)
    h = numpy.zeros((3, 4), numpy.float32)
    w = numpy.zeros((16, 3), numpy.float32)
    wi = numpy.zeros((16, 4), numpy.float32)
    b = numpy.zeros((4, 4), numpy.float32)
    with pytest.raises(ValueError, match='rnn_forward'):  # rows != sum
        dnnl.rnn_forward('lstm', True, [2, 2], [x], [h], [h], [w], [wi], [b])
    with pytest.raises(ValueError, match='rnn_forward'):  # growing batch
        dnnl.rnn_forward('lstm', True, [2, 3], [x], [h], [h], [w], [wi], [b])
    with pytest.raises(ValueError, match='rnn_forward'):
        dnnl.rnn_forward('lstm', True, [3, 2], [x], [h], [h], [w[:8]], [wi],
                         [b])
    with pytest.raises(ValueError, match='rnn_forward'):
        dnnl.rnn_forward('peephole', True, [3, 2], [x], [h], [h], [w], [wi],
                         [b])
    with pytest.raises(TypeError, match='rnn_forward'):
        dnnl.rnn_forward('lstm', True, [3, 2], [x.astype(numpy.float64)],
                         [h], [h], [w], [wi], [b])
    t = intel64.from_numpy(numpy.arange(12, dtype=numpy.float32).reshape(4, 3))
    parts = dnnl.rnn_split_rows(t, [3, 1])
    assert [tuple(a.shape) for a in parts] == [(3, 3), (1, 3)]
    numpy.testing.assert_array_equal(numpy.asarray(parts[1]), [[9, 10, 11]])
    rows = dnnl.rnn_split_rows(t, [1] * 4, squeeze=True)
    assert [tuple(a.shape) for a in rows] == [(3,)] * 4
    with pytest.raises(ValueError, match='rnn_split_rows'):
        dnnl.rnn_split_rows(t, [2, 1])
    with pytest.raises(ValueError, match='rnn_split_rows'):
        dnnl.rnn_split_rows(t, [2, 2], squeeze=True)
    with pytest.raises(ValueError, match='lstm_cell_forward'):
        dnnl.lstm_cell_forward(numpy.zeros((2, 3), numpy.float32),
                               numpy.zeros((2, 5), numpy.float32))


def test_backward_under_never_after_routed_forward():
    # The oneDNN forward's workspace belongs to oneDNN: its backward runs
    # there whatever use_ideep says when backward is called.
    p = Problem('gru', 2, True, [3, 2, 2])
    ref = p.run('never')
    with using_config('use_ideep', 'always'):
        xs = [Variable(x) for x in p.xs]
        hy, _, ys = p.call(p.hx, p.cx, p.ws, p.bs, xs)
    with using_config('use_ideep', 'never'):
        rng = numpy.random.default_rng(1)
        loss = None
        for o in [hy] + list(ys):
            term = F.sum(o * rng.standard_normal(o.shape).astype(
                numpy.float32))
            loss = term if loss is None else loss + term
        loss.backward()
    n_w = len(p.ws) * N_WEIGHTS['gru']
    assert_close([x.grad for x in xs], ref[1][1:1 + len(xs)])
    assert len(ref[1]) == 1 + len(xs) + 2 * n_w


@pytest.mark.parametrize('special', [numpy.nan, numpy.inf, -numpy.inf, 1e30])
def test_non_finite_and_huge_inputs_match_numpy(special):
    # NaN must come out NaN (never clamped into a finite value), infinities
    # and huge values must saturate the gates as the NumPy path does.
    rng = numpy.random.default_rng(5)
    ws = [[(rng.standard_normal((4, 3 if j < 4 else 4)) * 0.5).astype(
        numpy.float32) for j in range(8)]]
    bs = [[rng.standard_normal(4).astype(numpy.float32) for _ in range(8)]]
    xs = [rng.standard_normal((2, 3)).astype(numpy.float32)
          for _ in range(3)]
    xs[0][0, 1] = special
    hx = numpy.zeros((1, 2, 4), numpy.float32)
    c = rng.standard_normal((2, 4)).astype(numpy.float32)
    x = rng.standard_normal((2, 16)).astype(numpy.float32)
    x[1, ::3] = special
    results = []
    for mode in ('never', 'always'):
        with using_config('use_ideep', mode):
            hy, cy, ys = F.n_step_lstm(1, 0.0, hx, hx, ws, bs, xs)
            cn, h = F.lstm(c, x)
            results.append([numpy.asarray(a.array)
                            for a in (hy, cy, ys[-1], cn, h)])
    for got, want in zip(results[1], results[0]):
        numpy.testing.assert_array_equal(numpy.isnan(got), numpy.isnan(want))
        finite = ~numpy.isnan(want)
        numpy.testing.assert_allclose(got[finite], want[finite], rtol=1e-4,
                                      atol=1e-5)


def test_stack_rows_is_concatenate():
    # The native stacking of a layer's gate matrices (on the OpenMP team
    # from 2**18 floats): every row in order, from ndarrays of any strides
    # and from mdarrays; NaN and inf copied as they are.
    stack = intel64.native().rnn_stack_rows
    rng = numpy.random.RandomState(0)
    for shapes in ([(3, 5)], [(650, 650)] * 4, [(1, 7), (300, 7), (2, 7)]):
        arrays = [rng.standard_normal(s).astype(numpy.float32) for s in shapes]
        arrays[0][0, 0] = numpy.nan
        arrays[-1][-1, -1] = -numpy.inf
        ref = numpy.concatenate(arrays, axis=0)
        got = numpy.asarray(stack(arrays))
        numpy.testing.assert_array_equal(got, ref)
        mixed = [intel64.mdarray.from_numpy(a) if i % 2 else a
                 for i, a in enumerate(arrays)]
        numpy.testing.assert_array_equal(numpy.asarray(stack(mixed)), ref)
    wide = rng.standard_normal((6, 8)).astype(numpy.float32)
    numpy.testing.assert_array_equal(numpy.asarray(stack([wide.T, wide.T[::2]])),
                                     numpy.concatenate([wide.T, wide.T[::2]]))
    with pytest.raises(ValueError, match='rnn_stack_rows: expected 2-D arrays with 5'):
        stack([numpy.zeros((2, 5), numpy.float32), numpy.zeros((2, 4), numpy.float32)])
    with pytest.raises(ValueError, match='rnn_stack_rows: expected at least one'):
        stack([])
    with pytest.raises(TypeError, match='rnn_stack_rows: expected arrays'):
        stack([numpy.zeros((2, 5), numpy.float64)])
