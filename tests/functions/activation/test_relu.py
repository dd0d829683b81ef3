"""The intel64 parity tests of this op:
tests/backends/intel64/test_activation.py, test_edge_values.py and
test_conv_relu_fusion.py.
"""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import testing
from cpuframe.backend import Intel64Device
from cpuframe.functions.activation.relu import ReLUGrad
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
BACKENDS = [{}, {'use_ideep': 'always'}, {'use_cuda': True}]


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


def _input(shape, dtype):
    x = numpy.random.uniform(-1, 1, shape)
    x[numpy.abs(x) < 0.1] = 0.5  # away from the kink at 0
    return x.astype(dtype)


@testing.fix_random()
@testing.parameterize(*testing.product({
    'dtype': DTYPES,
    'shape': [(3, 4), (), (2, 0), (2, 3, 2)],
}))
@testing.inject_backend_tests(None, BACKENDS)
class TestReLU(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 0, 'rtol': 0}
        self.check_backward_options = _tols(self.dtype)
        self.check_double_backward_options = _tols(self.dtype)

    def generate_inputs(self):
        return _input(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        y = F.relu(x)
        if device.xp is numpy and not isinstance(device, Intel64Device):
            assert isinstance(y.array, numpy.ndarray)
        return y,

    def forward_expected(self, inputs):
        x, = inputs
        return numpy.array([v if v > 0 else 0 for v in x.ravel()],
                           self.dtype).reshape(self.shape),


def test_backward_is_relu_grad_of_the_output():
    x = cpuframe.Variable(numpy.array([-1.0, 0.0, 2.0]))
    y = F.relu(x)
    assert x.node.data is None  # the input is not retained
    gy = cpuframe.Variable(numpy.array([3.0, 4.0, 5.0]))
    gx, = cpuframe.grad([y], [x], [gy],
                        enable_double_backprop=True)
    assert isinstance(gx.creator, ReLUGrad)
    numpy.testing.assert_array_equal(gx.array, [0.0, 0.0, 5.0])


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)ReLU.*Expect'):
        F.relu(numpy.arange(3))
