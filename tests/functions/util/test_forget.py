import gc
import weakref

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links  # noqa: F401
from cpuframe import gradient_check


def _two_outputs(a, b):
    h = F.tanh(a * b)
    return h * a, F.sin(h) + b


def test_forward_and_grads_equal_plain():
    rng = numpy.random.RandomState(0)
    a0, b0 = rng.randn(3, 4), rng.randn(3, 4)
    gy0, gy1 = rng.randn(3, 4), rng.randn(3, 4)
    grads = []
    for wrap in (False, True):
        a, b = cpuframe.Variable(a0.copy()), cpuframe.Variable(b0.copy())
        ys = F.forget(_two_outputs, a, b) if wrap else _two_outputs(a, b)
        assert isinstance(ys, tuple) and len(ys) == 2
        loss = F.sum(ys[0] * gy0) + F.sum(ys[1] * gy1)
        loss.backward()
        grads.append((ys[0].array, ys[1].array, a.grad, b.grad))
    for plain, forgot in zip(*grads):
        numpy.testing.assert_allclose(forgot, plain, rtol=1e-12)


def test_single_output_is_a_variable():
    y = F.forget(lambda x: x * 2, cpuframe.Variable(numpy.ones(2)))
    assert isinstance(y, cpuframe.Variable)


def test_intermediates_are_not_retained():
    calls = []
    refs = []

    def func(x):
        calls.append(1)
        h = F.exp(x)   # an intermediate result
        refs.append(weakref.ref(h))
        return F.sum(h * h)

    x = cpuframe.Variable(numpy.array([0.5, -1.0]))
    y = F.forget(func, x)
    gc.collect()
    assert refs[0]() is None    # freed right after the forward pass
    # the graph holds only the forget node, fed by x directly
    assert type(y.creator).__name__ == 'Forget'
    assert [n is x.node for n in y.creator.inputs] == [True]
    y.backward()
    assert len(calls) == 2      # recomputed once, in backward
    numpy.testing.assert_allclose(x.grad, 2 * numpy.exp(2 * x.array))


def test_backward_and_double_backward():
    rng = numpy.random.RandomState(1)
    a, b = rng.randn(2, 3), rng.randn(2, 3)
    gys = (rng.randn(2, 3), rng.randn(2, 3))
    ggs = (rng.randn(2, 3), rng.randn(2, 3))

    def f(a, b):
        return F.forget(_two_outputs, a, b)
    gradient_check.check_backward(f, (a, b), gys, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(f, (a, b), gys, ggs, atol=1e-6,
                                         rtol=1e-4)


def test_constant_input_gets_no_grad():
    x = cpuframe.Variable(numpy.array([1., 2.]))
    c = numpy.array([3., 4.])
    F.sum(F.forget(lambda x, c: x * c, x, c)).backward()
    numpy.testing.assert_array_equal(x.grad, c)


def test_bad_func():
    x = cpuframe.Variable(numpy.ones(2))
    with pytest.raises(TypeError, match='forget: func must be callable'):
        F.forget(None, x)
    with pytest.raises(RuntimeError, match='forget: func must return'):
        F.forget(lambda x: x.array, x)
    with pytest.raises(RuntimeError, match='forget: func must return'):
        F.forget(lambda x: [x], x)


def test_link_parameters_get_gradients():
    rng = numpy.random.RandomState(2)
    x0 = rng.randn(4, 3)
    grads = []
    for wrap in (False, True):
        numpy.random.seed(0)
        link = cpuframe.links.Linear(3, 2)
        link.W.array = link.W.array.astype(numpy.float64)
        link.b.array = link.b.array.astype(numpy.float64)
        x = cpuframe.Variable(x0.copy())

        def f(x, link=link):
            return F.tanh(link(x))
        y = F.forget(f, x) if wrap else f(x)
        link.cleargrads()
        F.sum(y * y).backward()
        grads.append((x.grad, link.W.grad, link.b.grad))
    for plain, forgot in zip(*grads):
        assert forgot is not None
        numpy.testing.assert_allclose(forgot, plain, rtol=1e-12)
