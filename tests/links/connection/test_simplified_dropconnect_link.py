import numpy
import pytest

import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import serializers


def test_params_and_forward():
    link = L.SimplifiedDropconnect(3, 4, ratio=0.3)
    assert link.W.shape == (4, 3) and link.b.shape == (4,)
    assert (link.b.array == 0).all()
    x = numpy.random.RandomState(0).uniform(-1, 1, (5, 3)).astype(
        numpy.float32)
    mask = numpy.random.RandomState(1).uniform(size=(5, 4, 3)) < 0.5
    y = link(x, mask=mask)
    numpy.testing.assert_allclose(
        y.array, F.simplified_dropconnect(x, link.W, link.b, 0.3,
                                          mask=mask).array)
    assert 'mask' in link._persistent
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert link.W.grad.shape == (4, 3)
    numpy.testing.assert_allclose(
        link(x, train=False).array, x.dot(link.W.array.T) + link.b.array,
        rtol=1e-6, atol=1e-6)


def test_lazy_nobias_and_initializers():
    link = L.SimplifiedDropconnect(None, 2, nobias=True, initialW=0.5)
    assert link.W.array is None and link.b is None
    y = link(numpy.ones((3, 2, 2), numpy.float32), train=False)
    assert link.W.shape == (2, 4)
    numpy.testing.assert_allclose(y.array, 2.0)


def test_default_initializer_scale():
    link = L.SimplifiedDropconnect(400, 300)
    # HeNormal(1/sqrt(2)): std sqrt(2 / fan_in) / sqrt(2) = sqrt(1 / 400).
    assert abs(link.W.array.std() - 0.05) < 0.003


def test_serialize(tmp_path):
    link = L.SimplifiedDropconnect(3, 2)
    path = str(tmp_path / 'l.npz')
    serializers.save_npz(path, link)
    other = L.SimplifiedDropconnect(3, 2)
    serializers.load_npz(path, other)
    numpy.testing.assert_array_equal(other.W.array, link.W.array)


def test_bad_input():
    link = L.SimplifiedDropconnect(3, 2)
    with pytest.raises(TypeError, match='SimplifiedDropconnect'):
        link(numpy.ones((2, 4), numpy.float32))


def test_module_paths():
    # Chainer's module is chainer.links.activation.simplified_dropconnect;
    # the earlier cpuframe path still gives the same class.
    from cpuframe.links.activation import simplified_dropconnect as act
    from cpuframe.links.connection import simplified_dropconnect as conn
    assert act.SimplifiedDropconnect is L.SimplifiedDropconnect
    assert conn.SimplifiedDropconnect is L.SimplifiedDropconnect
    assert L.SimplifiedDropconnect.__module__ == act.__name__
