"""The bfloat16 mixed mode (``config.dtype = cpuframe.mixed_bf16``).

Every bf16 route is checked against the NumPy path of the same mode (the
reference: the same declared inputs and outputs rounded to bf16 with
ml_dtypes, float32 in between). Both read identical bf16 values and
accumulate in float32, so they differ by summation order alone: an output
may land on the other side of a bf16 rounding boundary, one unit in the
last place (2**-8 relative), and a gradient that sums such values a few
units more. Tolerances below say which.
"""
import os
import pickle
import subprocess
import sys
import warnings

import ml_dtypes
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import _bf16
from cpuframe.backends import intel64

ULP = 2.0 ** -7  # bf16's ulp relative to a value: 2**-8 to 2**-7
needs_native = pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='needs the native module')
needs_bf16 = pytest.mark.skipif(
    not intel64.is_ideep_available() or
    intel64.bf16_support()['mode'] == 'float32 fallback',
    reason='needs oneDNN bf16 primitives on this CPU')


def ref_round(x):
    """bf16 as the CPU converts: to nearest even, subnormals to zero."""
    r = numpy.asarray(x, numpy.float32).astype(
        ml_dtypes.bfloat16).astype(numpy.float32)
    tiny = numpy.finfo(numpy.float32).tiny
    return numpy.where(numpy.abs(r) < tiny, numpy.copysign(0, r),
                       r).astype(numpy.float32)


# -- the specifier ---------------------------------------------------------

def test_specifier_is_float32_storage():
    assert numpy.dtype(cpuframe.mixed_bf16) == numpy.float32
    assert repr(cpuframe.mixed_bf16) == "dtype('mixed_bf16')"
    assert pickle.loads(pickle.dumps(cpuframe.mixed_bf16)) is \
        cpuframe.mixed_bf16
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        assert cpuframe.get_dtype() == numpy.float32
        assert cpuframe.get_dtype(map_mixed16=numpy.float16) == \
            numpy.float32
        # links build float32 parameters: the master weights
        assert L.Linear(3, 2).W.dtype == numpy.float32
    assert cpuframe.config.dtype is not cpuframe.mixed_bf16


@pytest.mark.parametrize('var', ['CPUFRAME_DTYPE', 'CHAINER_DTYPE'])
def test_environment_selects_the_mode(var):
    env = dict(os.environ, **{var: 'mixed_bf16'})
    env.pop('CPUFRAME_DTYPE' if var == 'CHAINER_DTYPE' else 'CHAINER_DTYPE',
            None)
    out = subprocess.run(
        [sys.executable, '-c',
         'import cpuframe; print(cpuframe.config.dtype is cpuframe.mixed_bf16)'],
        env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == 'True'


def test_environment_rejects_unknown_names():
    env = dict(os.environ, CPUFRAME_DTYPE='bfloat17')
    r = subprocess.run([sys.executable, '-c', 'import cpuframe'], env=env,
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert 'mixed_bf16' in r.stderr and 'bfloat17' in r.stderr


def test_runtime_info_reports_bf16():
    info = cpuframe.get_runtime_info() if hasattr(
        cpuframe, 'get_runtime_info') else None
    if info is None:
        from cpuframe._runtime_info import get_runtime_info
        info = get_runtime_info()
    line = [s for s in info.splitlines() if s.startswith('bfloat16:')]
    assert len(line) == 1
    mode = intel64.bf16_support()['mode']
    expect = {'native': 'native', 'emulated': 'emulated',
              'float32 fallback': 'float32',
              'numpy reference': 'NumPy path'}[mode]
    assert expect in line[0]


# -- rounding ----------------------------------------------------------------

SPECIAL = numpy.array(
    [0.0, -0.0, 1.0, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -(1.0 + 2 ** -8),
     3.0e38, -3.0e38, 3.4028235e38, 1e-40, -1e-45, numpy.inf, -numpy.inf,
     numpy.nan, 65504.0, 0.1], numpy.float32)


def test_reference_rounding_is_round_to_nearest_even():
    r = _bf16.round_array(SPECIAL)
    assert r.dtype == numpy.float32
    assert r[3] == 1.0                      # tie: to even
    assert r[4] == 1.0 + 4 * 2 ** -8        # tie: to even (up)
    assert r[5] == -1.0
    assert numpy.isposinf(r[8])             # float32's max rounds up to inf
    assert numpy.isinf(r[11]) and numpy.isinf(r[12]) and numpy.isnan(r[13])
    assert r[9] == 0 and r[10] == 0 and numpy.signbit(r[10])  # subnormals
    assert _bf16.round_array(None) is None
    ints = numpy.arange(3)
    assert _bf16.round_array(ints) is ints


@needs_native
def test_native_conversion_matches_the_reference():
    rng = numpy.random.RandomState(0)
    x = numpy.concatenate([SPECIAL, rng.standard_normal(4096).astype(
        numpy.float32) * 10.0 ** rng.randint(-30, 30, 4096)]).astype(
            numpy.float32)
    t = intel64.native().to_bfloat16(x)
    assert t.storage_dtype == 'bfloat16' and t.dtype == numpy.float32
    numpy.testing.assert_array_equal(numpy.asarray(t), ref_round(x))
    assert intel64.native().to_bfloat16(t) is t
    back = intel64.native().to_float32(t)
    assert back.storage_dtype == 'float32'
    numpy.testing.assert_array_equal(numpy.asarray(back), ref_round(x))


@needs_native
def test_bf16_mdarray_protocols_go_through_float32():
    native = intel64.native()
    x = native.to_bfloat16(numpy.linspace(-1, 1, 12, dtype=numpy.float32)
                           .reshape(3, 4))
    v = numpy.asarray(x)
    assert v.dtype == numpy.float32
    numpy.testing.assert_array_equal(numpy.asarray(x + 1), v + 1)
    x[0, 0] = 5.0
    assert numpy.asarray(x)[0, 0] == 5.0        # written, not lost
    x.fill(0.1)
    numpy.testing.assert_array_equal(numpy.asarray(x),
                                     numpy.full((3, 4), ref_round(0.1)))
    now = numpy.asarray(x)
    s = x + x                                   # a gradient sum stays bf16
    assert s.storage_dtype == 'bfloat16'
    numpy.testing.assert_array_equal(numpy.asarray(s), ref_round(now + now))
    x += 1
    assert x.storage_dtype == 'bfloat16'
    numpy.testing.assert_array_equal(numpy.asarray(x),
                                     ref_round(ref_round(0.1) + 1))
    assert x.astype(numpy.float32).storage_dtype == 'float32'
    with pytest.raises(TypeError, match='float32'):
        x.raw_view()
    restored = pickle.loads(pickle.dumps(x))
    numpy.testing.assert_array_equal(numpy.asarray(restored),
                                     numpy.asarray(x))


@needs_native
def test_float32_kernels_read_bf16_converted():
    # A route with float32 kernels only (has_nan here) converts bf16
    # inputs instead of reading their bits as floats.
    native = intel64.native()
    x = native.to_bfloat16(numpy.array([1.0, numpy.nan], numpy.float32))
    assert native.has_nan(x)
    assert not native.has_nan(native.to_bfloat16(
        numpy.array([1.0, 2.0], numpy.float32)))


@needs_native
def test_accumulators_refuse_bf16_storage():
    native = intel64.native()
    acc = native.to_bfloat16(numpy.zeros((3, 2), numpy.float32))
    x = numpy.ones((4, 2), numpy.float32)
    gy = numpy.ones((4, 3), numpy.float32)
    with pytest.raises(ValueError, match='plain row-major'):
        native.linear_backward_weights(x, gy, False, None, acc)


# -- route parity ------------------------------------------------------------

def _run(route, f, inputs, gys_seed=1):
    """Forward and backward of f in the mode on one route: outputs and the
    inputs' gradients as float32 NumPy arrays, plus storage dtypes."""
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
            cpuframe.using_config('use_ideep', route):
        # On the device for the intel64 route, as after model.to_intel64()
        xs = [cpuframe.Variable(intel64.from_numpy(x) if route == 'always'
                                else x.copy()) for x in inputs]
        y = f(*xs)
        rng = numpy.random.RandomState(gys_seed)
        y.grad = rng.standard_normal(y.shape).astype(numpy.float32)
        y.backward()
        storage = getattr(y.array, 'storage_dtype', 'numpy')
        return (numpy.asarray(y.array),
                [numpy.asarray(x.grad) if x.grad is not None else None
                 for x in xs], storage)


def _close(a, b, ulps, what):
    """|a - b| <= ulps bf16 ulps of the largest magnitude (NaN/inf equal)."""
    numpy.testing.assert_array_equal(numpy.isnan(a), numpy.isnan(b), what)
    fin = numpy.isfinite(a) & numpy.isfinite(b)
    numpy.testing.assert_array_equal(a[~fin & ~numpy.isnan(a)],
                                     b[~fin & ~numpy.isnan(b)], what)
    if fin.any():
        scale = max(float(numpy.abs(a[fin]).max()), 1e-30)
        err = float(numpy.abs(a[fin] - b[fin]).max())
        assert err <= ulps * ULP * scale, '{}: {} > {} ulps of {}'.format(
            what, err, ulps, scale)


def _mostly_equal(a, b, what, frac=0.1):
    """All but a few elements equal up to float32 summation noise (2e-4 of
    the largest magnitude; a bias gradient sums many terms): the routes
    round at the same points. One computing in float32 where the other
    rounds differs almost everywhere by ~2**-9, within _close's
    tolerance."""
    fin = numpy.isfinite(a) & numpy.isfinite(b)
    scale = max(float(numpy.abs(b[fin]).max()), 1e-30) if fin.any() else 1
    off = numpy.abs(a[fin] - b[fin]) > 2e-4 * scale
    assert off.mean() <= frac, '{}: {:.0%} of the elements differ'.format(
        what, off.mean())


def _rand(shape, seed=0, scale=1.0):
    return (numpy.random.RandomState(seed).standard_normal(shape) *
            scale).astype(numpy.float32)


def _conv_case(stride, pad, groups, dilate, nobias):
    x = _rand((2, 8, 9, 9))
    W = _rand((12, 8 // groups, 3, 3), 1, 0.3)
    b = None if nobias else _rand((12,), 2)
    ins = (x, W) if nobias else (x, W, b)

    def f(x, W, b=None):
        return F.convolution_2d(x, W, b, stride=stride, pad=pad,
                                groups=groups, dilate=dilate)
    return f, ins


CONV_OPTIONS = [(1, 1, 1, 1, False), (2, 0, 1, 1, True), (1, 2, 2, 2, False),
                (3, 1, 4, 1, False)]


def _cases():
    cases = []
    for opt in CONV_OPTIONS:
        cases.append(('conv{}'.format(opt),) + _conv_case(*opt))
    for stride, pad, nobias in [(1, 0, False), (2, 1, True)]:
        W = _rand((8, 6, 3, 3), 3, 0.3)
        b = None if nobias else _rand((6,), 4)
        ins = (_rand((2, 8, 5, 5)), W) + (() if nobias else (b,))
        cases.append(('deconv{}'.format((stride, pad, nobias)),
                      lambda x, W, b=None, s=stride, p=pad:
                      F.deconvolution_2d(x, W, b, stride=s, pad=p), ins))
    for nobias in (False, True):
        ins = (_rand((16, 40)), _rand((24, 40), 5, 0.2)) + \
            (() if nobias else (_rand((24,), 6),))
        cases.append(('linear{}'.format(nobias), F.linear, ins))
    for k, s, p in [(2, 2, 0), (3, 2, 1), (3, 1, 1)]:
        cases.append(('max_pool{}'.format((k, s, p)),
                      lambda x, k=k, s=s, p=p: F.max_pooling_2d(
                          x, k, s, p, cover_all=False), (_rand((2, 8, 8, 8)),)))
        cases.append(('avg_pool{}'.format((k, s, p)),
                      lambda x, k=k, s=s, p=p: F.average_pooling_2d(x, k, s, p),
                      (_rand((2, 8, 8, 8)),)))
    cases.append(('relu', F.relu, (_rand((4, 8, 5, 5)),)))
    for name, fn in [('tanh', F.tanh), ('sigmoid', F.sigmoid),
                     ('elu', lambda x: F.elu(x, 0.5)),
                     ('elu1', lambda x: F.elu(x, 1.0)),
                     ('leaky_relu', lambda x: F.leaky_relu(x, 0.1)),
                     ('leaky_relu_neg', lambda x: F.leaky_relu(x, -0.3))]:
        cases.append((name, fn, (_rand((4, 8, 5, 5), 0, 2.0),)))
    cases.append(('bn_train', lambda x, g, b: F.batch_normalization(x, g, b),
                  (_rand((8, 6, 4, 4), 0, 3.0) + 1, _rand((6,), 1) + 1,
                   _rand((6,), 2))))
    cases.append(('bn_2d', lambda x, g, b: F.batch_normalization(x, g, b),
                  (_rand((16, 10)), _rand((10,), 1) + 1, _rand((10,), 2))))
    mean, var = _rand((6,), 3), numpy.abs(_rand((6,), 4)) + 0.5
    cases.append(('bn_fixed', lambda x, g, b: F.fixed_batch_normalization(
        x, g, b, mean, var), (_rand((4, 6, 3, 3)), _rand((6,), 1),
                              _rand((6,), 2))))
    for axis in (1, 2):
        cases.append(('concat{}'.format(axis),
                      lambda a, b, axis=axis: F.concat([a, b], axis=axis),
                      (_rand((2, 4, 6, 6)), _rand((2, 4, 6, 6), 1))))
    # LRN as AlexNet and GoogLeNet use it, and Chainer's defaults; 3-D and
    # an even n; a 16-channel input takes the blocked layouts
    for shape, kw in [((2, 16, 6, 6), dict(n=5, k=2, alpha=1e-4, beta=.75)),
                      ((2, 16, 6, 6), dict(n=5, k=1, alpha=2e-5 * 5,
                                           beta=.75)),
                      ((2, 7, 9), dict(n=4, k=1.5, alpha=0.05, beta=0.6))]:
        cases.append(('lrn{}'.format(len(shape)) + str(kw['n']),
                      lambda x, kw=kw: F.local_response_normalization(
                          x, **kw), (_rand(shape, 0, 3.0),)))
    # as in ResNet: the sum goes on to a relu (see
    # test_add_of_bf16_activations_is_stored_bf16 for the sum itself)
    cases.append(('residual', lambda x, W: F.relu(F.relu(
        F.convolution_2d(x, W, pad=1)) + x),
        (ref_round(_rand((2, 8, 6, 6))), _rand((8, 8, 3, 3), 1, 0.3))))
    return cases


CASES = _cases()

# Routes whose gradient is not rounded at the same points as the reference
# (within _close's ulps, but not almost everywhere float32-equal):
# - oneDNN's bf16 LRN backward (lrn_jit:avx512_core_bf16) reads
#   intermediates its forward kept in a bf16 workspace: up to 2 ulps apart
#   in about a third of the elements;
# - residual: x's gradient is the sum of two bf16 gradients, stored bf16 on
#   the route (see test_add_of_bf16_activations_is_stored_bf16).
ROUNDS_DIFFERENTLY = {'lrn': 'grad', 'residual': 'grad'}


@needs_bf16
@pytest.mark.parametrize('name,f,inputs', CASES, ids=[c[0] for c in CASES])
def test_route_matches_reference(name, f, inputs):
    y_ref, g_ref, _ = _run('never', f, inputs)
    y, g, storage = _run('always', f, inputs)
    assert storage == 'bfloat16', name      # activations stay bf16
    # One rounding of a float32 sum: at most one ulp apart.
    _close(y_ref, y, 1, name + ' y')
    _mostly_equal(y_ref, y, name + ' y')
    for i, (a, b) in enumerate(zip(g_ref, g)):
        if a is None:
            assert b is None
            continue
        # Gradients add a few bf16-rounded terms (e.g. the gradient
        # accumulation of a residual branch): a few ulps.
        _close(a, b, 4, '{} grad {}'.format(name, i))
        if not any(name.startswith(k) and v == 'grad'
                   for k, v in ROUNDS_DIFFERENTLY.items()):
            _mostly_equal(a, b, '{} grad {}'.format(name, i))


@needs_bf16
@pytest.mark.parametrize('name', ['relu', 'tanh', 'sigmoid', 'elu', 'elu1',
                                  'leaky_relu', 'leaky_relu_neg', 'lrn45'])
def test_gradients_stay_bf16(name):
    # backward computes in bf16 too: a bf16 gy gives a bf16 gx
    f, ins = next((c[1], c[2]) for c in CASES if c[0] == name)
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
            cpuframe.using_config('use_ideep', 'always'):
        x = cpuframe.Variable(intel64.from_numpy(ins[0]))
        y = f(x)
        y.grad = intel64.native().to_bfloat16(
            numpy.ones(y.shape, numpy.float32))
        y.backward()
    assert x.grad.storage_dtype == 'bfloat16'


@needs_bf16
def test_reference_rounds_where_the_route_does():
    # The reference is not float32: a convolution's output differs from
    # the float32 result by bf16 rounding, and equals it rounded from
    # rounded inputs.
    f, ins = _conv_case(1, 1, 1, 1, False)
    y_bf, _, _ = _run('never', f, ins)
    with cpuframe.using_config('use_ideep', 'never'):
        y32 = f(*ins).array
        y_from_rounded = f(ref_round(ins[0]), ref_round(ins[1]), ins[2]).array
    assert numpy.abs(y_bf - y32).max() > 0
    _close(ref_round(y_from_rounded), y_bf, 1, 'reference')


@needs_bf16
@pytest.mark.parametrize('values', ['nan', 'inf', 'huge'])
def test_special_values_match(values):
    x = _rand((2, 8, 6, 6))
    x[0, 1, 2, 3] = {'nan': numpy.nan, 'inf': numpy.inf,
                     'huge': 3.0e38}[values]
    x[1, 2, 0, 0] = {'nan': -numpy.nan, 'inf': -numpy.inf,
                     'huge': -3.0e38}[values]
    for name, f in [('relu', F.relu),
                    ('avg_pool', lambda x: F.average_pooling_2d(x, 2)),
                    ('max_pool', lambda x: F.max_pooling_2d(x, 2)),
                    ('conv', lambda x: F.convolution_2d(
                        x, numpy.full((3, 8, 1, 1), 0.5, numpy.float32)))]:
        with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
            with cpuframe.using_config('use_ideep', 'never'):
                a = numpy.asarray(f(x).array)
            with cpuframe.using_config('use_ideep', 'always'):
                b = numpy.asarray(f(x).array)
        _close(a, b, 1, '{} with {}'.format(name, values))


# -- the mode around the routes ---------------------------------------------

class _Net(cpuframe.Chain):
    def __init__(self, n_out=10, ch=16):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, ch, 3, pad=1)
            self.bn1 = L.BatchNormalization(ch)
            self.conv2 = L.Convolution2D(ch, ch, 3, pad=1)
            self.fc1 = L.Linear(ch * 4 * 4, 64)
            self.fc2 = L.Linear(64, n_out)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pooling_2d(h + F.relu(self.conv2(h)), 2)
        return self.fc2(F.relu(self.fc1(h)))


@needs_bf16
def test_activations_stay_bf16_and_masters_float32():
    numpy.random.seed(0)
    model = _Net()
    model.to_intel64()
    opt = cpuframe.optimizers.MomentumSGD(0.01).setup(model)
    x = _rand((8, 1, 8, 8))
    t = numpy.arange(8).astype(numpy.int32)
    seen = []

    class Record(cpuframe.FunctionHook):
        name = 'record'

        def forward_postprocess(self, function, in_data):
            pass

    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        h1 = model.bn1(model.conv1(x))
        seen.append(h1.array.storage_dtype)
        h2 = F.relu(h1)
        seen.append(h2.array.storage_dtype)
        y = model(x)
        seen.append(y.array.storage_dtype)
        loss = F.softmax_cross_entropy(y, t)
        assert loss.array.dtype == numpy.float32   # the loss in float32
        model.cleargrads()
        loss.backward()
        opt.update()
    assert seen == ['bfloat16'] * 3
    for name, p in model.namedparams():
        assert p.array.storage_dtype == 'float32', name
        assert getattr(p.grad, 'storage_dtype', 'float32') == 'float32', name
    assert model.bn1.avg_mean.dtype == numpy.float32


@needs_bf16
def test_serialization_saves_float32_masters(tmp_path):
    numpy.random.seed(0)
    model = _Net()
    model.to_intel64()
    opt = cpuframe.optimizers.Adam().setup(model)
    x = _rand((8, 1, 8, 8))
    t = numpy.arange(8).astype(numpy.int32)
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
    path = str(tmp_path / 'm.npz')
    cpuframe.serializers.save_npz(path, model)
    with numpy.load(path) as f:
        assert {k for k in f.files if f[k].dtype != numpy.float32} == \
            {'bn1/N'}   # (a counter)
        w = f['conv1/W']
    # the update used float32 masters: not representable in bf16 any more
    assert (ref_round(w) != w).any()
    fresh = _Net()
    cpuframe.serializers.load_npz(path, fresh)
    numpy.testing.assert_array_equal(fresh.conv1.W.array,
                                     numpy.asarray(model.conv1.W.array))


@needs_native
def test_fallback_computes_float32_and_warns_once(monkeypatch):
    monkeypatch.setattr(_bf16, '_support', {
        'mode': 'float32 fallback', 'isa': 'avx2', 'amx': False,
        'native': False})
    monkeypatch.setattr(_bf16, '_warned', False)
    f, ins = _conv_case(1, 1, 1, 1, False)
    ins = [intel64.from_numpy(x) for x in ins]
    with cpuframe.using_config('use_ideep', 'always'):
        y32 = numpy.asarray(f(*ins).array)
        with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
            with pytest.warns(_bf16.MixedBF16FallbackWarning, match='float32'):
                y = f(*ins).array
            with warnings.catch_warnings():
                warnings.simplefilter('error')
                f(*ins)                       # once per process
    assert y.storage_dtype == 'float32'
    numpy.testing.assert_array_equal(numpy.asarray(y), y32)


# -- training ----------------------------------------------------------------

def _train_digits(dtype, route, epochs=6):
    from cpuframe.datasets import get_digits
    train, test = get_digits()
    xs = numpy.stack([x for x, _ in train]).reshape(-1, 1, 8, 8)
    ts = numpy.array([t for _, t in train], numpy.int32)
    xt = numpy.stack([x for x, _ in test]).reshape(-1, 1, 8, 8)
    tt = numpy.array([t for _, t in test], numpy.int32)
    numpy.random.seed(0)
    rng = numpy.random.RandomState(0)
    with cpuframe.using_config('dtype', dtype), \
            cpuframe.using_config('use_ideep', route):
        model = _Net()
        if route == 'always':
            model.to_intel64()
        opt = cpuframe.optimizers.MomentumSGD(0.05).setup(model)
        for _ in range(epochs):
            order = rng.permutation(len(xs))
            for i in range(0, len(order), 64):
                idx = order[i:i + 64]
                loss = F.softmax_cross_entropy(model(xs[idx]), ts[idx])
                model.cleargrads()
                loss.backward()
                opt.update()
        with cpuframe.using_config('train', False), \
                cpuframe.no_backprop_mode():
            return float(F.accuracy(model(xt), tt).array)


def test_digits_convnet_bf16_within_one_point_of_float32():
    route = 'always' if intel64.is_ideep_available() else 'never'
    acc32 = _train_digits(numpy.float32, route)
    acc16 = _train_digits(cpuframe.mixed_bf16, route)
    assert acc32 >= 0.95, acc32
    assert acc16 >= acc32 - 0.01, (acc16, acc32)


# -- the bf16 copy of a master weight is reused, never stale -----------------

def _halve(W, how):
    if how == 'setitem':
        W[...] = numpy.asarray(W) * 0.5
    elif how == 'iop':
        W *= 0.5
    elif how == 'copyto':
        numpy.copyto(W, numpy.asarray(W) * 0.5)
    elif how == 'fill':
        W.fill(0.25)
    elif how == 'load':
        W.copy_from(numpy.asarray(W) * 0.5)


@needs_bf16
@pytest.mark.parametrize('how', ['setitem', 'iop', 'copyto', 'fill', 'load',
                                 'view_kept'])
@pytest.mark.parametrize('op', ['linear', 'conv'])
def test_converted_weight_follows_every_write(how, op):
    x = _rand((4, 8, 5, 5)) if op == 'conv' else _rand((4, 8))
    W = intel64.from_numpy(_rand((6, 8, 3, 3) if op == 'conv' else (6, 8), 1))

    def f(W):
        with cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
                cpuframe.using_config('use_ideep', 'always'):
            y = F.convolution_2d(x, W) if op == 'conv' else F.linear(x, W)
        return numpy.asarray(y.array)

    def ref(W):
        with cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
                cpuframe.using_config('use_ideep', 'never'):
            W = numpy.asarray(W).copy()
            y = F.convolution_2d(x, W) if op == 'conv' else F.linear(x, W)
        return numpy.asarray(y.array)

    first = f(W)
    assert (f(W) == first).all()          # the copy is reused
    if how == 'view_kept':
        view = numpy.asarray(W)           # a NumPy view kept across calls
        f(W)
        view *= 0.5                       # written after a call
    else:
        _halve(W, how)
    _close(ref(W), f(W), 1, how)
    assert not (f(W) == first).all()


@needs_bf16
def test_optimizer_updates_reach_the_bf16_copy():
    numpy.random.seed(0)
    link = L.Linear(8, 6)
    link.to_intel64()
    opt = cpuframe.optimizers.SGD(0.5).setup(link)
    x = _rand((4, 8))
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        for _ in range(3):
            loss = F.sum(link(x) ** 2)
            link.cleargrads()
            loss.backward()
            opt.update()
            got = numpy.asarray(link(x).array)
            with cpuframe.using_config('use_ideep', 'never'):
                want = F.linear(x, numpy.asarray(link.W.array).copy(),
                                numpy.asarray(link.b.array).copy()).array
            _close(want, got, 1, 'after an update')


@needs_native
@pytest.mark.parametrize('how', ['setitem', 'iop', 'copyto', 'load',
                                 'view_kept'])
def test_range_check_of_a_weight_follows_every_write(how):
    # all_within (the routes' NaN/inf/huge check) is kept per weight until
    # the weight is written: a NaN written any way is seen at the next call.
    native = intel64.native()
    W = intel64.from_numpy(_rand((6, 8), 1))
    assert native.all_within(W, -1e30, 1e30)
    assert native.all_within(W, -1e30, 1e30)          # (kept)
    if how == 'view_kept':
        view = numpy.asarray(W)
        assert native.all_within(W, -1e30, 1e30)
        view[0, 0] = numpy.nan
    elif how == 'setitem':
        W[0, 0] = numpy.nan
    elif how == 'iop':
        W *= numpy.inf
    else:
        bad = numpy.asarray(W).copy()
        bad[1, 1] = 1e31
        (numpy.copyto(W, bad) if how == 'copyto' else W.copy_from(bad))
    assert not native.all_within(W, -1e30, 1e30)
    # NaN is never within; inf and 1e31 are within [-inf, inf]
    assert native.all_within(W, -numpy.inf, numpy.inf) == (
        how in ('load', 'copyto', 'iop'))


@needs_native
def test_range_check_of_bf16_values_matches_float32():
    # all_within reads a bf16 tensor's values in place (no float32 copy):
    # the same answers as for the float32 values they are.
    native = intel64.native()
    for vals in ([1.0, 2.0], [1.0, numpy.nan], [1.0, numpy.inf],
                 [1.0, -numpy.inf], [1.0, 3e38], [-3e38, 0.0]):
        b = native.to_bfloat16(numpy.array(vals, numpy.float32))
        for low, high in ((-3.4e38, 3.4e38), (-numpy.inf, numpy.inf),
                          (-1e30, 1e30)):
            assert native.all_within(b, low, high) == native.all_within(
                numpy.asarray(b), low, high), (vals, low, high)


# -- LSTM and GRU layers (n_step_lstm, n_step_gru and their links) ----------
#
# Both routes compute the same thing (_rnn_bf16.py): GEMMs on bf16
# operands with float32 accumulation, gates (and the LSTM's cell state)
# float32, h rounded to bf16 at each step; backward the gates' gradients
# rounded for the GEMMs. They differ by float32 summation order, which may
# move an h across a bf16 rounding boundary; the recurrence carries such a
# unit on.

N_WEIGHTS = {'lstm': 8, 'gru': 6}


def _rnn_data(cell, bi, n_layers=2, in_size=10, units=8,
              lens=(6, 5, 5, 3, 1), seed=0):
    rng = numpy.random.RandomState(seed)
    D = 2 if bi else 1
    nw = N_WEIGHTS[cell]
    B = len(lens)
    xs = [rng.standard_normal((n, in_size)).astype(numpy.float32)
          for n in lens]
    hx = rng.standard_normal((n_layers * D, B, units)).astype(numpy.float32)
    cx = rng.standard_normal((n_layers * D, B, units)).astype(numpy.float32) \
        if cell == 'lstm' else None
    ws, bs = [], []
    for i in range(n_layers * D):
        isz = in_size if i < D else units * D
        ws.append([(rng.standard_normal(
            (units, isz if j < nw // 2 else units)) * 0.4).astype(
                numpy.float32) for j in range(nw)])
        bs.append([(rng.standard_normal(units) * 0.3).astype(numpy.float32)
                   for _ in range(nw)])
    return cell, xs, hx, cx, ws, bs


def _rnn_run(route, data, bi, dropout=0.0, dtype=cpuframe.mixed_bf16,
             on_device=False):
    """n_step_(bi)lstm / n_step_(bi)gru forward and backward: outputs,
    gradients (float32 NumPy) and the storage of ys[0]."""
    cell, xs, hx, cx, ws, bs = data
    n_layers = len(ws) // (2 if bi else 1)
    put = intel64.from_numpy if on_device else numpy.copy
    numpy.random.seed(5)  # the dropout masks
    with cpuframe.using_config('dtype', dtype), \
            cpuframe.using_config('use_ideep', route):
        xv = [cpuframe.Variable(put(x.array))
              for x in F.transpose_sequence(xs)]
        hv = cpuframe.Variable(put(hx))
        wv = [[cpuframe.Variable(put(w)) for w in l] for l in ws]
        bv = [[cpuframe.Variable(put(b)) for b in l] for l in bs]
        f = getattr(F, 'n_step_{}{}'.format('bi' if bi else '', cell))
        if cell == 'lstm':
            cv = cpuframe.Variable(put(cx))
            hy, cy, ys = f(n_layers, dropout, hv, cv, wv, bv, xv)
            states, state_vars = [hy, cy], [hv, cv]
        else:
            hy, ys = f(n_layers, dropout, hv, wv, bv, xv)
            states, state_vars = [hy], [hv]
        storage = getattr(ys[0].array, 'storage_dtype', 'numpy')
        loss = F.sum(hy * hy) + F.sum(states[-1]) + sum(
            F.sum(y * y * 0.5 + y) for y in ys)
        loss.backward()
    outs = [v.array for v in states] + [y.array for y in ys]
    grads = [v.grad for v in state_vars] + [v.grad for v in xv] + \
        [w.grad for l in wv for w in l] + [b.grad for l in bv for b in l]
    return ([numpy.asarray(o) for o in outs],
            [numpy.asarray(g) for g in grads], storage)


RNN_OPTIONS = [(False, 0.0, False), (True, 0.0, False), (False, 0.3, False),
               (True, 0.3, True), (False, 0.0, True)]


@needs_bf16
@pytest.mark.parametrize('cell', ['lstm', 'gru'])
@pytest.mark.parametrize('bi,dropout,on_device', RNN_OPTIONS)
def test_rnn_layers_match_reference(cell, bi, dropout, on_device):
    data = _rnn_data(cell, bi)
    oa, ga, storage = _rnn_run('always', data, bi, dropout,
                               on_device=on_device)
    on, gn, _ = _rnn_run('never', data, bi, dropout)
    # the layer's output stays bf16 on the device (the next op reads it)
    assert storage == ('bfloat16' if on_device else 'numpy')
    for i, (a, b) in enumerate(zip(oa, on)):
        _close(a, b, 2, 'output {}'.format(i))
        _mostly_equal(a, b, 'output {}'.format(i))
    for i, (a, b) in enumerate(zip(ga, gn)):
        _close(a, b, 4, 'gradient {}'.format(i))
        _mostly_equal(a, b, 'gradient {}'.format(i))


@needs_bf16
@pytest.mark.parametrize('cell', ['lstm', 'gru'])
def test_rnn_layers_at_benchmark_size_match_reference(cell):
    # several steps' GEMMs on AMX-sized operands, batch parts on 2 threads
    data = _rnn_data(cell, False, n_layers=1, in_size=96, units=64,
                     lens=[12] * 40 + [7] * 30, seed=3)
    oa, ga, _ = _rnn_run('always', data, False)
    on, gn, _ = _rnn_run('never', data, False)
    for i, (a, b) in enumerate(zip(oa, on)):
        _close(a, b, 4, 'output {}'.format(i))
    for i, (a, b) in enumerate(zip(ga, gn)):
        _close(a, b, 8, 'gradient {}'.format(i))


# rounds only where the mode is active (not in float32 fallback)
@needs_bf16
@pytest.mark.parametrize('cell', ['lstm', 'gru'])
def test_rnn_reference_rounds_h_only(cell):
    data = _rnn_data(cell, False)
    o_bf, g_bf, _ = _rnn_run('never', data, False)
    o32, g32, _ = _rnn_run('never', data, False, dtype=numpy.float32)
    n_states = 2 if cell == 'lstm' else 1
    # every h that a step computed is a bf16 value; the LSTM's c is not
    for y in o_bf[n_states:]:
        numpy.testing.assert_array_equal(y, ref_round(y))
    if cell == 'lstm':
        assert (o_bf[1] != ref_round(o_bf[1])).any()
    # and the mode differs from float32 by about bf16's precision
    err = max(numpy.abs(a - b).max() / numpy.abs(b).max()
              for a, b in zip(o_bf, o32))
    assert 2.0 ** -12 < err < 2.0 ** -4
    gerr = max(numpy.abs(a - b).max() / numpy.abs(b).max()
               for a, b in zip(g_bf, g32))
    assert 2.0 ** -12 < gerr < 2.0 ** -3


@pytest.mark.parametrize('cell', ['lstm', 'gru'])
@pytest.mark.parametrize('bi', [False, True])
def test_rnn_reference_without_rounding_is_the_float32_stack(
        cell, bi, monkeypatch):
    # The reference's hand-written backward, checked against autograd of
    # the composite float32 stack (itself gradient-checked numerically):
    # with rounding off the two compute the same function.
    data = _rnn_data(cell, bi)
    monkeypatch.setattr(_bf16, 'round_array', lambda x: x)
    o_ref, g_ref, _ = _rnn_run('never', data, bi, dropout=0.25)
    o32, g32, _ = _rnn_run('never', data, bi, dropout=0.25,
                           dtype=numpy.float32)
    for a, b in zip(o_ref, o32):
        numpy.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    for a, b in zip(g_ref, g32):
        numpy.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@needs_bf16
@pytest.mark.parametrize('cell', ['lstm', 'gru'])
@pytest.mark.parametrize('values', ['nan', 'inf', 'huge'])
def test_rnn_special_values_match(cell, values):
    data = _rnn_data(cell, False)
    data[1][1][2, 3] = {'nan': numpy.nan, 'inf': numpy.inf,
                        'huge': 3.0e38}[values]
    oa, _, _ = _rnn_run('always', data, False)
    on, _, _ = _rnn_run('never', data, False)
    for i, (a, b) in enumerate(zip(oa, on)):
        _close(a, b, 2, 'output {} with {}'.format(i, values))


# rounds only where the mode is active (not in float32 fallback)
@needs_bf16
def test_lstm_double_backprop_in_the_mode_says_why():
    _, xs, hx, cx, ws, bs = _rnn_data('lstm', False, n_layers=1)
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        hv = cpuframe.Variable(hx)
        hy, _, _ = F.n_step_lstm(1, 0.0, hv, cpuframe.Variable(cx), ws, bs,
                                 F.transpose_sequence(xs))
        with pytest.raises(NotImplementedError, match='mixed_bf16'):
            cpuframe.grad([F.sum(hy * hy)], [hv], enable_double_backprop=True)
        # a first-order gradient works
        g, = cpuframe.grad([F.sum(hy * hy)], [hv])
        assert numpy.isfinite(g.array).all()


def _link_on(route, make, seed=0):
    """A link made with numpy's seed set, on the device for 'always'."""
    numpy.random.seed(seed)
    link = make()
    if route == 'always':
        link.to_intel64()
    return link


def _in_mode(route):
    """The mixed_bf16 mode on one route."""
    return cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
        cpuframe.using_config('use_ideep', route)


def _llstm_run(route, steps, batches, seed=0, lateral_donation=True):
    """Two stacked L.LSTM over a few steps (batch shrinking as with
    variable lengths) in the mode: outputs, c, and the parameters'
    gradients (accumulated over the steps)."""
    rng = numpy.random.RandomState(seed)
    xs = [rng.standard_normal((b, 12)).astype(numpy.float32)
          for b in batches]
    numpy.random.seed(seed)
    model = cpuframe.Sequential(L.LSTM(12, 16), L.LSTM(16, 16))
    if route == 'always':
        model.to_intel64()
    model.cleargrads()
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
            cpuframe.using_config('use_ideep', route):
        loss, outs = 0, []
        for x in xs[:steps]:
            h = model(x)
            outs.append(numpy.asarray(h.array))
            loss += F.sum(h * h) + F.sum(h)
        loss.backward()
    grads = [numpy.asarray(p.grad) for _, p in sorted(model.namedparams())]
    cs = [numpy.asarray(l.c.array) for l in model]
    return outs, cs, grads


@needs_bf16
@pytest.mark.parametrize('batches', [(5, 5, 5, 5), (6, 6, 4, 3, 1)])
def test_fused_lstm_step_matches_reference(batches):
    # L.LSTM's fused step (upward and lateral GEMMs plus the cell in one
    # native call) rounds where the unfused links do in the mode.
    a = _llstm_run('always', len(batches), batches)
    b = _llstm_run('never', len(batches), batches)
    for what, xa, xb, ulps in (('h', a[0], b[0], 2), ('c', a[1], b[1], 2),
                               ('grad', a[2], b[2], 4)):
        for i, (u, v) in enumerate(zip(xa, xb)):
            _close(u, v, ulps, '{} {}'.format(what, i))
            _mostly_equal(u, v, '{} {}'.format(what, i))


@needs_bf16
def test_fused_lstm_step_sees_weight_updates():
    # The bf16 copies of the weights (two per weight: forward and input
    # gradient) follow an optimizer update.
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((4, 12)).astype(numpy.float32)
    outs = {}
    for route in ('always', 'never'):
        link = _link_on(route, lambda: L.LSTM(12, 16))
        opt = cpuframe.optimizers.SGD(lr=0.5)
        opt.setup(link)
        got = []
        dtype, use_ideep = _in_mode(route)
        with dtype, use_ideep:
            for _ in range(3):
                link.reset_state()
                link.cleargrads()
                h = link(x)
                h = link(x)
                F.sum(h * h).backward()
                opt.update()
                got.append(numpy.asarray(h.array))
                got.append(numpy.asarray(link.upward.W.array).copy())
        outs[route] = got
    for i, (u, v) in enumerate(zip(outs['always'], outs['never'])):
        _close(u, v, 4, 'step {}'.format(i))


@needs_bf16
def test_linear_used_at_every_step_accumulates_its_gradient():
    # A decoder applied at every step of an unrolled RNN (Chainer's PTB
    # example): its weight stays plain in the mode and each step's gradient
    # is added by the GEMM that computes it.
    rng = numpy.random.RandomState(0)
    hs = [rng.standard_normal((5, 24)).astype(numpy.float32)
          for _ in range(4)]
    grads = {}
    for route in ('always', 'never'):
        dec = _link_on(route, lambda: L.Linear(24, 40))
        dec.cleargrads()
        dtype, use_ideep = _in_mode(route)
        with dtype, use_ideep:
            loss = sum(F.sum(dec(F.tanh(h)) ** 2) for h in hs)
            loss.backward()
        if route == 'always':
            assert dec.W.array.is_plain and dec.W.grad.is_plain
        grads[route] = [numpy.asarray(dec.W.grad), numpy.asarray(dec.b.grad)]
    for i, (u, v) in enumerate(zip(grads['always'], grads['never'])):
        _close(u, v, 4, 'gradient {}'.format(i))
        _mostly_equal(u, v, 'gradient {}'.format(i))


@needs_native
def test_vanilla_rnn_computes_float32_in_the_mode():
    # No bf16 route for n_step_rnn: both routes compute it in float32.
    rng = numpy.random.RandomState(0)
    xs = [rng.standard_normal((n, 6)).astype(numpy.float32)
          for n in (4, 3, 1)]
    rnn = L.NStepRNNTanh(1, 6, 5, 0.0)
    outs = {}
    for route in ('always', 'never'):
        with cpuframe.using_config('dtype', cpuframe.mixed_bf16), \
                cpuframe.using_config('use_ideep', route):
            hy, ys = rnn(None, xs)
        outs[route] = [numpy.asarray(hy.array)] + [
            numpy.asarray(y.array) for y in ys]
    with cpuframe.using_config('use_ideep', 'never'):
        hy, ys = rnn(None, xs)
    f32 = [hy.array] + [y.array for y in ys]
    for a, b, c in zip(outs['always'], outs['never'], f32):
        numpy.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(b, c, rtol=1e-5, atol=1e-6)


@needs_bf16
def test_add_of_bf16_activations_is_stored_bf16():
    # The one place the route rounds where the reference does not: a sum of
    # bf16 activations (ResNet's residual add, and gradient sums of bf16
    # gradients) is stored in bf16, where NumPy keeps float32. The next
    # bf16 op rounds its input, so from there on both routes agree.
    a, b = ref_round(_rand((2, 8, 4, 4))), ref_round(_rand((2, 8, 4, 4), 1))
    with cpuframe.using_config('dtype', cpuframe.mixed_bf16):
        with cpuframe.using_config('use_ideep', 'always'):
            xa, xb = (intel64.native().to_bfloat16(v) for v in (a, b))
            s = cpuframe.Variable(xa) + cpuframe.Variable(xb)
            r = F.relu(s)
        assert s.array.storage_dtype == 'bfloat16'
        numpy.testing.assert_array_equal(numpy.asarray(s.array),
                                         ref_round(a + b))
        with cpuframe.using_config('use_ideep', 'never'):
            r_ref = F.relu(cpuframe.Variable(a) + cpuframe.Variable(b))
    numpy.testing.assert_array_equal(numpy.asarray(r.array), r_ref.array)


# rounds only where the mode is active (not in float32 fallback)
@needs_bf16
def test_backward_runs_in_the_mode_of_its_forward():
    x, W = _rand((4, 6)), _rand((5, 6), 1)
    gy = _rand((4, 5), 2)

    def grads(forward_dtype, backward_dtype):
        xv, Wv = cpuframe.Variable(x.copy()), cpuframe.Variable(W.copy())
        with cpuframe.using_config('use_ideep', 'never'):
            with cpuframe.using_config('dtype', forward_dtype):
                y = F.linear(xv, Wv)
            y.grad = gy
            with cpuframe.using_config('dtype', backward_dtype):
                y.backward()
        return xv.grad, Wv.grad

    mixed = grads(cpuframe.mixed_bf16, cpuframe.mixed_bf16)
    f32 = grads(numpy.float32, numpy.float32)
    assert numpy.abs(mixed[0] - f32[0]).max() > 0  # gx is rounded
    # backward follows the forward's dtype, not the one around backward
    numpy.testing.assert_array_equal(
        grads(cpuframe.mixed_bf16, numpy.float32)[0], mixed[0])
    numpy.testing.assert_array_equal(
        grads(numpy.float32, cpuframe.mixed_bf16)[0], f32[0])


# -- non-finite values and the bf16 convolution kernels (issue 29) ----------

def _nonfinite_conv_case(where):
    x = _rand((2, 8, 7, 7))
    W = _rand((6, 8, 3, 3), 1, 0.3)
    if where in ('x', 'both'):
        x[0, 1, 3, 3] = numpy.inf
        x[1, 2, 0, 6] = -numpy.inf
    if where in ('W', 'both'):
        W[1, 2, 0, 0] = numpy.nan
        W[2, 0, 1, 1] = numpy.inf
    return x, W


@needs_bf16
@pytest.mark.parametrize('where', ['x', 'W', 'both'])
@pytest.mark.parametrize('pad', [0, 1])
def test_conv_with_nonfinite_inputs_matches_reference(where, pad):
    # On AMX, oneDNN's bf16 kernels made NaN at outputs whose window holds
    # no inf, and extra NaN in gx from a non-finite W.
    x, W = _nonfinite_conv_case(where)

    def f(x, W):
        return F.convolution_2d(x, W, pad=pad)
    with numpy.errstate(all='ignore'):
        ref = _run('never', f, (x, W))
        got = _run('always', f, (x, W))
    _close(got[0], ref[0], 2, 'y')
    for i, name in enumerate(('gx', 'gW')):
        _close(got[1][i], ref[1][i], 4, name)


@needs_native
@pytest.mark.parametrize('where', ['x', 'W', 'none'])
def test_bf16_convolutions_decline_nonfinite_inputs(where, monkeypatch):
    # The rule itself, on any CPU: in the mode (as where oneDNN computes in
    # bf16) the convolution, its input gradient (a deconvolution) and its
    # filter gradient take the NumPy path for inputs with inf or NaN.
    from cpuframe.functions.connection.convolution_nd import (
        ConvolutionND,
        ConvolutionNDGradW,
    )
    from cpuframe.functions.connection.deconvolution_nd import DeconvolutionND
    x, W = _nonfinite_conv_case(where if where != 'none' else '')
    gy = _rand((2, 6, 7, 7), 3)
    # (pad 0: with padding a non-finite W is declined in float32 too)
    nodes = [(ConvolutionND(2, pad=0), (x, W), 'xW'),
             (DeconvolutionND(2, 1, 1, outsize=(7, 7)), (gy, W), 'W'),
             (ConvolutionNDGradW(2, (3, 3), (1, 1), (1, 1), (1, 1), 1,
                                 (False, False), numpy.float32),
              (x, gy), 'x')]
    for mode_on in (False, True):
        monkeypatch.setattr(_bf16, 'active', lambda on=mode_on: on)
        for node, inputs, reads in nodes:
            want = not mode_on or where == 'none' or where not in reads
            assert node.intel64_supports(inputs) == want, (
                type(node).__name__, mode_on)
            if where == 'x' and reads == 'xW':
                md = tuple(intel64.from_numpy(a) for a in inputs)
                assert node.intel64_supports(md) == want
