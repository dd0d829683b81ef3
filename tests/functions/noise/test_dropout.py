import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

DTYPES = [numpy.float32, numpy.float64]


def _input(shape, dtype, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('ratio', [0.5, 0.25, 0.9])
def test_forward_train(dtype, ratio):
    x = _input((4, 5), dtype)
    numpy.random.seed(0)
    y, mask = F.dropout(x, ratio, return_mask=True)
    assert y.dtype == dtype and y.shape == x.shape
    assert mask.dtype == dtype and mask.shape == x.shape
    scale = 1.0 / (1.0 - ratio)
    kept = mask != 0
    numpy.testing.assert_allclose(mask[kept], scale, rtol=1e-6)
    numpy.testing.assert_allclose(y.array, x * kept * scale, rtol=1e-6)


def test_mask_follows_numpy_random_uniform_draws():
    x = _input((3, 4), numpy.float64)
    numpy.random.seed(7)
    y, mask = F.dropout(x, 0.4, return_mask=True)
    numpy.random.seed(7)
    u = numpy.random.random_sample(x.shape)
    expected = numpy.where(u >= 0.4, 1.0 / 0.6, 0.0)
    numpy.testing.assert_allclose(mask, expected)


def test_deterministic_under_seed():
    x = _input((5, 6), numpy.float32)
    numpy.random.seed(3)
    y1 = F.dropout(x).array
    numpy.random.seed(3)
    y2 = F.dropout(x).array
    numpy.testing.assert_array_equal(y1, y2)
    y3 = F.dropout(x).array  # a fresh draw differs
    assert not numpy.array_equal(y1, y3)


def test_ratio_zero_is_identity():
    x = _input((3, 4), numpy.float32)
    y, mask = F.dropout(x, 0.0, return_mask=True)
    numpy.testing.assert_array_equal(y.array, x)
    numpy.testing.assert_array_equal(mask, numpy.ones_like(x))


def test_high_ratio_drop_rate_and_scaling():
    ratio = 0.9
    x = numpy.ones((200, 100), numpy.float32)
    numpy.random.seed(1)
    y = F.dropout(x, ratio).array
    kept = y != 0
    assert abs(kept.mean() - (1 - ratio)) < 0.01
    numpy.testing.assert_allclose(y[kept], 10.0, rtol=1e-5)
    # the expectation is preserved
    assert abs(y.mean() - 1.0) < 0.1


@pytest.mark.parametrize('ratio', [0.5, 0.0])
def test_test_mode_is_identity(ratio):
    x = _input((3, 4), numpy.float32)
    with cpuframe.using_config('train', False):
        y, mask = F.dropout(x, ratio, return_mask=True)
        y_var = F.dropout(cpuframe.Variable(x), ratio)
    assert mask is None
    numpy.testing.assert_array_equal(y.array, x)
    assert isinstance(y, cpuframe.Variable)
    numpy.testing.assert_array_equal(y_var.array, x)


def test_test_mode_returns_the_input_variable():
    x = cpuframe.Variable(_input((2, 3), numpy.float32))
    with cpuframe.using_config('train', False):
        assert F.dropout(x) is x


def test_mask_reuse():
    x1 = _input((3, 4), numpy.float32, seed=1)
    x2 = _input((3, 4), numpy.float32, seed=2)
    y1, mask = F.dropout(x1, 0.5, return_mask=True)
    y2, mask2 = F.dropout(x2, 0.5, mask=mask, return_mask=True)
    numpy.testing.assert_array_equal(mask2, mask)
    numpy.testing.assert_allclose(y2.array, x2 * mask)
    numpy.testing.assert_array_equal(y1.array == 0, y2.array == 0)


def test_backward_uses_the_same_mask():
    x = cpuframe.Variable(_input((3, 4), numpy.float64))
    y, mask = F.dropout(x, 0.5, return_mask=True)
    gy = numpy.random.RandomState(1).uniform(-1, 1, (3, 4))
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(x.grad, gy * mask)


@pytest.mark.parametrize('dtype', DTYPES)
def test_gradient_check_with_fixed_mask(dtype):
    rng = numpy.random.RandomState(2)
    x = _input((3, 4), dtype)
    mask = (rng.uniform(size=x.shape) >= 0.5).astype(dtype) * 2
    gy = rng.uniform(-1, 1, x.shape).astype(dtype)
    ggx = rng.uniform(-1, 1, x.shape).astype(dtype)
    tols = {'dtype': numpy.float64, 'atol': 1e-3, 'rtol': 1e-3} \
        if dtype == numpy.float32 else {}

    def f(x):
        return F.dropout(x, 0.5, mask=mask)

    gradient_check.check_backward(f, x, gy, **tols)
    gradient_check.check_double_backward(f, x, gy, ggx, **tols)


def test_mask_of_another_dtype_is_cast():
    x = _input((2, 3), numpy.float32)
    mask = numpy.full((2, 3), 2.0)
    y = F.dropout(x, mask=mask)
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, x * 2)


@pytest.mark.parametrize('ratio', [1.0, -0.1, 1.5])
def test_bad_ratio_is_rejected(ratio):
    with pytest.raises(ValueError, match='dropout'):
        F.dropout(numpy.zeros(3), ratio)


def test_train_argument_is_rejected():
    with pytest.raises(ValueError, match='train'):
        F.dropout(numpy.zeros(3), 0.5, train=True)


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match='dropout'):
        F.dropout(numpy.zeros(3), 0.5, foo=1)


def test_mask_of_wrong_shape_is_rejected():
    with pytest.raises(type_check.InvalidType, match='(?s)Dropout.*mask'):
        F.dropout(numpy.zeros((2, 3)), mask=numpy.ones((3, 2)))


def test_int_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match='Dropout'):
        F.dropout(numpy.arange(3))
