"""F.softmax and F.log_softmax along any axis, tested alike.

Both run on the NumPy path only (the fused softmax cross entropy has the
intel64 route: tests/backends/intel64/test_softmax_cross_entropy.py).
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.activation.log_softmax import LogSoftmaxGrad
from cpuframe.functions.activation.softmax import SoftmaxGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
CASES = [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((2, 3, 4), 1),
         ((5,), 0)]


def _softmax_row(row):
    e = numpy.array([numpy.exp(v - row.max()) for v in row])
    return e / e.sum()


def _log_softmax_row(row):
    return row - numpy.log(sum(numpy.exp(v) for v in row))


# name: (function, its gradient node, its class name in errors, the
# reference of one row in float64)
FUNCS = {
    'softmax': (F.softmax, SoftmaxGrad, 'Softmax', _softmax_row),
    'log_softmax': (F.log_softmax, LogSoftmaxGrad, 'LogSoftmax',
                    _log_softmax_row),
}
NAMES = sorted(FUNCS)


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _expected(name, x, axis):
    row_fn = FUNCS[name][3]
    x = numpy.moveaxis(x.astype(numpy.float64), axis, -1)
    y = numpy.empty(x.shape)
    for idx in numpy.ndindex(*x.shape[:-1]):
        y[idx] = row_fn(x[idx])
    return numpy.moveaxis(y, -1, axis)


@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_forward(name, dtype, shape, axis):
    x = numpy.random.RandomState(0).uniform(-3, 3, shape).astype(dtype)
    y = FUNCS[name][0](x, axis=axis)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, _expected(name, x, axis),
                                  rtol=1e-5)


def test_softmax_large_inputs_do_not_overflow():
    with numpy.errstate(over='raise', invalid='raise'):
        y = F.softmax(numpy.array([[1000.0, 1000.0, -1000.0]], numpy.float32))
    numpy.testing.assert_allclose(y.array, [[0.5, 0.5, 0.0]])


def test_log_softmax_numerically_stable():
    x = numpy.array([[1000.0, 0.0, -1000.0]], numpy.float32)
    with numpy.errstate(over='raise', invalid='raise'):
        y = F.log_softmax(x)
    # log(softmax) would give -inf for the last two entries
    numpy.testing.assert_allclose(y.array, [[0.0, -1000.0, -2000.0]])


@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_backward(name, dtype, shape, axis):
    fn = FUNCS[name][0]
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gy = rng.uniform(-1, 1, shape).astype(dtype)
    gradient_check.check_backward(lambda x: fn(x, axis), x, gy,
                                  **_tols(dtype))


@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('shape,axis', CASES)
def test_double_backward(name, shape, axis):
    fn = FUNCS[name][0]
    rng = numpy.random.RandomState(2)
    x, gy, ggx = rng.uniform(-2, 2, (3,) + shape)
    gradient_check.check_double_backward(lambda x: fn(x, axis), x, gy, ggx)


@pytest.mark.parametrize('name', NAMES)
def test_grad_node_double_backward(name):
    fn, grad_node = FUNCS[name][:2]
    rng = numpy.random.RandomState(3)
    y = fn(rng.uniform(-1, 1, (3, 4))).array
    gy, ggx, gggy = rng.uniform(-1, 1, (3, 3, 4))
    gggx = rng.uniform(-1, 1, (3, 4))
    gradient_check.check_double_backward(
        lambda y, gy: grad_node(1).apply((y, gy))[0], (y, gy), ggx,
        (gggx, gggy))


def test_softmax_backward_uses_the_output():
    x = cpuframe.Variable(numpy.array([[0.1, 0.2]]))
    F.softmax(x)
    assert x.node.data is None


@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range_is_rejected(name, axis):
    fn, _, label, _ = FUNCS[name]
    with pytest.raises(type_check.InvalidType, match='(?s){}.*axis'.format(label)):
        fn(numpy.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize('name', NAMES)
def test_int_input_is_rejected(name):
    fn, _, label, _ = FUNCS[name]
    with pytest.raises(type_check.InvalidType, match=label):
        fn(numpy.zeros((2, 3), numpy.int32))
