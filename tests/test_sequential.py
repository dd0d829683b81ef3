import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Parameter
from cpuframe.link import Link
from cpuframe.sequential import Sequential


class Scale(Link):
    def __init__(self, value):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(numpy.array([value], numpy.float32))

    def forward(self, x):
        return x * self.w


def _x():
    return numpy.array([[1.0, -2.0]], numpy.float32)


def test_forward_with_functions_and_lambdas():
    seq = Sequential(Scale(2.0), F.tanh, lambda x: x + 1)
    numpy.testing.assert_allclose(seq(_x()).array, numpy.tanh(2 * _x()) + 1,
                                  rtol=1e-6)


def test_tuple_outputs_are_spread():
    seq = Sequential(Scale(1.0), lambda x: (x, x * 2), lambda a, b: a + b)
    numpy.testing.assert_allclose(seq(_x()).array, 3 * _x())


def test_list_behaviour_and_child_names():
    a, b, c = Scale(1.0), Scale(2.0), Scale(3.0)
    seq = Sequential(a, F.tanh)
    seq.append(b)
    seq.insert(0, c)
    assert list(seq) == [c, a, F.tanh, b] and len(seq) == 4
    assert [n for n, _ in seq.namedparams()] == ['/0/w', '/1/w', '/2/w']
    seq.extend([F.sigmoid])
    assert seq[-1] is F.sigmoid
    sub = seq[1:3]
    assert isinstance(sub, Sequential) and list(sub) == [a, F.tanh]
    assert seq.pop(0) is c and seq.index(b) == 2
    seq.remove(F.tanh)
    assert list(seq) == [a, b, F.sigmoid]
    del seq[0]
    assert list(seq) == [b, F.sigmoid]
    assert seq.count_by_layer_type('Scale') == 1
    seq.clear()
    assert len(seq) == 0 and list(seq.params()) == []


def test_add_and_repeat_and_flatten():
    s1 = Sequential(Scale(2.0))
    s2 = s1 + F.tanh
    assert isinstance(s2, Sequential) and len(s2) == 2
    s3 = s1 + Sequential(Scale(3.0), F.tanh)
    assert len(s3) == 3
    rep = Sequential(Scale(2.0), F.tanh).repeat(3)
    assert len(rep) == 6 and rep[0] is not rep[2]
    nested = Sequential(Sequential(Scale(1.0), F.tanh), F.sigmoid).flatten()
    assert len(nested) == 3


def test_rejects_non_callables():
    with pytest.raises(TypeError, match='Sequential: expected a callable'):
        Sequential(3)


def test_empty_forward_raises():
    with pytest.raises(RuntimeError, match='no layer'):
        Sequential()(_x())
