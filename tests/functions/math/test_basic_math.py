import operator

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
OPS = [
    pytest.param(operator.add, id='add'),
    pytest.param(operator.sub, id='sub'),
    pytest.param(operator.mul, id='mul'),
    pytest.param(operator.truediv, id='div'),
    pytest.param(operator.pow, id='pow'),
]
LABELS = {operator.add: '_ + _', operator.sub: '_ - _',
          operator.mul: '_ * _', operator.truediv: '_ / _',
          operator.pow: '_ ** _'}
# (operand kinds, lhs shape, rhs shape); None is a Python scalar.
# 'var' operands are Variables (differentiated); 'array' ones are constants.
FORMS = [
    ('var', 'var', (3, 2), (3, 2)),
    ('var', 'var', (3, 1), (1, 2)),
    ('var', 'var', (2, 3), (3,)),
    ('var', 'var', (3, 2), (1,)),
    ('var', 'scalar', (3, 2), None),
    ('scalar', 'var', None, (3, 2)),
    ('var', 'array', (3, 2), (3, 2)),
    ('var', 'array', (2,), (3, 2)),
    ('array', 'var', (3, 2), (3, 2)),
    ('array', 'var', (3, 2), (2,)),
]
FORMS_0DIM = [
    ('var', 'var', (), ()),
    ('var', 'var', (3, 2), ()),
    ('var', 'scalar', (), None),
    ('scalar', 'var', None, ()),
]


def _form(form):
    k0, k1, s0, s1 = form
    name = '{}{}-{}{}'.format(k0, '' if s0 is None else s0,
                              k1, '' if s1 is None else s1)
    return pytest.param(form, id=name.replace(' ', ''))


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _operands(rng, form, dtype):
    """Positive operands in [0.5, 2]: safe for division and pow."""
    kind0, kind1, shape0, shape1 = form

    def make(kind, shape):
        if kind == 'scalar':
            return float(rng.uniform(0.5, 2.0))
        return rng.uniform(0.5, 2.0, shape).astype(dtype)
    return make(kind0, shape0), make(kind1, shape1)


def _as_func(op, form, lhs, rhs):
    """``op`` as a function of the differentiated operands only, plus them.

    Constant arrays follow the dtype of the Variable (gradient_check may
    run the numerical side in float64).
    """
    kind0, kind1 = form[:2]
    if kind0 == 'var' and kind1 == 'var':
        return op, (lhs, rhs)
    if kind0 == 'var':
        if kind1 == 'array':
            return (lambda a: op(a, rhs.astype(a.dtype))), (lhs,)
        return (lambda a: op(a, rhs)), (lhs,)
    if kind0 == 'array':
        return (lambda b: op(lhs.astype(b.dtype), b)), (rhs,)
    return (lambda b: op(lhs, b)), (rhs,)


def _wrap(kind, value):
    return cpuframe.Variable(value) if kind == 'var' else value


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize(
    'form', [_form(f) for f in FORMS + FORMS_0DIM])
def test_binary_forward(op, dtype, form):
    lhs, rhs = _operands(numpy.random.RandomState(0), form, dtype)
    y = op(_wrap(form[0], lhs), _wrap(form[1], rhs))
    assert isinstance(y, cpuframe.Variable)
    assert isinstance(y.array, numpy.ndarray)
    expected = numpy.asarray(op(lhs, rhs))
    assert y.dtype == dtype
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize(
    'form', [_form(f) for f in FORMS + FORMS_0DIM])
def test_binary_backward(op, dtype, form):
    rng = numpy.random.RandomState(1)
    lhs, rhs = _operands(rng, form, dtype)
    func, xs = _as_func(op, form, lhs, rhs)
    y_shape = numpy.asarray(op(lhs, rhs)).shape
    gy = rng.uniform(-1, 1, y_shape).astype(dtype)
    gradient_check.check_backward(func, xs, gy, **_tols(dtype))


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('form', [_form(f) for f in FORMS])
def test_binary_double_backward(op, dtype, form):
    rng = numpy.random.RandomState(2)
    lhs, rhs = _operands(rng, form, dtype)
    func, xs = _as_func(op, form, lhs, rhs)
    y_shape = numpy.asarray(op(lhs, rhs)).shape
    gy = rng.uniform(-1, 1, y_shape).astype(dtype)
    ggx = tuple(rng.uniform(-1, 1, x.shape).astype(dtype) for x in xs)
    gradient_check.check_double_backward(func, xs, gy, ggx, **_tols(dtype))


def test_broadcast_gradients_are_summed_back():
    a = cpuframe.Variable(numpy.ones((2, 3)))
    b = cpuframe.Variable(numpy.array([1.0, 2.0, 3.0]))
    c = cpuframe.Variable(numpy.array(2.0))
    y = a * b + c
    assert y.shape == (2, 3)
    y.grad = numpy.ones((2, 3))
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [[1, 2, 3], [1, 2, 3]])
    numpy.testing.assert_array_equal(b.grad, [2, 2, 2])
    assert c.grad.shape == () and c.grad == 6.0


def test_gradient_values_of_reflected_operators():
    x = cpuframe.Variable(numpy.array([1.0, 2.0]))
    gy = numpy.ones(2)
    for y, expected in [(3.0 - x, [-1.0, -1.0]),
                        (3.0 / x, [-3.0, -0.75]),
                        (2.0 ** x, numpy.log(2.0) * 2.0 ** x.array),
                        (3.0 * x, [3.0, 3.0]),
                        (3.0 + x, [1.0, 1.0])]:
        gx, = cpuframe.grad([y], [x], [gy])
        numpy.testing.assert_allclose(gx.array, expected)


def test_gradient_accumulates_over_uses():
    x = cpuframe.Variable(numpy.array([1.0, -2.0, 3.0]))
    y = x * x + x - x / 2.0
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_allclose(x.grad, 2 * x.array + 0.5)


def test_constant_operand_gets_no_gradient():
    x = cpuframe.Variable(numpy.array([1.0, 2.0]))
    c = cpuframe.Variable(numpy.array([3.0, 4.0]), requires_grad=False)
    y = x * c
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 4.0])
    assert c.grad is None


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('scalar', [2, 2.5, numpy.float64(2.5), numpy.int64(3)])
def test_scalar_operand_keeps_the_variable_dtype(dtype, scalar):
    x = cpuframe.Variable(numpy.ones((2,), dtype))
    for y in (x + scalar, scalar + x, x - scalar, scalar - x, x * scalar,
              scalar * x, x / scalar, scalar / x, x ** scalar, scalar ** x):
        assert y.dtype == dtype


@pytest.mark.parametrize('exponent', [0, 1, 2, 3, 0.5, -1.5])
def test_pow_constant_exponent(exponent):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(0.5, 2.0, (3, 2))
    gy = rng.uniform(-1, 1, (3, 2))
    ggx = rng.uniform(-1, 1, (3, 2))
    y = cpuframe.Variable(x) ** exponent
    numpy.testing.assert_allclose(y.array, x ** exponent)
    gradient_check.check_backward(lambda x: x ** exponent, x, gy)
    gradient_check.check_double_backward(lambda x: x ** exponent, x, gy, ggx)


def test_division_by_zero_constant_follows_numpy():
    x = cpuframe.Variable(numpy.array([1.0, -1.0, 0.0]))
    with numpy.errstate(invalid='ignore', divide='ignore'):
        y = x / 0.0
        expected = x.array / 0.0
    numpy.testing.assert_array_equal(y.array, expected)


def test_add_of_several_inputs():
    xs = [cpuframe.Variable(numpy.full((2,), float(i))) for i in range(4)]
    y = F.add(*xs)
    numpy.testing.assert_array_equal(y.array, [6.0, 6.0])
    y.grad = numpy.ones(2)
    y.backward()
    for x in xs:
        numpy.testing.assert_array_equal(x.grad, [1.0, 1.0])
    gradient_check.check_backward(
        lambda *xs: F.add(*xs), tuple(numpy.random.rand(3, 2)
                                      for _ in range(3)), numpy.ones((3, 2)))


def test_add_of_one_input_is_rejected():
    with pytest.raises(TypeError, match='add'):
        F.add(cpuframe.Variable(numpy.ones(2)))


UNARY = [
    pytest.param(operator.neg, numpy.negative, id='neg-operator'),
    pytest.param(F.neg, numpy.negative, id='F.neg'),
    pytest.param(abs, numpy.abs, id='abs-builtin'),
    pytest.param(F.absolute, numpy.abs, id='F.absolute'),
]


def _away_from_zero(rng, shape, dtype):
    x = rng.uniform(0.2, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    return numpy.asarray(x, dtype)


@pytest.mark.parametrize('func,ref', UNARY)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(3, 2), ()])
def test_unary_forward(func, ref, dtype, shape):
    x = _away_from_zero(numpy.random.RandomState(0), shape, dtype)
    y = func(cpuframe.Variable(x))
    assert isinstance(y.array, numpy.ndarray)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_array_equal(y.array, ref(x))


@pytest.mark.parametrize('func,ref', UNARY)
@pytest.mark.parametrize('dtype', DTYPES)
def test_unary_backward(func, ref, dtype):
    rng = numpy.random.RandomState(1)
    x = _away_from_zero(rng, (3, 2), dtype)
    gy = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    ggx = rng.uniform(-1, 1, (3, 2)).astype(dtype)
    gradient_check.check_backward(func, x, gy, **_tols(dtype))
    gradient_check.check_double_backward(func, x, gy, ggx, **_tols(dtype))


def test_abs_gradient_is_the_sign():
    x = cpuframe.Variable(numpy.array([-2.0, 3.0, -0.5]))
    y = abs(x)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [-1.0, 1.0, -1.0])


def test_unary_plus_is_identity():
    x = cpuframe.Variable(numpy.ones(2))
    assert +x is x


@pytest.mark.parametrize('op', OPS)
def test_dtype_mismatch_is_rejected(op):
    a = cpuframe.Variable(numpy.ones((2, 3), numpy.float32))
    b = cpuframe.Variable(numpy.ones((2, 3), numpy.float64))
    with pytest.raises(type_check.InvalidType) as e:
        op(a, b)
    msg = str(e.value)
    assert LABELS[op] in msg and 'Expect' in msg and 'dtype' in msg


@pytest.mark.parametrize('op', OPS)
def test_incompatible_shapes_are_rejected(op):
    a = cpuframe.Variable(numpy.ones((3, 2), numpy.float32))
    b = cpuframe.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType) as e:
        op(a, b)
    assert LABELS[op] in str(e.value)


@pytest.mark.parametrize('op', OPS)
def test_unsupported_operand_is_rejected(op):
    a = cpuframe.Variable(numpy.ones((2,), numpy.float32))
    with pytest.raises(TypeError):
        op(a, 'text')
    with pytest.raises(TypeError):
        op(a, [1.0, 2.0])


def test_abs_of_int_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r'(?s)\|_\|.*Expect'):
        abs(cpuframe.Variable(numpy.arange(3)))
