"""Core behaviour that matches Chainer 7's documented semantics.

Each test runs on the NumPy path and, where an oneDNN route exists, on the
'@intel64' device; gradients are checked numerically with gradient_check.
"""
import os
import pickle
import subprocess
import sys
import warnings

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import FunctionNode, Variable, gradient_check
from cpuframe.backends import cuda, intel64
from cpuframe.utils import type_check

_NATIVE = intel64.is_ideep_available()
DEVICES = ['@numpy', pytest.param('@intel64', marks=pytest.mark.skipif(
    not _NATIVE, reason='oneDNN native module unavailable'))]


def _arr(*shape, dtype=numpy.float32, seed=0, low=-1.0, high=1.0):
    rng = numpy.random.RandomState(seed)
    return rng.uniform(low, high, shape).astype(dtype)


def _on(device, array):
    """``array`` as a Variable on ``device``."""
    v = Variable(array.copy())
    v.to_device(device)
    return v


def _mover(device):
    """A differentiable move of a Variable to ``device`` (identity on NumPy)."""
    if device == '@numpy':
        return lambda x: x
    return lambda x: F.copy(x, device)


def _host(x):
    a = x.array if isinstance(x, Variable) else x
    return numpy.asarray(cpuframe.backend.cpu_device.send(a))


# -- 1. mixed dtypes in arithmetic ---------------------------------------------

_OPS = [
    ('add', lambda v, c: v + c, lambda a, c: a + c),
    ('radd', lambda v, c: c + v, lambda a, c: c + a),
    ('sub', lambda v, c: v - c, lambda a, c: a - c),
    ('rsub', lambda v, c: c - v, lambda a, c: c - a),
    ('mul', lambda v, c: v * c, lambda a, c: a * c),
    ('rmul', lambda v, c: c * v, lambda a, c: c * a),
    ('div', lambda v, c: v / c, lambda a, c: a / c),
    ('rdiv', lambda v, c: c / v, lambda a, c: c / a),
    ('pow', lambda v, c: v ** c, lambda a, c: a ** c),
    ('rpow', lambda v, c: c ** v, lambda a, c: c ** a),
]


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('name,op,ref', _OPS, ids=[o[0] for o in _OPS])
@pytest.mark.parametrize('const_dtype', [numpy.float64, numpy.float16,
                                         numpy.int32])
def test_array_operand_is_cast_to_the_variable_dtype(device, name, op, ref,
                                                     const_dtype):
    x = _arr(2, 3, low=0.5, high=1.5)
    c = (_arr(2, 3, seed=1, low=0.5, high=1.5) * 2).astype(const_dtype)
    if const_dtype == numpy.int32:
        c = numpy.maximum(c, 1)
    y = op(_on(device, x), c)
    assert isinstance(y, Variable)
    assert y.dtype == numpy.float32
    expected = ref(x, c.astype(numpy.float32))
    numpy.testing.assert_allclose(_host(y), expected, rtol=1e-5)
    move = _mover(device)
    gradient_check.check_backward(
        lambda v: op(move(v), c), x, _arr(2, 3, seed=2), dtype=numpy.float64,
        atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('device', DEVICES)
def test_dcgan_noise_addition_stays_float32(device):
    h = _on(device, _arr(4, 5))
    sigma = 0.1
    y = h + sigma * numpy.random.RandomState(0).randn(4, 5)
    assert y.dtype == numpy.float32
    y = F.sum(y)
    y.backward()
    assert h.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(_host(h.grad), numpy.ones((4, 5)))


def test_two_variables_of_different_dtypes_are_rejected():
    a = Variable(_arr(2))
    b = Variable(_arr(2, dtype=numpy.float64))
    with pytest.raises(type_check.InvalidType):
        a + b


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('exponent', [2, 3, 0.5, -1.5, numpy.float64(2.5),
                                      numpy.int64(2)])
def test_pow_with_scalar_exponents(device, exponent):
    x = _arr(3, 2, low=0.5, high=2.0)
    y = _on(device, x) ** exponent
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(_host(y), x ** numpy.float32(exponent),
                                  rtol=1e-5)
    move = _mover(device)
    gradient_check.check_backward(
        lambda v: move(v) ** exponent, x, _arr(3, 2, seed=1),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    gradient_check.check_double_backward(
        lambda v: move(v) ** exponent, x, _arr(3, 2, seed=1),
        _arr(3, 2, seed=2), dtype=numpy.float64, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('device', DEVICES)
def test_pow_with_array_and_variable_exponents(device):
    x = _arr(3, 2, low=0.5, high=2.0)
    e64 = _arr(3, 2, seed=3, dtype=numpy.float64, low=1.0, high=3.0)
    ei = numpy.array([1, 2, 3], numpy.int32).reshape(3, 1)
    assert (_on(device, x) ** e64).dtype == numpy.float32
    numpy.testing.assert_allclose(
        _host(_on(device, x) ** ei), x ** ei.astype(numpy.float32),
        rtol=1e-5)
    move = _mover(device)
    # Variable exponent: gradients w.r.t. base and exponent.
    gradient_check.check_backward(
        lambda a, b: move(a) ** move(b),
        (x, e64.astype(numpy.float32)), _arr(3, 2, seed=1),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    # ndarray exponent (a constant) and an ndarray base.
    gradient_check.check_backward(
        lambda a: move(a) ** e64, x, _arr(3, 2, seed=1),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    gradient_check.check_backward(
        lambda a: e64 ** move(a), x, _arr(3, 2, seed=1),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


_MATMUL_CASES = [
    ((2, 3), (3, 4), False, False),
    ((3, 2), (4, 3), True, True),
    ((3,), (3, 4), True, False),      # transa does nothing to a vector
    ((2, 3), (3,), False, True),      # transb does nothing to a vector
    ((3,), (3,), False, False),
    ((5, 2, 3), (3, 4), False, False),
    ((2, 3), (5, 4, 3), False, True),
    ((2, 1, 3, 2), (4, 3, 5), True, False),
    ((3,), (5, 3, 2), False, False),
    ((), (3, 4), False, False),        # a 0-D operand scales the other
]


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('a_shape,b_shape,transa,transb', _MATMUL_CASES)
def test_matmul_shapes_and_ndarray_operands(device, a_shape, b_shape, transa,
                                            transb):
    a = _arr(*a_shape)
    b = _arr(*b_shape, seed=1)
    ta = a.swapaxes(-1, -2) if transa and a.ndim > 1 else a
    tb = b.swapaxes(-1, -2) if transb and b.ndim > 1 else b
    expected = a * b if a.ndim == 0 else numpy.matmul(ta, tb)
    for lhs, rhs in [(a, b), (_on(device, a), b), (a, _on(device, b))]:
        y = F.matmul(lhs, rhs, transa, transb)
        assert y.shape == expected.shape and y.dtype == numpy.float32
        numpy.testing.assert_allclose(_host(y), expected, rtol=1e-5,
                                      atol=1e-6)
    move = _mover(device)
    gradient_check.check_backward(
        lambda p, q: F.matmul(move(p), move(q), transa, transb), (a, b),
        _arr(*expected.shape, seed=2), dtype=numpy.float64, atol=1e-3,
        rtol=1e-3)


def test_matmul_mixed_float_dtypes():
    a = _arr(2, 3)
    b = _arr(3, 4, seed=1, dtype=numpy.float64)
    y = F.matmul(a, b)
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, numpy.matmul(a, b), rtol=1e-12)
    va, vb = Variable(a), Variable(b)
    F.sum(F.matmul(va, vb)).backward()
    assert va.grad.dtype == numpy.float32 and vb.grad.dtype == numpy.float64
    gradient_check.check_backward(
        F.matmul, (a, b), _arr(2, 4, seed=2, dtype=numpy.float64),
        atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('device', DEVICES)
def test_matmul_operator_casts_an_ndarray_operand(device):
    a = _on(device, _arr(2, 3))
    b = _arr(3, 4, seed=1, dtype=numpy.float64)
    y = a @ b
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(
        _host(y), numpy.matmul(_arr(2, 3), b.astype(numpy.float32)),
        rtol=1e-5)


# -- 2. gradient_check: dtype= on params, outputs of several dtypes -------------

class _Scale(FunctionNode):
    """y = x * w (w a parameter), recording the dtypes it saw."""

    seen = []

    def forward(self, inputs):
        x, w = inputs
        _Scale.seen.append(w.dtype)
        self.retain_inputs((0, 1))
        return x * w,

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy = grad_outputs[0]
        return tuple(gy * w if i == 0 else gy * x for i in indexes)


@pytest.mark.parametrize('device', DEVICES)
def test_check_backward_dtype_applies_to_params(device):
    w = cpuframe.Parameter(_arr(3, seed=5))
    move = _mover(device)
    _Scale.seen = []
    gradient_check.check_backward(
        lambda x: _Scale().apply((move(x), move(w)))[0], _arr(3),
        _arr(3, seed=1), params=(w,), dtype=numpy.float64)
    # The analytic pass in float32, the numerical passes in float64.
    assert _Scale.seen[0] == numpy.float32
    assert set(_Scale.seen[1:]) == {numpy.dtype(numpy.float64)}
    # The parameter is restored, dtype and values.
    assert w.dtype == numpy.float32
    numpy.testing.assert_array_equal(w.array, _arr(3, seed=5))


def _two_dtypes(x):
    """A float32 and a float64 output."""
    return x * 2, F.cast(x * x, numpy.float64) * 3.0


@pytest.mark.parametrize('device', DEVICES)
def test_outputs_of_different_dtypes_are_checked_separately(device):
    move = _mover(device)
    x = _arr(4)
    gys = (_arr(4, seed=1), _arr(4, seed=2, dtype=numpy.float64))
    gradient_check.check_backward(
        lambda v: _two_dtypes(move(v)), x, gys, atol=1e-3, rtol=1e-3)
    gradient_check.check_double_backward(
        lambda v: _two_dtypes(move(v)), x, gys, _arr(4, seed=3), atol=1e-3,
        rtol=1e-3)
    # A wrong gradient is still caught.
    with pytest.raises(AssertionError, match='check_backward failed'):
        gradient_check.check_backward(
            lambda v: (v * 2, _WrongGrad().apply((v,))[0]), x, gys)


class _WrongGrad(FunctionNode):
    def forward(self, inputs):
        return inputs[0].astype(numpy.float64) * 2,

    def backward(self, indexes, grad_outputs):
        return F.cast(grad_outputs[0] * 3, numpy.float32),


# -- 3. cuda.ndarray without CuPy ------------------------------------------------

def test_cuda_ndarray_is_a_class():
    assert isinstance(cuda.ndarray, type)
    assert not isinstance(numpy.zeros(1), cuda.ndarray)
    assert not isinstance(Variable(_arr(1)).array, cuda.ndarray)


# -- 4. backward, grad, item, //, sum(axis=list), backward_accumulate -----------

class _Delegate(FunctionNode):
    """Model-parallel style: an empty output whose backward does the work."""

    called = 0

    def forward(self, inputs):
        return numpy.empty((0,), numpy.float32),

    def backward(self, indexes, grad_outputs):
        _Delegate.called += 1
        assert grad_outputs[0].shape == (0,)
        return tuple(Variable(numpy.full((2,), 7, numpy.float32))
                     for _ in indexes)


@pytest.mark.parametrize('device', DEVICES)
def test_backward_of_an_empty_variable_runs_the_graph(device):
    _Delegate.called = 0
    x = _on(device, _arr(2))
    phi = _Delegate().apply((x,))[0]
    assert phi.size == 0 and phi.grad is None
    phi.backward()
    assert _Delegate.called == 1
    numpy.testing.assert_array_equal(_host(x.grad), [7, 7])
    # An empty result of an ordinary op works too.
    e = _on(device, numpy.zeros((0, 3), numpy.float32))
    y = e * 2
    y.backward()
    assert e.grad.shape == (0, 3)


def test_backward_of_a_non_scalar_without_grad_still_raises():
    y = Variable(_arr(3)) * 2
    with pytest.raises(ValueError, match='initial gradient'):
        y.backward()


@pytest.mark.parametrize('device', DEVICES)
def test_grad_of_a_non_scalar_output_uses_ones(device):
    x = _on(device, _arr(2, 3))
    y = x * x
    gx, = cpuframe.grad([y], [x])
    numpy.testing.assert_allclose(_host(gx), 2 * _arr(2, 3), rtol=1e-6)
    # loss_scale multiplies the default ones only.
    gx, = cpuframe.grad([x * 1], [x], loss_scale=4.0)
    numpy.testing.assert_allclose(_host(gx), numpy.full((2, 3), 4.0))
    gy = numpy.full((2, 3), 2, numpy.float32)
    gx, = cpuframe.grad([x * 1], [x], grad_outputs=[gy], loss_scale=4.0)
    numpy.testing.assert_allclose(_host(gx), gy)
    assert x.grad is None


@pytest.mark.parametrize('device', DEVICES)
def test_output_grad_is_cleared_unless_retain_grad(device):
    x = _on(device, _arr(2, 3))
    h = x * 3
    loss = F.sum(h)
    loss.backward()
    assert loss.grad is None and h.grad is None
    numpy.testing.assert_allclose(_host(x.grad), numpy.full((2, 3), 3))
    x.cleargrad()
    h = x * 3
    loss = F.sum(h)
    loss.backward(retain_grad=True)
    assert float(_host(loss.grad)) == 1.0
    numpy.testing.assert_allclose(_host(h.grad), numpy.ones((2, 3)))
    # A user-set output gradient is consumed the same way.
    x.cleargrad()
    y = x * 2
    y.grad = numpy.full((2, 3), 5, numpy.float32)
    y.backward()
    assert y.grad is None
    numpy.testing.assert_allclose(_host(x.grad), numpy.full((2, 3), 10))


def test_chainer_backward_of_several_outputs():
    x = Variable(_arr(3))
    a, b = x * 2, F.cast(x, numpy.float64) * 3
    cpuframe.backward([a, b], [numpy.ones(3, numpy.float32),
                               numpy.ones(3, numpy.float64)])
    numpy.testing.assert_allclose(x.grad, numpy.full(3, 5.0))
    x.cleargrad()
    a = x * 2
    a.grad = numpy.ones(3, numpy.float32)
    cpuframe.backward([a])
    assert a.grad is None
    numpy.testing.assert_allclose(x.grad, numpy.full(3, 2.0))


@pytest.mark.parametrize('device', DEVICES)
def test_item(device):
    assert _on(device, numpy.array([2.5], numpy.float32)).item() == 2.5
    v = Variable(numpy.array(3, numpy.int32))
    assert v.item() == 3 and isinstance(v.item(), int)
    with pytest.raises(ValueError):
        Variable(_arr(2)).item()


@pytest.mark.parametrize('device', DEVICES)
def test_floordiv(device):
    x = _arr(2, 3, low=-3, high=3)
    d = _arr(2, 3, seed=1, low=0.5, high=2)
    v = _on(device, x)
    for y, expected in [
            (v // 2, numpy.floor(x / 2)),
            (7 // v, numpy.floor(7 / x)),
            (v // d.astype(numpy.float64), numpy.floor(x / d)),
            (v // Variable(d), numpy.floor(x / d)),
            (d // v, numpy.floor(d / x))]:
        assert isinstance(y, Variable) and y.dtype == numpy.float32
        numpy.testing.assert_allclose(_host(y), expected, rtol=1e-5)
        # floor has no gradient: the result is a constant.
        assert y.creator is None


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('axis', [[0], [1, 2], (0, 2), [-1]])
def test_sum_with_a_list_axis(device, axis):
    x = _arr(2, 3, 4)
    y = F.sum(_on(device, x), axis=axis)
    numpy.testing.assert_allclose(_host(y), x.sum(axis=tuple(axis)),
                                  rtol=1e-5)
    move = _mover(device)
    expected_shape = x.sum(axis=tuple(axis)).shape
    gradient_check.check_backward(
        lambda v: F.sum(move(v), axis=axis), x,
        _arr(*expected_shape, seed=1), dtype=numpy.float64)


class _Accumulating(FunctionNode):
    """y = 2x whose backward_accumulate adds the existing gradient itself."""

    log = []

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        raise AssertionError('backward_accumulate should have been called')

    def backward_accumulate(self, target_input_indexes, grad_outputs,
                            grad_inputs):
        _Accumulating.log.append(
            None if grad_inputs[0] is None else _host(grad_inputs[0]).copy())
        g = grad_outputs[0] * 2
        return (g if grad_inputs[0] is None else g + grad_inputs[0]),


@pytest.mark.parametrize('device', DEVICES)
def test_backward_accumulate_is_called_with_the_current_gradients(device):
    _Accumulating.log = []
    x = _on(device, _arr(3))
    h = x * 1
    # h feeds both the node (rank lower) and a later direct path.
    y = _Accumulating().apply((h,))[0]
    loss = F.sum(y * 1) + F.sum(h * 5)
    loss.backward()
    numpy.testing.assert_allclose(_host(x.grad), numpy.full(3, 7.0))
    assert len(_Accumulating.log) == 1
    numpy.testing.assert_allclose(_Accumulating.log[0], numpy.full(3, 5.0))
    gx, = cpuframe.grad([loss], [x])
    numpy.testing.assert_allclose(_host(gx), numpy.full(3, 7.0))


# -- 5. mixed16 and get_dtype ----------------------------------------------------

def test_mixed16_and_get_dtype():
    assert repr(cpuframe.mixed16) == "dtype('mixed16')"
    assert numpy.dtype(cpuframe.mixed16) == numpy.float16
    assert cpuframe.get_dtype() == numpy.float32
    assert cpuframe.get_dtype(numpy.float64) == numpy.float64
    assert cpuframe.get_dtype('float16', map_mixed16=numpy.float32) == \
        numpy.float16
    with cpuframe.using_config('dtype', cpuframe.mixed16):
        assert cpuframe.config.dtype is cpuframe.mixed16
        assert cpuframe.get_dtype() == numpy.float16
        assert cpuframe.get_dtype(map_mixed16=numpy.float32) == numpy.float32
        assert cpuframe.get_dtype(numpy.float64, numpy.float32) == \
            numpy.float64
    assert cpuframe.get_dtype(cpuframe.mixed16, numpy.float32) == \
        numpy.float32
    assert pickle.loads(pickle.dumps(cpuframe.mixed16)) is cpuframe.mixed16
    with pytest.raises(ValueError):
        cpuframe.config.dtype = numpy.int32


def test_mixed16_from_the_environment(tmp_path):
    env = dict(os.environ, CHAINER_DTYPE='mixed16')
    env.pop('CPUFRAME_DTYPE', None)
    out = subprocess.run(
        [sys.executable, '-c',
         'import cpuframe; print(cpuframe.config.dtype is cpuframe.mixed16)'],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == 'True'


# -- 6. DeprecationWarnings ----------------------------------------------------------

def test_batch_matmul_is_deprecated():
    with pytest.warns(DeprecationWarning, match='batch_matmul'):
        F.batch_matmul(_arr(2, 3, 4), _arr(2, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.matmul(_arr(2, 3, 4), _arr(2, 4, 5))


# -- 7. intel64.mdarray before the backend's first use ------------------------------

def _run_fresh(code, cwd):
    """Run ``code`` in a new interpreter outside the checkout (so it imports
    the installed cpuframe) and return its last line of output."""
    out = subprocess.run([sys.executable, '-c', code], cwd=str(cwd),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    return lines[-1] if lines else ''


def test_mdarray_is_a_class_before_first_use(tmp_path):
    code = '\n'.join([
        'import numpy',
        'from cpuframe.backends import intel64',
        'from cpuframe.backends.intel64 import mdarray',
        'assert isinstance(intel64.mdarray, type)',
        'assert not isinstance(numpy.zeros(1), intel64.mdarray)',
        'assert not isinstance(None, mdarray)',
        'assert intel64._dnnl is None, "a plain check loads nothing"',
        'if intel64.is_ideep_available():',
        '    t = intel64.native().Tensor.from_numpy(',
        '        numpy.ones((2, 2), numpy.float32))',
        '    assert isinstance(t, mdarray) and isinstance(t, intel64.mdarray)',
        '    m = mdarray.from_numpy(numpy.ones(3, numpy.float32))',
        '    assert isinstance(m, intel64.mdarray)',
        'print("ok")',
    ])
    assert _run_fresh(code, tmp_path) == 'ok'


@pytest.mark.skipif(not _NATIVE, reason='oneDNN native module unavailable')
def test_mdarray_placeholder_checks_native_tensors_before_load(tmp_path):
    code = '\n'.join([
        'import numpy',
        'from cpuframe import _native',
        '_dnnl = _native.load()',
        'from cpuframe.backends import intel64',
        'placeholder = intel64.mdarray',
        't = _dnnl.Tensor.from_numpy(numpy.ones((2, 2), numpy.float32))',
        'assert isinstance(t, placeholder)',
        'assert intel64.is_native_array(t)',
        'assert intel64.mdarray is _dnnl.Tensor',
        'print("ok")',
    ])
    assert _run_fresh(code, tmp_path) == 'ok'


# -- 8. attributes of function nodes ---------------------------------------------

@pytest.mark.parametrize('route', ['never', 'always', 'device'])
@pytest.mark.parametrize('cache_score', [True, False])
def test_softmax_cross_entropy_exposes_y(route, cache_score):
    from cpuframe.functions.loss.softmax_cross_entropy import SoftmaxCrossEntropy
    if route != 'never' and not _NATIVE:
        pytest.skip('oneDNN native module unavailable')
    x = _arr(8, 5, low=-3, high=3)
    t = numpy.random.RandomState(0).randint(0, 5, 8).astype(numpy.int32)
    expected = numpy.exp(x - x.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    mode = 'never' if route == 'never' else 'always'
    xv = _on('@intel64', x) if route == 'device' else Variable(x)
    f = SoftmaxCrossEntropy(cache_score=cache_score)
    assert f.y is None
    with cpuframe.using_config('use_ideep', mode):
        loss = f.apply((xv, t))[0]
    if route != 'never':
        assert f._lse is not None, 'expected the oneDNN route'
    if cache_score:
        numpy.testing.assert_allclose(_host(f.y), expected, rtol=1e-5,
                                      atol=1e-7)
        assert f.y.dtype == numpy.float32
    else:
        assert f.y is None
    loss.backward()
    move = _mover('@intel64' if route == 'device' else '@numpy')
    with cpuframe.using_config('use_ideep', mode):
        gradient_check.check_backward(
            lambda v: F.softmax_cross_entropy(move(v), t), x, None,
            dtype=numpy.float64, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('device', DEVICES)
def test_dropout_node_exposes_mask(device):
    from cpuframe.functions.noise.dropout import Dropout
    x = _arr(4, 6, low=0.5, high=1.5)
    f = Dropout(0.5)
    with cpuframe.using_config('train', True):
        y = f.apply((_on(device, x),))[0]
    mask = _host(f.mask)
    assert mask.shape == x.shape
    assert set(numpy.unique(mask)) <= {0.0, 2.0}
    numpy.testing.assert_allclose(_host(y), x * mask, rtol=1e-6)
    F.sum(y).backward()
    gradient_check.check_backward(
        lambda v: Dropout(0.5, mask).apply((_mover(device)(v),))[0], x,
        _arr(4, 6, seed=1), dtype=numpy.float64)


def test_spatial_pyramid_pooling_pooling_class_is_deprecated():
    from cpuframe.functions.pooling.max_pooling_2d import MaxPooling2D
    x = _arr(1, 2, 4, 4)
    expected = F.spatial_pyramid_pooling_2d(x, 2, pooling='max')
    with pytest.warns(DeprecationWarning, match='pooling_class'):
        y = F.spatial_pyramid_pooling_2d(x, 2, MaxPooling2D)
    numpy.testing.assert_array_equal(y.array, expected.array)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError):
        F.spatial_pyramid_pooling_2d(x, 2, MaxPooling2D, pooling='max')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.spatial_pyramid_pooling_2d(x, 2, pooling='max')


def test_backward_of_a_one_element_non_scalar_is_deprecated():
    x = Variable(_arr(1))
    with pytest.warns(DeprecationWarning, match='only one element'):
        (x * 2).backward()
    numpy.testing.assert_allclose(x.grad, [2.0])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.sum(x * 2).backward()


def test_variable_mean_uses_weights():
    x = _arr(2, 3)
    w = numpy.array([1, 2, 3], numpy.float32)
    y = Variable(x).mean(axis=1, weights=w)
    numpy.testing.assert_allclose(y.array, numpy.average(x, axis=1, weights=w),
                                  rtol=1e-6)
    w64 = w.astype(numpy.float64)
    gradient_check.check_backward(
        lambda v: v.mean(axis=1, weights=w64), x.astype(numpy.float64),
        _arr(2, seed=1, dtype=numpy.float64))


class _OldStyleSend(cpuframe.Function):
    """chainermn's Send as an old-style Function: an empty "delegate"."""

    def forward(self, inputs):
        self.shape = inputs[0].shape
        return numpy.empty((0,), numpy.float32),

    def backward(self, inputs, grad_outputs):
        return numpy.full(self.shape, 3, numpy.float32),


@pytest.mark.parametrize('device', DEVICES)
def test_backward_of_an_old_style_delegate(device):
    x = _on(device, _arr(2))
    phi = _OldStyleSend()(x * 2)
    assert phi.shape == (0,)
    phi.backward()
    numpy.testing.assert_allclose(_host(x.grad), [6.0, 6.0])


def test_mixed16_parameters_are_float16():
    from cpuframe import initializers
    with cpuframe.using_config('dtype', cpuframe.mixed16):
        p = cpuframe.Parameter(initializers.Normal(), (3,))
        assert p.dtype == numpy.float16 and p.array.dtype == numpy.float16
        a = initializers.generate_array(initializers.Normal(), (2, 2), numpy)
        assert a.dtype == numpy.float16


@pytest.mark.parametrize('device', DEVICES)
def test_check_backward_dtype_with_a_link_on_the_device(device):
    import cpuframe.links as L
    link = L.Linear(3, 2)
    link.to_device(device)
    W_before = _host(link.W).copy()
    x = _arr(4, 3)
    gradient_check.check_backward(
        link, x, _arr(4, 2, seed=1), params=(link.W, link.b),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    assert link.W.dtype == numpy.float32
    assert type(link.W.array) is type(link.b.array)
    numpy.testing.assert_array_equal(_host(link.W), W_before)
    if device == '@intel64':
        assert intel64.is_native_array(link.W.array)
