import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import FunctionNode, Parameter, gradient_check


class WrongSquare(FunctionNode):
    """y = x^2 with the gradient off by a factor (a deliberately bad op)."""

    def __init__(self, factor=2.0, gg_factor=2.0):
        self.factor = factor
        self.gg_factor = gg_factor

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, gys):
        x, = self.get_retained_inputs()
        return _ScaledMul(self.factor, self.gg_factor).apply((x, gys[0]))


class _ScaledMul(FunctionNode):
    """factor * x * gy, with a second-order gradient scaled by gg_factor."""

    def __init__(self, factor, gg_factor):
        self.factor = factor
        self.gg_factor = gg_factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        return (self.factor * x * gy).astype(x.dtype),

    def backward(self, indexes, ggs):
        x, gy = self.get_retained_inputs()
        out = []
        for i in indexes:
            out.append(ggs[0] * gy * self.gg_factor if i == 0
                       else ggs[0] * x * self.factor)
        return tuple(out)


def _x(shape=(3, 4), seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def test_numerical_grad_matches_analytic():
    x = _x()
    gy = _x(seed=1)
    gx, = gradient_check.numerical_grad(lambda: (x ** 3,), (x,), (gy,))
    numpy.testing.assert_allclose(gx, 3 * x ** 2 * gy, rtol=1e-5, atol=1e-6)


def test_numerical_grad_rejects_bad_eps():
    with pytest.raises(ValueError, match='eps'):
        gradient_check.numerical_grad(lambda: (1,), (), (), eps=0)


def test_check_backward_accepts_correct_gradient():
    gradient_check.check_backward(
        lambda x: WrongSquare(2.0).apply((x,))[0], _x(), _x(seed=1))


def test_check_backward_detects_wrong_gradient():
    with pytest.raises(AssertionError, match='check_backward failed'):
        gradient_check.check_backward(
            lambda x: WrongSquare(2.1).apply((x,))[0], _x(), _x(seed=1))


def test_check_backward_float32_with_float64_evaluation():
    x = _x().astype(numpy.float32)
    gy = _x(seed=1).astype(numpy.float32)
    gradient_check.check_backward(lambda x: x * x * x, x, gy,
                                  dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    with pytest.raises(AssertionError):
        gradient_check.check_backward(
            lambda x: WrongSquare(2.2).apply((x,))[0], x, gy,
            dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_check_backward_with_params_and_no_grads():
    w = Parameter(numpy.random.RandomState(2).uniform(-1, 1, (3, 4)))
    gradient_check.check_backward(
        lambda x, c: x * w * w + c, (_x(), _x(seed=3)), _x(seed=1),
        params=(w,), no_grads=[False, True])


def test_check_backward_detects_wrong_param_gradient():
    w = Parameter(numpy.random.RandomState(2).uniform(0.5, 1, (3, 4)))
    with pytest.raises(AssertionError):
        gradient_check.check_backward(
            lambda x: x * WrongSquare(2.3).apply((w,))[0], _x(), _x(seed=1),
            params=(w,))


def test_check_backward_scalar_output():
    gradient_check.check_backward(lambda x: F.sum(x * x), _x(), None)


def test_check_double_backward_accepts_and_detects():
    x, gy, ggx = _x(), _x(seed=1), _x(seed=2)
    gradient_check.check_double_backward(
        lambda x: WrongSquare(2.0, 2.0).apply((x,))[0], x, gy, ggx)
    with pytest.raises(AssertionError):
        gradient_check.check_double_backward(
            lambda x: WrongSquare(2.0, 2.5).apply((x,))[0], x, gy, ggx)


def test_check_double_backward_mul_two_inputs():
    a, b = _x(), _x(seed=1)
    gradient_check.check_double_backward(
        lambda a, b: a * b, (a, b), _x(seed=2), (_x(seed=3), _x(seed=4)))


def test_assert_allclose_accepts_variables():
    a = numpy.ones(2, numpy.float32)
    cpuframe.testing.assert_allclose(cpuframe.Variable(a), a)
    with pytest.raises(AssertionError):
        cpuframe.testing.assert_allclose(a, a + 1)


class TestDetectNondifferentiable:
    """``detect_nondifferentiable=True`` tells a kink from a wrong gradient
    (Chainer's NondifferentiableError)."""

    def test_relu_at_its_kink_raises_nondifferentiable(self):
        import cpuframe.functions as F
        x = numpy.array([0.0, 1.0], numpy.float64)
        gy = numpy.array([1.0, 1.0])
        with pytest.raises(gradient_check.NondifferentiableError,
                           match='not differentiable'):
            gradient_check.check_backward(F.relu, x, gy,
                                          detect_nondifferentiable=True)
        # Without detection the kink shows as a gradient mismatch.
        with pytest.raises(AssertionError):
            gradient_check.check_backward(F.relu, x, gy)

    def test_smooth_functions_pass(self):
        import cpuframe.functions as F
        x = numpy.random.RandomState(0).uniform(-2, 2, (3, 4))
        gy = numpy.random.RandomState(1).uniform(-1, 1, (3, 4))
        gradient_check.check_backward(F.tanh, x, gy,
                                      detect_nondifferentiable=True)
        gradient_check.check_backward(F.relu, numpy.abs(x) + 0.1, gy,
                                      detect_nondifferentiable=True)

    def test_double_backward_passes_the_flag(self):
        import cpuframe.functions as F
        x = numpy.array([0.5, -0.7], numpy.float64)
        gradient_check.check_double_backward(
            lambda v: F.sin(v) * v, x, numpy.ones(2), numpy.ones(2),
            detect_nondifferentiable=True)
