import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _expected(x, W, ignore_label):
    y = numpy.zeros(x.shape + (W.shape[1],), W.dtype)
    for idx in numpy.ndindex(*x.shape):
        if ignore_label is None or x[idx] != ignore_label:
            y[idx] = W[x[idx]]
    return y


CASES = [(numpy.array([0, 2, 1, 2], numpy.int32), None),
         (numpy.array([[0, -1, 1], [2, 2, -1]], numpy.int64), -1),
         (numpy.array([[3, 0], [1, 3]], numpy.int32), 3),
         (numpy.array(1, numpy.int32), None)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('x,ignore_label', CASES)
def test_forward(x, ignore_label, dtype):
    W = numpy.random.RandomState(0).uniform(-1, 1, (4, 3)).astype(dtype)
    y = F.embed_id(x, cpuframe.Variable(W), ignore_label)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(x, W, ignore_label))


@pytest.mark.parametrize('x,ignore_label', CASES)
def test_backward(x, ignore_label):
    rng = numpy.random.RandomState(1)
    W = rng.uniform(-1, 1, (4, 3))
    gy = rng.uniform(-1, 1, x.shape + (3,))
    gradient_check.check_backward(
        lambda x, W: F.embed_id(x, W, ignore_label), (x, W), gy)


def test_ignored_rows_get_no_gradient():
    x = numpy.array([0, 2, 2, 0], numpy.int32)
    W = cpuframe.Variable(numpy.ones((3, 2)))
    y = F.embed_id(x, W, ignore_label=2)
    y.grad = numpy.arange(8.0).reshape(4, 2)
    y.backward()
    numpy.testing.assert_array_equal(W.grad, [[6.0, 8.0], [0, 0], [0, 0]])


@pytest.mark.parametrize('x,ignore_label', CASES[:2])
def test_double_backward(x, ignore_label):
    rng = numpy.random.RandomState(2)
    W = rng.uniform(-1, 1, (4, 3))
    gy = rng.uniform(-1, 1, x.shape + (3,))
    ggW = rng.uniform(-1, 1, W.shape)
    gradient_check.check_double_backward(
        lambda x, W: F.embed_id(x, W, ignore_label), (x, W), gy,
        (None, ggW))


@pytest.mark.parametrize('ids,ignore_label', [([0, 4], None), ([-1, 0], None),
                                              ([-2, 0], -1), ([5], 4)])
def test_out_of_range(ids, ignore_label):
    W = numpy.zeros((4, 3), numpy.float32)
    with pytest.raises(ValueError, match=r'embed_id:.*\[0, 4\)'):
        F.embed_id(numpy.array(ids, numpy.int32), W, ignore_label)


def test_bad_types():
    W = numpy.zeros((4, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType,
                       match="(?s)EmbedIDFunction.*x.dtype.kind == 'i'"):
        F.embed_id(numpy.array([0.0, 1.0], numpy.float32), W)
    with pytest.raises(type_check.InvalidType,
                       match='(?s)EmbedIDFunction.*W.ndim == 2'):
        F.embed_id(numpy.array([0, 1], numpy.int32),
                   numpy.zeros((4,), numpy.float32))
