import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]
COPY_MODES = ['edge', 'reflect', 'symmetric', 'wrap']


def _tols(dtype):
    if dtype == numpy.float32:
        return {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3}
    return {}


CASES = [
    ((2, 3), 1),
    ((2, 3), (1, 2)),
    ((2, 3), ((0, 1), (2, 0))),
    ((2, 3), ((1, 1),)),
    ((2, 3, 4), ((1, 0), (0, 0), (2, 3))),
    ((4,), 0),
    ((3,), [[2, 1]]),
    ((0, 2), 1),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,pad_width', CASES)
@pytest.mark.parametrize('keywords', [{}, {'constant_values': -1.5},
                                      {'constant_values': ((1, 2),)}])
def test_forward_constant(dtype, shape, pad_width, keywords):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape).astype(dtype)
    y = F.pad(cpuframe.Variable(x), pad_width, 'constant', **keywords)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(
        y.array, numpy.pad(x, pad_width, 'constant', **keywords))


@pytest.mark.parametrize('pad_width', [0, (0, 0), ((0, 0),)])
def test_0dim(pad_width):
    x = cpuframe.Variable(numpy.array(2.0))
    y = F.pad(x, pad_width)
    assert y.shape == ()
    assert float(y.array) == 2.0
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 1.0)
    gradient_check.check_backward(
        lambda x: F.pad(x, pad_width), numpy.array(0.5), numpy.array(2.0))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,pad_width', CASES)
def test_backward_constant(dtype, shape, pad_width):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, numpy.pad(x, pad_width).shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.pad(x, pad_width, constant_values=3.0), x, gy,
        **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('mode', COPY_MODES)
@pytest.mark.parametrize('shape,pad_width', [
    ((3, 4), 2), ((3, 4), ((1, 5), (0, 2))), ((5,), (4, 1))])
def test_copy_modes(dtype, mode, shape, pad_width):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = F.pad(x, pad_width, mode)
    expected = numpy.pad(x, pad_width, mode)
    numpy.testing.assert_array_equal(y.array, expected)
    gy = rng.uniform(-1, 1, expected.shape).astype(dtype)
    gradient_check.check_backward(
        lambda x: F.pad(x, pad_width, mode), x, gy, **_tols(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('mode', ['constant'] + COPY_MODES)
def test_double_backward(dtype, mode):
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = rng.uniform(-1, 1, (4, 6)).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    gradient_check.check_double_backward(
        lambda x: F.pad(x, ((1, 1), (2, 1)), mode) ** 2, x, gy, ggx,
        **_tols(dtype))


def test_edge_gradient_values():
    x = cpuframe.Variable(numpy.array([1.0, 2.0]))
    y = F.pad(x, (2, 1), mode='edge')
    y.grad = numpy.ones(5)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 2.0])


def test_unsupported_backward_mode():
    x = cpuframe.Variable(numpy.array([1.0, 2.0, 4.0]))
    y = F.pad(x, 1, mode='mean')
    numpy.testing.assert_allclose(y.array, numpy.pad(x.array, 1, 'mean'))
    with pytest.raises(NotImplementedError, match="mode='mean'"):
        F.sum(y).backward()


def test_reflect_odd_backward_unsupported():
    x = cpuframe.Variable(numpy.array([1.0, 2.0, 4.0]))
    y = F.pad(x, 1, mode='reflect', reflect_type='odd')
    with pytest.raises(NotImplementedError, match='reflect_type'):
        F.sum(y).backward()


@pytest.mark.parametrize('pad_width', [-1, (1, -1), ((1, 1), (1, 1), (1, 1)),
                                       ((1, 2, 3),), 1.5])
def test_invalid_pad_width(pad_width):
    with pytest.raises(type_check.InvalidType, match='Pad') as e:
        F.pad(numpy.zeros((2, 3), numpy.float32), pad_width)
    assert 'Expect' in str(e.value)
