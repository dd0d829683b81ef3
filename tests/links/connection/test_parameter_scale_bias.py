import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check


def _rand(shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


# -- Parameter ---------------------------------------------------------------
def test_parameter_holds_w():
    a = _rand((2, 3), dtype=numpy.float32)
    link = L.Parameter(a)
    assert [n for n, _ in link.namedparams()] == ['/W']
    assert link.W.shape == (2, 3)
    out = link()
    numpy.testing.assert_array_equal(out.array, a)
    assert out.creator is not None  # connected to W through identity
    cpuframe.functions.sum(out * 3.0).backward()
    numpy.testing.assert_array_equal(link.W.grad, numpy.full((2, 3), 3.0))


def test_parameter_gradient():
    a = _rand((2, 3))
    link = L.Parameter(a.copy())
    gy = _rand((2, 3), seed=1)
    gradient_check.check_backward(lambda: link() * 2.0, (), gy,
                                  params=(link.W,), atol=1e-6, rtol=1e-5)


def test_parameter_bad_input():
    with pytest.raises(TypeError, match='Parameter'):
        L.Parameter([1.0, 2.0])


# -- reference ---------------------------------------------------------------
def _expand(y, x_ndim, axis):
    return y.reshape((1,) * axis + y.shape + (1,) * (x_ndim - axis - y.ndim))


# -- Bias ------------------------------------------------------------------
@pytest.mark.parametrize('x_shape,axis,b_shape', [
    ((2, 3, 4), 1, (3,)),
    ((2, 3, 4), 1, (3, 4)),
    ((2, 3, 4), 0, (2,)),
    ((2, 3, 4), 2, (4,)),
    ((2, 3), 0, (2, 3)),
])
def test_bias_learned(x_shape, axis, b_shape):
    link = L.Bias(axis=axis, shape=b_shape)
    assert [n for n, _ in link.namedparams()] == ['/b']
    assert link.b.shape == b_shape and (link.b.array == 0).all()
    link.b.array[...] = _rand(b_shape, seed=2, dtype=numpy.float32)
    x = _rand(x_shape, dtype=numpy.float32)
    y = link(x)
    expect = x + _expand(link.b.array, len(x_shape), axis)
    numpy.testing.assert_allclose(y.array, expect, rtol=1e-6)
    # gradients to x and b
    link.b.array = link.b.array.astype(numpy.float64)
    x64 = x.astype(numpy.float64)
    gy = _rand(x_shape, seed=3)
    gradient_check.check_backward(link, x64, gy, params=(link.b,),
                                  atol=1e-6, rtol=1e-5)


def test_bias_two_inputs():
    link = L.Bias(axis=1)
    assert list(link.namedparams()) == []
    x = _rand((2, 3, 4))
    b = _rand((3,), seed=1)
    numpy.testing.assert_allclose(link(x, b).array, x + b[None, :, None])
    gradient_check.check_backward(link, (x, b), _rand((2, 3, 4), seed=2),
                                  atol=1e-6, rtol=1e-5)


def test_bias_default_axis():
    link = L.Bias(shape=(3,))
    assert link.axis == 1


@pytest.mark.parametrize('x_shape,axis,b_shape', [
    ((2, 3, 4), 1, (4,)),
    ((2, 3, 4), 2, (4, 1)),
    ((2, 3), 1, (3, 5)),
])
def test_bias_shape_mismatch(x_shape, axis, b_shape):
    link = L.Bias(axis=axis, shape=b_shape)
    with pytest.raises(ValueError, match='Bias'):
        link(_rand(x_shape, dtype=numpy.float32))


def test_bias_bad_arity():
    with pytest.raises(ValueError, match='Bias'):
        L.Bias(shape=(3,))(_rand((2, 3)), _rand((3,)), _rand((3,)))
    with pytest.raises(ValueError, match='Bias'):
        L.Bias()(_rand((2, 3)))


def test_bias_dtype_mismatch():
    with pytest.raises(ValueError, match='Bias'):
        L.Bias(shape=(3,))(_rand((2, 3)))  # float64 x, float32 b


# -- Scale -------------------------------------------------------------------
@pytest.mark.parametrize('x_shape,axis,w_shape', [
    ((2, 3, 4), 1, (3,)),
    ((2, 3, 4), 1, (3, 4)),
    ((2, 3, 4), 0, (2,)),
    ((2, 3, 4), 2, (4,)),
])
@pytest.mark.parametrize('bias_term', [False, True])
def test_scale_learned(x_shape, axis, w_shape, bias_term):
    link = L.Scale(axis=axis, W_shape=w_shape, bias_term=bias_term)
    names = [n for n, _ in link.namedparams()]
    assert names == (['/W', '/bias/b'] if bias_term else ['/W'])
    assert link.W.shape == w_shape and (link.W.array == 1).all()
    params = [link.W]
    link.W.array = _rand(w_shape, seed=4)
    if bias_term:
        assert link.bias.b.shape == w_shape
        link.bias.b.array = _rand(w_shape, seed=5)
        params.append(link.bias.b)
    x = _rand(x_shape)
    expect = x * _expand(link.W.array, len(x_shape), axis)
    if bias_term:
        expect = expect + _expand(link.bias.b.array, len(x_shape), axis)
    numpy.testing.assert_allclose(link(x).array, expect, rtol=1e-12)
    gradient_check.check_backward(link, x, _rand(x_shape, seed=6),
                                  params=tuple(params), atol=1e-6, rtol=1e-5)


def test_scale_two_inputs_with_bias_shape():
    link = L.Scale(axis=1, bias_term=True, bias_shape=(3,))
    assert [n for n, _ in link.namedparams()] == ['/bias/b']
    link.bias.b.array = _rand((3,), seed=7)
    x = _rand((2, 3, 4))
    w = _rand((3,), seed=8)
    expect = x * w[None, :, None] + link.bias.b.array[None, :, None]
    numpy.testing.assert_allclose(link(x, w).array, expect, rtol=1e-12)
    gradient_check.check_backward(link, (x, w), _rand((2, 3, 4), seed=9),
                                  params=(link.bias.b,), atol=1e-6, rtol=1e-5)


def test_scale_defaults():
    link = L.Scale()
    assert link.axis == 1
    assert list(link.namedparams()) == []
    x, w = _rand((2, 3)), _rand((3,), seed=1)
    numpy.testing.assert_allclose(link(x, w).array, x * w)


def test_scale_bias_term_needs_shape():
    with pytest.raises(ValueError, match='Scale'):
        L.Scale(bias_term=True)


def test_scale_shape_mismatch():
    link = L.Scale(axis=1, W_shape=(4,))
    with pytest.raises(ValueError, match='Scale'):
        link(_rand((2, 3, 4), dtype=numpy.float32))


def test_scale_bad_arity():
    with pytest.raises(ValueError, match='Scale'):
        L.Scale(W_shape=(3,))(_rand((2, 3)), _rand((3,)))
    with pytest.raises(ValueError, match='Scale'):
        L.Scale()(_rand((2, 3)))


def test_scale_backward_end_to_end():
    link = L.Scale(axis=1, W_shape=(3,), bias_term=True)
    x = cpuframe.Variable(_rand((2, 3, 2), dtype=numpy.float32))
    link.cleargrads()  # gradients start NaN-filled, as in Chainer
    loss = cpuframe.functions.sum(link(x))
    loss.backward()
    assert link.W.grad is not None and link.bias.b.grad is not None
    numpy.testing.assert_allclose(link.W.grad, x.array.sum(axis=(0, 2)),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(link.bias.b.grad, [4.0, 4.0, 4.0])
