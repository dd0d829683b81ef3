"""The common ops' forwards return NumPy's result as it is where it is an
array of the input's dtype, and force a 0-d input's scalar (or another
dtype) to an array of the input's dtype: the values of the NumPy
expressions, for every float dtype, 0-d inputs included."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F


def _ref(name, x, y):
    with numpy.errstate(all='ignore'):
        return {
            'relu': lambda: numpy.maximum(x, 0),
            'tanh': lambda: numpy.tanh(x),
            'sigmoid': lambda: numpy.tanh(x * 0.5) * 0.5 + 0.5,
            'add': lambda: x + y, 'sub': lambda: x - y,
            'mul': lambda: x * y, 'div': lambda: x / y,
            'add_constant': lambda: x + 2.5,
            'mul_constant': lambda: x * 2.5,
        }[name]()


def _op(name, x, y):
    xv, yv = cpuframe.Variable(x), cpuframe.Variable(y)
    return {
        'relu': lambda: F.relu(xv), 'tanh': lambda: F.tanh(xv),
        'sigmoid': lambda: F.sigmoid(xv),
        'add': lambda: xv + yv, 'sub': lambda: xv - yv,
        'mul': lambda: xv * yv, 'div': lambda: xv / yv,
        'add_constant': lambda: xv + 2.5, 'mul_constant': lambda: xv * 2.5,
    }[name]()


@pytest.mark.parametrize('name', ['relu', 'tanh', 'sigmoid', 'add', 'sub',
                                  'mul', 'div', 'add_constant',
                                  'mul_constant'])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
@pytest.mark.parametrize('shape', [(), (5,), (2, 3)])
@pytest.mark.parametrize('mode', ['never', 'auto'])
def test_forward_results_are_arrays_of_the_input_dtype(name, dtype, shape,
                                                       mode):
    rng = numpy.random.default_rng(0)
    x = numpy.asarray(rng.standard_normal(shape) * 3, dtype=dtype)
    y = numpy.asarray(rng.standard_normal(shape) + 4, dtype=dtype)
    if shape:
        x.flat[0] = numpy.inf
        y.flat[-1] = numpy.nan
    with cpuframe.using_config('use_ideep', mode), \
            numpy.errstate(all='ignore'):
        out = _op(name, x, y).array
    ref = numpy.asarray(_ref(name, x, y), dtype=dtype)
    assert type(out) is numpy.ndarray
    assert out.dtype == dtype and out.shape == shape
    numpy.testing.assert_array_equal(out, ref)
