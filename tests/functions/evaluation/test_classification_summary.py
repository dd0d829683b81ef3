import warnings

import numpy
import pytest

import cpuframe.functions as F
from cpuframe.utils import type_check


def _reference(y, t, label_num, beta, ignore_label):
    n_class = y.shape[1]
    rows = numpy.moveaxis(y.reshape(y.shape[:t.ndim + 1]), 1, -1).reshape(
        -1, n_class)
    labels = t.ravel()
    if label_num is None:
        label_num = int(labels.max()) + 1
    tp = numpy.zeros(label_num)
    predicted = numpy.zeros(label_num)
    support = numpy.zeros(label_num, numpy.int64)
    for row, label in zip(rows, labels):
        if label == ignore_label:
            continue
        pred = int(numpy.argmax(row))
        support[label] += 1
        if pred < label_num:
            predicted[pred] += 1
        if pred == label:
            tp[label] += 1
    with numpy.errstate(divide='ignore', invalid='ignore'):
        p = tp / predicted
        r = tp / support
        b2 = beta * beta
        f = (1 + b2) * p * r / (b2 * p + r)
    return p, r, f, support


@pytest.mark.parametrize('y_shape,t_shape', [((20, 4), (20,)),
                                             ((3, 4, 2, 2), (3, 2, 2))])
@pytest.mark.parametrize('label_num', [None, 5])
@pytest.mark.parametrize('beta', [1.0, 0.5])
@pytest.mark.parametrize('ignore_label', [-1, 3])
def test_forward(y_shape, t_shape, label_num, beta, ignore_label):
    rng = numpy.random.RandomState(0)
    y = rng.uniform(-1, 1, y_shape).astype(numpy.float32)
    t = rng.randint(-1, 4, t_shape).astype(numpy.int32)
    if ignore_label == 3:
        t[t == -1] = 0
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        got = F.classification_summary(y, t, label_num, beta, ignore_label)
    expected = _reference(y, t, label_num, beta, ignore_label)
    for g, e in zip(got, expected):
        numpy.testing.assert_allclose(g.array, e, rtol=1e-12)
    assert got[3].dtype.kind == 'i'


def test_single_metric_functions():
    y = numpy.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3], [0.1, 0.9]],
                    numpy.float32)
    t = numpy.array([0, 1, 1, 1], numpy.int32)
    p, s = F.precision(y, t)
    numpy.testing.assert_allclose(p.array, [0.5, 1.0])
    numpy.testing.assert_array_equal(s.array, [1, 3])
    r, _ = F.recall(y, t)
    numpy.testing.assert_allclose(r.array, [1.0, 2 / 3])
    f1, _ = F.f1_score(y, t)
    numpy.testing.assert_allclose(f1.array, [2 / 3, 0.8])
    f2, _ = F.fbeta_score(y, t, beta=2.0)
    numpy.testing.assert_allclose(f2.array, [2.5 / 3, (10 / 3) / (14 / 3)])


def test_label_out_of_range():
    y = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(ValueError, match='classification_summary'):
        F.classification_summary(y, numpy.array([0, 3], 'i'), label_num=3)
    with pytest.raises(ValueError, match='classification_summary'):
        F.classification_summary(y, numpy.array([0, -2], 'i'))


@pytest.mark.parametrize('y,t', [
    (numpy.zeros((3, 4), 'f'), numpy.zeros(3, 'f')),
    (numpy.zeros((3, 4), 'f'), numpy.zeros(4, 'i')),
])
def test_bad_input(y, t):
    with pytest.raises(type_check.InvalidType, match='ClassificationSummary'):
        F.classification_summary(y, t)
