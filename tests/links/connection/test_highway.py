import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import gradient_check


def _rand(shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _ref(x, link, act):
    def lin(layer):
        y = x @ layer.W.array.T
        return y if layer.b is None else y + layer.b.array
    t = 1.0 / (1.0 + numpy.exp(-lin(link.transform)))
    return act(lin(link.plain)) * t + x * (1 - t)


def test_highway_params_and_defaults():
    link = L.Highway(4)
    names = sorted(n for n, _ in link.namedparams())
    assert names == ['/plain/W', '/plain/b', '/transform/W', '/transform/b']
    assert link.plain.W.shape == (4, 4) and link.transform.W.shape == (4, 4)
    assert (link.plain.b.array == 0).all()
    assert (link.transform.b.array == -1).all()
    assert link.activate is F.relu


def test_highway_nobias():
    link = L.Highway(3, nobias=True)
    assert sorted(n for n, _ in link.namedparams()) == ['/plain/W',
                                                        '/transform/W']
    assert link.plain.b is None and link.transform.b is None
    x = _rand((2, 3), dtype=numpy.float32)
    numpy.testing.assert_allclose(
        link(x).array, _ref(x, link, lambda h: numpy.maximum(h, 0)),
        rtol=1e-5, atol=1e-6)


def test_highway_initializers():
    link = L.Highway(2, init_Wh=0.5, init_Wt=numpy.eye(2, dtype=numpy.float32),
                     init_bh=2.0, init_bt=0.0)
    assert (link.plain.W.array == 0.5).all()
    numpy.testing.assert_array_equal(link.transform.W.array, numpy.eye(2))
    assert (link.plain.b.array == 2).all()
    assert (link.transform.b.array == 0).all()


@pytest.mark.parametrize('activate,ref', [
    (F.relu, lambda h: numpy.maximum(h, 0)),
    (F.tanh, numpy.tanh),
])
def test_highway_forward(activate, ref):
    link = L.Highway(5, activate=activate)
    x = _rand((3, 5), dtype=numpy.float32)
    numpy.testing.assert_allclose(link(x).array, _ref(x, link, ref),
                                  rtol=1e-5, atol=1e-6)
    xv = cpuframe.Variable(x)
    numpy.testing.assert_allclose(link(xv).array, _ref(x, link, ref),
                                  rtol=1e-5, atol=1e-6)


def test_highway_gradient():
    link = L.Highway(3, activate=F.tanh)
    for p in link.params():
        p.array = p.array.astype(numpy.float64)
    x = _rand((2, 3))
    gradient_check.check_backward(link, x, _rand((2, 3), seed=1),
                                  params=tuple(link.params()),
                                  atol=1e-6, rtol=1e-5)


def test_highway_grads_reach_every_param():
    link = L.Highway(3)
    x = cpuframe.Variable(_rand((4, 3), dtype=numpy.float32))
    F.sum(link(x)).backward()
    for name, p in link.namedparams():
        assert p.grad is not None, name


def test_highway_bad_input():
    link = L.Highway(3)
    with pytest.raises(ValueError, match='Highway'):
        link(_rand((2, 4), dtype=numpy.float32))
    with pytest.raises(ValueError, match='Highway'):
        link(_rand((2, 3, 1), dtype=numpy.float32))
