"""F.as_strided: strides and offset in elements over x's buffer."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F


def test_sliding_windows_and_gradient_counts():
    x = cpuframe.Variable(numpy.arange(5, dtype=numpy.float32))
    y = F.as_strided(x, (4, 2), (1, 1), 0)
    numpy.testing.assert_array_equal(
        y.array, [[0, 1], [1, 2], [2, 3], [3, 4]])
    y.grad = numpy.ones((4, 2), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1, 2, 2, 2, 1])


def test_offset_negative_strides_and_view_input():
    base = numpy.arange(12, dtype=numpy.float64)
    view = base.reshape(3, 4)[1:, ::2]  # elements 4, 6, 8, 10
    y = F.as_strided(view, (3,), (-2,), 10)
    numpy.testing.assert_array_equal(y.array, [10, 8, 6])
    # Default offset: the first element of the view.
    y = F.as_strided(view, (2, 2), (4, 2))
    numpy.testing.assert_array_equal(y.array, view)
    # The whole buffer is addressable through any view of it.
    y = F.as_strided(view, (2,), (1,), 0)
    numpy.testing.assert_array_equal(y.array, [0, 1])


def test_gradient_matches_numerical():
    rs = numpy.random.RandomState(0)
    x = rs.randn(6)
    gy = rs.randn(3, 2)

    def f(v):
        return F.sum(F.as_strided(v, (3, 2), (2, 1), 0) * gy)

    xv = cpuframe.Variable(x.copy())
    f(xv).backward()
    eps = 1e-6
    num = numpy.zeros_like(x)
    for i in range(6):
        for sgn in (1, -1):
            xx = x.copy()
            xx[i] += sgn * eps
            num[i] += sgn * float(f(xx).array) / (2 * eps)
    numpy.testing.assert_allclose(xv.grad, num, rtol=1e-6, atol=1e-8)


def test_overlapping_input_shares_the_gradient():
    buf = numpy.arange(3, dtype=numpy.float64)
    x = numpy.lib.stride_tricks.as_strided(buf, (2, 2), (8, 8))  # overlap
    xv = cpuframe.Variable(x)
    y = F.as_strided(xv, (3,), (1,), 0)
    y.grad = numpy.array([1.0, 2.0, 3.0])
    y.backward()
    # x = [[b0, b1], [b1, b2]]: b1's gradient 2 is split between two cells.
    numpy.testing.assert_allclose(xv.grad, [[1.0, 1.0], [1.0, 3.0]])


def test_out_of_buffer():
    x = numpy.zeros(4, numpy.float32)
    with pytest.raises(ValueError, match='too large'):
        F.as_strided(x, (5,), (1,), 0)
    with pytest.raises(ValueError, match='too small'):
        F.as_strided(x, (2,), (-1,), 0)


def test_no_double_backprop():
    x = cpuframe.Variable(numpy.arange(3, dtype=numpy.float64))
    y = F.as_strided(x, (2,), (1,), 1)
    y.grad_var = cpuframe.Variable(numpy.ones(2))
    y.backward(enable_double_backprop=True)
    with pytest.raises(NotImplementedError):
        x.grad_var.grad = numpy.ones(3)
        x.grad_var.backward()
