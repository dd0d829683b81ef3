"""A variable used many times gets its gradients summed as they arrive
(Chainer's default), or all at once under config.lazy_grad_sum; the result
is the same either way."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import variable


@pytest.mark.parametrize('lazy', [False, True])
def test_gradients_of_a_reused_parameter(lazy, monkeypatch):
    sizes = []

    def recording(add):
        def record(grads, enable_double_backprop=False):
            sizes.append(len(grads))
            return add(grads, enable_double_backprop)
        return record

    # (the engine sums Variables, or arrays where nothing records it)
    monkeypatch.setattr(variable, '_add_grads',
                        recording(variable._add_grads))
    monkeypatch.setattr(variable, '_add_grad_arrays',
                        recording(variable._add_grad_arrays))
    rng = numpy.random.default_rng(0)
    w = cpuframe.Parameter(rng.standard_normal((3, 3)).astype(numpy.float32))
    xs = [rng.standard_normal((2, 3)).astype(numpy.float32) for _ in range(10)]
    with cpuframe.using_config('lazy_grad_sum', lazy):
        loss = sum(F.sum(F.tanh(F.matmul(x, w))) for x in xs)
        loss.backward()
    # W's ten gradients: nine sums of two as they come, or one sum of ten.
    if lazy:
        assert 10 in sizes
    else:
        assert max(sizes) == 2
    want = sum(x.T @ (1 - numpy.tanh(x @ w.array) ** 2) for x in xs)
    numpy.testing.assert_allclose(w.grad, want, rtol=1e-5, atol=1e-5)


def test_double_backprop_through_summed_gradients():
    x = cpuframe.Variable(numpy.array([0.3, -0.7], numpy.float32))
    y = F.sum(x * x) + F.sum(x * x * x)
    gx, = cpuframe.grad([y], [x], enable_double_backprop=True)
    ggx, = cpuframe.grad([F.sum(gx)], [x])
    numpy.testing.assert_allclose(gx.array, 2 * x.array + 3 * x.array ** 2,
                                  rtol=1e-6)
    numpy.testing.assert_allclose(ggx.array, 2 + 6 * x.array, rtol=1e-6)
