import numpy
import pytest

import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import reporter


def _data():
    rng = numpy.random.RandomState(0)
    x = rng.normal(size=(6, 4)).astype(numpy.float32)
    t = numpy.array([0, 1, 2, 0, 1, 2], numpy.int32)
    return x, t


def test_loss_accuracy_and_report():
    model = L.Classifier(L.Linear(4, 3))
    x, t = _data()
    r = reporter.Reporter()
    r.add_observer('main', model)
    obs = {}
    with r.scope(obs):
        loss = model(x, t)
    y = model.predictor(x)
    numpy.testing.assert_allclose(
        loss.array, F.softmax_cross_entropy(y, t).array, rtol=1e-6)
    assert set(obs) == {'main/loss', 'main/accuracy'}
    expected_acc = (y.array.argmax(axis=1) == t).mean()
    assert float(obs['main/accuracy'].array) == pytest.approx(expected_acc)
    loss.backward()
    assert model.predictor.W.grad is not None


def test_label_key_and_custom_functions():
    model = L.Classifier(lambda x: x, lossfun=F.mean_squared_error,
                         accfun=None, label_key='t')
    model.compute_accuracy = False
    x = numpy.ones((2, 3), numpy.float32)
    loss = model(x, t=numpy.zeros((2, 3), numpy.float32))
    assert float(loss.array) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="label_key 't'"):
        model(x)
    with pytest.raises(TypeError, match='label_key'):
        L.Classifier(lambda x: x, label_key=1.5)
