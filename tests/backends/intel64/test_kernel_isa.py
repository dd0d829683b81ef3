"""cpuframe's own vector kernels on every ISA this CPU runs (csrc/simd).

The LSTM gate passes and the fused softmax cross entropy are built for
AVX-512, AVX2 + FMA and scalar code; ``_dnnl.set_kernel_isa`` switches
between them in-process. Each ISA is checked against the NumPy path (widths
around the vector lengths 8 and 16, NaN, infinities, huge values), and the
ISAs against each other. ``CPUFRAME_MAX_CPU_ISA`` / ``ONEDNN_MAX_CPU_ISA``
are checked in fresh interpreters.
"""
import os
import subprocess
import sys
import warnings

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Variable, _isa
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

ORDER = ('scalar', 'avx2', 'avx512')


def _supported():
    mod = intel64.native()
    best = mod.kernel_isa_supported()
    return ORDER[:ORDER.index(best) + 1]


def _isas():
    # Collected before the conftest's skip applies: without the native module
    # every ISA is listed and the tests are skipped.
    try:
        return list(_supported())
    except Exception:  # noqa: BLE001 - no native module
        return list(ORDER)


@pytest.fixture(params=_isas())
def kernel_isa(request):
    mod = intel64.native()
    if request.param not in _supported():
        pytest.skip('this CPU has no {}'.format(request.param))
    before = mod.kernel_isa()
    mod.set_kernel_isa(request.param)
    yield request.param
    mod.set_kernel_isa(before)


def _cpu_flags():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('flags'):
                    return set(line.split(':', 1)[1].split())
    except OSError:
        pass
    return None


def test_supported_isa_matches_the_cpu():
    flags = _cpu_flags()
    if flags is None:
        pytest.skip('no /proc/cpuinfo')
    want = ('avx512' if 'avx512f' in flags else
            'avx2' if {'avx2', 'fma'} <= flags else 'scalar')
    assert intel64.native().kernel_isa_supported() == want


def test_set_kernel_isa_rejects_unknown_names():
    mod = intel64.native()
    before = mod.kernel_isa()
    with pytest.raises(ValueError,
                       match="expected 'avx512', 'avx2' or 'scalar', got 'sse2'"):
        mod.set_kernel_isa('sse2')
    assert mod.kernel_isa() == before


def test_set_kernel_isa_rejects_more_than_the_cpu_has():
    mod = intel64.native()
    best = mod.kernel_isa_supported()
    if best == 'avx512':
        pytest.skip('this CPU runs every ISA cpuframe builds')
    higher = ORDER[ORDER.index(best) + 1]
    with pytest.raises(ValueError, match='runs at most'):
        mod.set_kernel_isa(higher)
    assert mod.kernel_isa() == best


# -- softmax cross entropy ----------------------------------------------------

WIDTHS = [1, 7, 8, 9, 15, 16, 17, 33, 1000]


def _sce(x, t, mode):
    with using_config('use_ideep', mode):
        xv = Variable(x.copy())
        loss = F.softmax_cross_entropy(xv, t, reduce='no')
        F.sum(loss * numpy.linspace(0.5, 1.5, len(t)).astype(
            numpy.float32)).backward()
        return numpy.asarray(loss.array), numpy.asarray(xv.grad)


def _assert_match(got, want, rtol=2e-6, atol=1e-6):
    numpy.testing.assert_array_equal(numpy.isnan(got), numpy.isnan(want))
    finite = ~numpy.isnan(want)
    numpy.testing.assert_allclose(got[finite], want[finite], rtol=rtol,
                                  atol=atol)


@pytest.mark.parametrize('c', WIDTHS)
def test_softmax_cross_entropy_matches_numpy(kernel_isa, c):
    rng = numpy.random.default_rng(c)
    x = (rng.standard_normal((6, c)) * 4).astype(numpy.float32)
    x[1] -= 90.0          # exp underflow in every lane below the max
    x[2] *= 30.0          # scores far apart
    t = rng.integers(0, c, 6).astype(numpy.int32)
    got = _sce(x, t, 'always')
    want = _sce(x, t, 'never')
    for g, w in zip(got, want):
        _assert_match(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
@pytest.mark.parametrize('special', [numpy.nan, numpy.inf, -numpy.inf, 3e38])
@pytest.mark.parametrize('c', [9, 17])
def test_softmax_cross_entropy_non_finite(kernel_isa, special, c):
    # The special value sits in a vector's last lane and in a partial tail.
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((3, c)).astype(numpy.float32)
    x[0, 7] = special
    x[1, c - 1] = special
    t = numpy.array([0, 2, 1], numpy.int32)
    got = _sce(x, t, 'always')
    want = _sce(x, t, 'never')
    for g, w in zip(got, want):
        _assert_match(g, w, rtol=1e-5, atol=1e-6)


# -- LSTM gate passes -----------------------------------------------------------

def _lstm(units, special=None, seed=0):
    rng = numpy.random.default_rng(seed)
    in_size, lengths = 5, [4, 3, 3, 1]
    batches = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    xs = [(rng.standard_normal((b, in_size)) * 2).astype(numpy.float32)
          for b in batches]
    if special is not None:
        xs[0][0, 1] = special
    hx = rng.standard_normal((1, 4, units)).astype(numpy.float32)
    cx = rng.standard_normal((1, 4, units)).astype(numpy.float32)
    ws = [[(rng.standard_normal((units, in_size if j < 4 else units)) * 0.7
            ).astype(numpy.float32) for j in range(8)]]
    bs = [[(rng.standard_normal(units) * 0.5).astype(numpy.float32)
           for _ in range(8)]]
    return xs, hx, cx, ws, bs


def _run_lstm(problem, mode):
    xs, hx, cx, ws, bs = problem
    with using_config('use_ideep', mode):
        vs = [Variable(x.copy()) for x in xs]
        h, c = Variable(hx.copy()), Variable(cx.copy())
        wv = [[Variable(w.copy()) for w in ws[0]]]
        hy, cy, ys = F.n_step_lstm(1, 0.0, h, c, wv, bs, vs)
        rng = numpy.random.default_rng(3)
        loss = F.sum(hy * rng.standard_normal(hy.shape).astype(numpy.float32))
        loss = loss + F.sum(cy * rng.standard_normal(cy.shape).astype(
            numpy.float32))
        for y in ys:
            loss = loss + F.sum(y * rng.standard_normal(y.shape).astype(
                numpy.float32))
        loss.backward()
        arrays = [hy.array, cy.array] + [y.array for y in ys]
        grads = [h.grad, c.grad] + [v.grad for v in vs] + [w.grad for w in wv[0]]
        return [numpy.asarray(a) for a in arrays + grads]


@pytest.mark.parametrize('units', [1, 7, 8, 9, 16, 17, 33])
def test_n_step_lstm_matches_numpy(kernel_isa, units):
    problem = _lstm(units, seed=units)
    got = _run_lstm(problem, 'always')
    want = _run_lstm(problem, 'never')
    for g, w in zip(got, want):
        scale = max(1.0, float(numpy.abs(w).max()))
        numpy.testing.assert_allclose(g, w, rtol=5e-5, atol=5e-5 * scale)


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
@pytest.mark.parametrize('special', [numpy.nan, numpy.inf, -numpy.inf, 1e30])
def test_n_step_lstm_non_finite(kernel_isa, special):
    problem = _lstm(17, special=special, seed=2)
    got = _run_lstm(problem, 'always')[:6]    # outputs (gradients: NaN anyway)
    want = _run_lstm(problem, 'never')[:6]
    for g, w in zip(got, want):
        _assert_match(g, w, rtol=1e-4, atol=1e-5)


def test_isas_agree_with_each_other():
    # The same polynomials on every ISA: results within a few ulp.
    mod = intel64.native()
    isas = _supported()
    if len(isas) < 2:
        pytest.skip('only one ISA on this CPU')
    before = mod.kernel_isa()
    rng = numpy.random.default_rng(7)
    x = (rng.standard_normal((16, 37)) * 5).astype(numpy.float32)
    t = rng.integers(0, 37, 16).astype(numpy.int32)
    problem = _lstm(23, seed=4)
    results = {}
    try:
        for isa in isas:
            mod.set_kernel_isa(isa)
            results[isa] = list(_sce(x, t, 'always')) + _run_lstm(problem, 'always')
    finally:
        mod.set_kernel_isa(before)
    base = results[isas[0]]
    for isa in isas[1:]:
        for g, w in zip(results[isa], base):
            numpy.testing.assert_allclose(g, w, rtol=3e-6, atol=3e-6)


# -- the environment ------------------------------------------------------------

@pytest.mark.parametrize('environ, want', [
    ({}, (None, 'the CPU')),
    ({'CPUFRAME_MAX_CPU_ISA': 'AVX2'}, ('avx2', 'CPUFRAME_MAX_CPU_ISA=AVX2')),
    ({'CPUFRAME_MAX_CPU_ISA': 'scalar'}, ('scalar', 'CPUFRAME_MAX_CPU_ISA=scalar')),
    ({'ONEDNN_MAX_CPU_ISA': 'AVX2'}, ('avx2', 'ONEDNN_MAX_CPU_ISA=AVX2')),
    ({'ONEDNN_MAX_CPU_ISA': 'AVX2_VNNI'}, ('avx2', 'ONEDNN_MAX_CPU_ISA=AVX2_VNNI')),
    ({'ONEDNN_MAX_CPU_ISA': 'SSE41'}, ('scalar', 'ONEDNN_MAX_CPU_ISA=SSE41')),
    ({'ONEDNN_MAX_CPU_ISA': 'AVX512_CORE_AMX'},
     ('avx512', 'ONEDNN_MAX_CPU_ISA=AVX512_CORE_AMX')),
    ({'CPUFRAME_MAX_CPU_ISA': 'avx2', 'ONEDNN_MAX_CPU_ISA': 'ALL'},
     ('avx2', 'CPUFRAME_MAX_CPU_ISA=avx2')),
])
def test_cap_from_the_environment(environ, want):
    assert _isa.cap(dict(environ)) == want


@pytest.mark.parametrize('ours, theirs, want', [
    ('avx2', None, 'AVX2'),
    ('scalar', None, 'SSE41'),
    ('avx512', None, None),
    ('avx2', 'AVX512_CORE', 'AVX512_CORE'),   # the user's setting is kept
    (None, None, None),
])
def test_apply_passes_the_limit_to_onednn(ours, theirs, want):
    env = {}
    if ours:
        env['CPUFRAME_MAX_CPU_ISA'] = ours
    if theirs:
        env['ONEDNN_MAX_CPU_ISA'] = theirs
    _isa.apply(env)
    assert env.get('ONEDNN_MAX_CPU_ISA') == want


def test_unknown_value_warns_and_is_ignored():
    env = {'CPUFRAME_MAX_CPU_ISA': 'avx1024'}
    with pytest.warns(RuntimeWarning, match=r"CPUFRAME_MAX_CPU_ISA: expected "
                      r".*'avx2'.* got 'avx1024'"):
        _isa.apply(env)
    assert 'ONEDNN_MAX_CPU_ISA' not in env
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert _isa.cap(env) == (None, 'the CPU')


def _fresh(env_extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ('CPUFRAME_MAX_CPU_ISA', 'ONEDNN_MAX_CPU_ISA')}
    env.update(env_extra)
    code = ('import cpuframe; from cpuframe.backends import intel64; '
            'm = intel64.native(); print(m.kernel_isa(), m.isa()); '
            'cpuframe.print_runtime_info()')
    out = subprocess.run([sys.executable, '-c', code], env=env, cwd='/',
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines()
             if ln.split(' ')[0] in ORDER or ln.startswith('Kernel ISA')]
    return lines[0].split(), lines[-1]


@pytest.mark.parametrize('env, kernels, onednn_prefix', [
    ({'CPUFRAME_MAX_CPU_ISA': 'avx2'}, 'avx2', 'avx2'),
    ({'CPUFRAME_MAX_CPU_ISA': 'scalar'}, 'scalar', 'sse41'),
    ({'ONEDNN_MAX_CPU_ISA': 'AVX2'}, 'avx2', 'avx2'),
])
def test_environment_limits_both_in_a_fresh_process(env, kernels, onednn_prefix):
    if kernels not in _supported():
        pytest.skip('this CPU has no {}'.format(kernels))
    (got_kernels, got_onednn), info = _fresh(env)
    assert got_kernels == kernels
    assert got_onednn.startswith(onednn_prefix)
    var, value = next(iter(env.items()))
    assert info == 'Kernel ISA:     {} (from {}={}; the CPU supports {})'.format(
        kernels, var, value, intel64.native().kernel_isa_supported())


# -- the range check (all_within / has_nan / all_finite) ---------------------------

def _within_reference(a, low, high):
    return bool(numpy.all((a >= low) & (a <= high)))


@pytest.mark.parametrize('n', [1, 7, 8, 15, 16, 17, 127, 128, 129, 1000,
                               (1 << 20) + 3])
def test_all_within_matches_numpy_on_each_isa(kernel_isa, n):
    # Every position of a bad value (block starts and ends, the scalar tail;
    # past 2**20 floats the check is split over the OpenMP team).
    mod = intel64.native()
    rng = numpy.random.RandomState(n)
    base = rng.uniform(-2, 2, n).astype(numpy.float32)
    assert mod.all_within(base, -2.0, 2.0)
    assert mod.all_within(base, -1.0, 1.0) == _within_reference(base, -1, 1)
    positions = sorted({0, n // 2, n - 1, max(n - 9, 0), min(127, n - 1)})
    for bad in (numpy.nan, numpy.inf, -numpy.inf, 3e38, -3.0, 2.5):
        for p in positions:
            a = base.copy()
            a[p] = bad
            for low, high in ((-2.0, 2.0), (-numpy.inf, numpy.inf),
                              (-3.4028235e38, 3.4028235e38)):
                assert mod.all_within(a, low, high) == \
                    _within_reference(a, low, high), (bad, p, low, high)
            assert mod.has_nan(a) == bool(numpy.isnan(bad))


def test_all_within_bounds_inclusive_and_low_above_zero(kernel_isa):
    # A lower bound above 0 must not be met by the zeros a masked load
    # would put in a partial vector: the tail is checked element by element.
    mod = intel64.native()
    for n in (5, 16, 21, 133):
        a = numpy.full(n, 0.5, numpy.float32)
        assert mod.all_within(a, 0.5, 0.5)
        assert not mod.all_within(a, 0.6, 1.0)
        a[-1] = 0.25
        assert not mod.all_within(a, 0.5, 1.0)


def test_all_within_reads_mdarray_physical_buffer(kernel_isa):
    mod = intel64.native()
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 16, 5, 5)).astype(
        numpy.float32)
    m = intel64.mdarray.from_numpy(x)
    assert mod.all_within(m, -1.0, 1.0)
    x[1, 3, 2, 2] = numpy.nan
    assert not mod.all_within(intel64.mdarray.from_numpy(x), -1.0, 1.0)
