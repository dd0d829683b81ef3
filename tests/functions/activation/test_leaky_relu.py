"""The intel64 parity tests of this op:
tests/backends/intel64/test_activation.py and test_edge_values.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import testing
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
SLOPES = [0.2, 0.0, -0.3, 1.5]
BACKENDS = [{}, {'use_ideep': 'always'}, {'use_cuda': True}]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype):
    x = numpy.random.uniform(-1, 1, shape)
    x[numpy.abs(x) < 0.1] = -0.5
    return x.astype(dtype)


def _expected(x, slope):
    flat = [v if v >= 0 else slope * v for v in x.astype(numpy.float64).ravel()]
    return numpy.array(flat).reshape(x.shape)


def test_default_slope():
    y = F.leaky_relu(numpy.array([-1.0, 1.0]))
    numpy.testing.assert_allclose(y.array, [-0.2, 1.0])


@testing.fix_random()
@testing.parameterize(*testing.product({
    'dtype': DTYPES,
    'slope': SLOPES,
    'shape': [(3, 4), ()],
}))
@testing.inject_backend_tests(None, BACKENDS)
class TestLeakyReLU(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 0, 'rtol': 1e-6}
        self.check_backward_options = _tols(self.dtype)
        self.check_double_backward_options = _tols(self.dtype)

    def generate_inputs(self):
        return _input(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.leaky_relu(x, slope=self.slope),

    def forward_expected(self, inputs):
        x, = inputs
        return _expected(x, self.slope).astype(self.dtype),


def test_zero_slope_gradient_is_zero_on_the_negative_side():
    x = cpuframe.Variable(numpy.array([-1.0, 2.0]))
    y = F.leaky_relu(x, slope=0.0)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0])


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)LeakyReLU.*Expect'):
        F.leaky_relu(numpy.arange(3))
