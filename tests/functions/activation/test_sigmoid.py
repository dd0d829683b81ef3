import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check, testing
from cpuframe.backend import Intel64Device
from cpuframe.functions.activation.sigmoid import SigmoidGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
BACKENDS = [{}, {'use_ideep': 'always'}, {'use_cuda': True}]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x.astype(numpy.float64)))


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


@pytest.mark.parametrize('dtype', DTYPES)
def test_forward_saturates_without_overflow(dtype):
    x = numpy.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype)
    with numpy.errstate(all='raise'):
        y = F.sigmoid(x).array
    numpy.testing.assert_allclose(y, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-7)


@testing.fix_random()
@testing.parameterize(*testing.product({
    'dtype': DTYPES,
    'shape': [(3, 2), (), (2, 0)],
}))
@testing.inject_backend_tests(None, BACKENDS)
class TestSigmoid(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 0, 'rtol': 1e-6}
        self.check_backward_options = _tols(self.dtype)
        self.check_double_backward_options = _tols(self.dtype)

    def generate_inputs(self):
        return numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        y = F.sigmoid(x)
        if device.xp is numpy and not isinstance(device, Intel64Device):
            assert isinstance(y.array, numpy.ndarray)
        return y,

    def forward_expected(self, inputs):
        x, = inputs
        return numpy.asarray(_sigmoid(x)).astype(self.dtype),


def test_sigmoid_grad_double_backward():
    # SigmoidGrad's own backward (third-order terms) against numerics.
    rng = numpy.random.RandomState(3)
    y = rng.uniform(0.05, 0.95, (4,))
    gy = rng.uniform(-1, 1, (4,))
    ggx = rng.uniform(-1, 1, (4,))
    gggy = rng.uniform(-1, 1, (4,))
    gggx = rng.uniform(-1, 1, (4,))
    gradient_check.check_double_backward(
        lambda y, gy: SigmoidGrad().apply((y, gy))[0], (y, gy), ggx,
        (gggy, gggx))


def test_gradient_values():
    x = cpuframe.Variable(numpy.array([0.0, 0.5, -1.0]))
    gx, = cpuframe.grad([F.sigmoid(x)], [x], [numpy.ones(3)],
                        enable_double_backprop=True)
    s = _sigmoid(x.array)
    numpy.testing.assert_allclose(gx.array, s * (1 - s))
    ggx, = cpuframe.grad([gx], [x], [numpy.ones(3)])
    numpy.testing.assert_allclose(ggx.array, s * (1 - s) * (1 - 2 * s))


def test_backward_uses_the_output_not_the_input():
    x = cpuframe.Variable(numpy.array([0.3, -0.7]))
    y = F.sigmoid(x)
    assert x.node.data is None
    y.grad = numpy.ones(2)
    y.backward()
    s = _sigmoid(x.array)
    numpy.testing.assert_allclose(x.grad, s * (1 - s))


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Sigmoid.*Expect'):
        F.sigmoid(numpy.arange(3))
