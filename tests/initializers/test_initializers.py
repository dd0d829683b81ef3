import numpy
import pytest

from cpuframe import initializers as I


def _fill(init, shape, dtype=numpy.float32):
    a = numpy.empty(shape, dtype)
    init(a)
    return a


@pytest.mark.parametrize('init,expected', [
    (I.Zero(), 0.0), (I.One(), 1.0), (I.Constant(2.5), 2.5)])
def test_constants(init, expected):
    numpy.testing.assert_array_equal(_fill(init, (2, 3)),
                                     numpy.full((2, 3), expected, numpy.float32))


def test_constant_array_broadcast_and_nan():
    a = _fill(I.Constant(numpy.array([1, 2, 3], numpy.float32)), (2, 3))
    numpy.testing.assert_array_equal(a, [[1, 2, 3], [1, 2, 3]])
    assert numpy.isnan(_fill(I.NaN(), (2,))).all()


def test_constant_dtype_mismatch():
    with pytest.raises(ValueError, match='Constant: expected .* float64'):
        I.Constant(1.0, dtype=numpy.float64)(numpy.empty(2, numpy.float32))


@pytest.mark.parametrize('init,std', [
    (I.Normal(0.3), 0.3),
    (I.Uniform(0.3), 0.3 / numpy.sqrt(3)),
    (I.LeCunNormal(), numpy.sqrt(1 / 200)),
    (I.LeCunUniform(), numpy.sqrt(1 / 200)),
    (I.GlorotNormal(), numpy.sqrt(2 / 500)),
    (I.GlorotUniform(), numpy.sqrt(2 / 500)),
    (I.HeNormal(), numpy.sqrt(2 / 200)),
    (I.HeUniform(), numpy.sqrt(2 / 200)),
    (I.HeNormal(fan_option='fan_out'), numpy.sqrt(2 / 300)),
    (I.HeNormal(scale=2.0), 2 * numpy.sqrt(2 / 200)),
])
def test_random_initializer_statistics(init, std):
    numpy.random.seed(0)
    a = _fill(init, (300, 200))
    assert abs(float(a.mean())) < 0.05 * std * 10
    assert abs(float(a.std()) - std) < 0.03 * std


def test_fans_with_kernel():
    assert I.get_fans((8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match='length >= 2'):
        I.get_fans((3,))


def test_uniform_bounds_and_rng():
    rng = numpy.random.RandomState(1)
    a = _fill(I.Uniform(0.5, rng=rng), (1000,))
    assert a.min() >= -0.5 and a.max() <= 0.5
    b = _fill(I.Uniform(0.5, rng=numpy.random.RandomState(1)), (1000,))
    numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('shape', [(3, 5), (5, 3), (4, 2, 2)])
def test_orthogonal(shape):
    a = _fill(I.Orthogonal(scale=2.0), shape, numpy.float64)
    m = a.reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    numpy.testing.assert_allclose(gram, 4 * numpy.eye(min(m.shape)), atol=1e-10)


def test_identity():
    numpy.testing.assert_array_equal(_fill(I.Identity(3.0), (2, 2)),
                                     3 * numpy.eye(2))
    with pytest.raises(ValueError, match='Identity: expected a square'):
        _fill(I.Identity(), (2, 3))


def test_generate_array_dtype():
    a = I.generate_array(I.One(dtype=numpy.float64), (2,), numpy)
    assert a.dtype == numpy.float64
    b = I.generate_array(I.One(), 3, numpy)
    assert b.shape == (3,) and b.dtype == numpy.float32
