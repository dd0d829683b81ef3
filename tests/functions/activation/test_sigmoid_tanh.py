"""F.sigmoid and F.tanh: the two output-based activations, tested alike.

Their intel64 parity tests (NaN, infinities, huge values, layouts) are in
tests/backends/intel64/test_activation.py and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check, testing
from cpuframe.backend import Intel64Device
from cpuframe.functions.activation.sigmoid import SigmoidGrad
from cpuframe.functions.activation.tanh import TanhGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
BACKENDS = [{}, {'use_ideep': 'always'}, {'use_cuda': True}]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x.astype(numpy.float64)))


# name: (function, its gradient node, reference, derivative and second
# derivative as functions of the output y, a range of y inside the open
# output interval for the gradient node's own checks)
FUNCS = {
    'sigmoid': (F.sigmoid, SigmoidGrad, _sigmoid,
                lambda s: s * (1 - s), lambda s: s * (1 - s) * (1 - 2 * s),
                (0.05, 0.95)),
    'tanh': (F.tanh, TanhGrad, numpy.tanh,
             lambda t: 1 - t * t, lambda t: -2 * t * (1 - t * t),
             (-0.9, 0.9)),
}


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', DTYPES)
def test_sigmoid_saturates_without_overflow(dtype):
    x = numpy.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype)
    with numpy.errstate(all='raise'):
        y = F.sigmoid(x).array
    numpy.testing.assert_allclose(y, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-7)


@testing.fix_random()
@testing.parameterize(*testing.product({
    'name': sorted(FUNCS),
    'dtype': DTYPES,
    'shape': [(3, 2), (), (2, 0)],
}))
@testing.inject_backend_tests(None, BACKENDS)
class TestSigmoidTanh(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 0, 'rtol': 1e-6}
        self.check_backward_options = _tols(self.dtype)
        self.check_double_backward_options = _tols(self.dtype)

    def generate_inputs(self):
        return numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        y = FUNCS[self.name][0](x)
        if device.xp is numpy and not isinstance(device, Intel64Device):
            assert isinstance(y.array, numpy.ndarray)
        return y,

    def forward_expected(self, inputs):
        x, = inputs
        reference = FUNCS[self.name][2]
        return numpy.asarray(reference(x)).astype(self.dtype),


@pytest.mark.parametrize('name', sorted(FUNCS))
def test_grad_node_double_backward(name):
    # The gradient node's own backward (third-order terms) against numerics.
    grad_node, y_range = FUNCS[name][1], FUNCS[name][5]
    rng = numpy.random.RandomState(3)
    y = rng.uniform(*y_range, (4,))
    gy = rng.uniform(-1, 1, (4,))
    ggx = rng.uniform(-1, 1, (4,))
    gggy = rng.uniform(-1, 1, (4,))
    gggx = rng.uniform(-1, 1, (4,))
    gradient_check.check_double_backward(
        lambda y, gy: grad_node().apply((y, gy))[0], (y, gy), ggx,
        (gggy, gggx))


@pytest.mark.parametrize('name', sorted(FUNCS))
def test_gradient_values(name):
    fn, _, reference, d1, d2, _ = FUNCS[name]
    x = cpuframe.Variable(numpy.array([0.0, 0.5, -1.0]))
    gx, = cpuframe.grad([fn(x)], [x], [numpy.ones(3)],
                        enable_double_backprop=True)
    y = reference(x.array)
    numpy.testing.assert_allclose(gx.array, d1(y))
    ggx, = cpuframe.grad([gx], [x], [numpy.ones(3)])
    numpy.testing.assert_allclose(ggx.array, d2(y))


@pytest.mark.parametrize('name', sorted(FUNCS))
def test_backward_uses_the_output_not_the_input(name):
    fn, _, reference, d1, _, _ = FUNCS[name]
    x = cpuframe.Variable(numpy.array([0.3, -0.7]))
    y = fn(x)
    assert x.node.data is None
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, d1(reference(x.array)))


@pytest.mark.parametrize('name, label', [('sigmoid', 'Sigmoid'),
                                         ('tanh', 'Tanh')])
def test_int_input_is_rejected(name, label):
    with pytest.raises(type_check.InvalidType, match='(?s){}.*Expect'.format(label)):
        FUNCS[name][0](numpy.arange(3))
