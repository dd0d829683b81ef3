import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check

CASES = [
    ('ij,jk->ik', [(2, 3), (3, 4)]),
    ('ij,jk', [(2, 3), (3, 4)]),
    ('ii->i', [(3, 3)]),
    ('ii', [(3, 3)]),
    ('iij->j', [(2, 2, 3)]),
    ('ij->', [(2, 3)]),
    ('ij->j', [(2, 3)]),
    ('ij->ji', [(2, 3)]),
    ('i,j->ij', [(2,), (3,)]),
    ('i,i', [(3,), (3,)]),
    ('bij,bjk->bik', [(2, 2, 3), (2, 3, 2)]),
    ('ij,ij,ij->i', [(2, 3)] * 3),
    ('...ij,...jk->...ik', [(2, 2, 3), (3, 2)]),
    ('...i,...i->...i', [(1, 3), (4, 3)]),
    ('i...->...', [(2, 3, 1)]),
    ('ij, jk -> ik', [(2, 3), (3, 1)]),
]


@pytest.mark.parametrize('subscripts, shapes', CASES)
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward(subscripts, shapes, dtype):
    rng = numpy.random.RandomState(0)
    xs = [rng.randn(*s).astype(dtype) for s in shapes]
    y = F.einsum(subscripts, *xs)
    expected = numpy.einsum(subscripts, *xs)
    assert y.shape == expected.shape and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('subscripts, shapes', CASES)
def test_backward(subscripts, shapes):
    rng = numpy.random.RandomState(1)
    xs = tuple(rng.randn(*s) for s in shapes)
    gy = numpy.asarray(rng.randn(*numpy.einsum(subscripts, *xs).shape))
    ggxs = tuple(rng.randn(*s) for s in shapes)

    def f(*xs):
        return F.einsum(subscripts, *xs)
    gradient_check.check_backward(f, xs, gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(f, xs, gy, ggxs, atol=1e-6,
                                         rtol=1e-4)


@pytest.mark.parametrize('subscripts, shapes, match', [
    ('ij,jk->ik', [(2, 3)], 'names 2 operands'),
    ('ij->ik', [(2, 3)], 'appears in no operand'),
    ('ij->ii', [(2, 3)], 'repeat'),
    ('ijk', [(2, 3)], 'must have 3 dimensions'),
    ('i1', [(2, 3)], 'invalid subscripts'),
    ('i->j->k', [(2,)], 'more than one'),
    ('...i->i', [(2, 3)], 'must keep "..."'),
    ('ij,jk->ik', [(2, 3), (4, 5)], 'cannot evaluate'),
])
def test_bad_inputs(subscripts, shapes, match):
    xs = [numpy.ones(s) for s in shapes]
    with pytest.raises(ValueError, match=match):
        F.einsum(subscripts, *xs)


def test_no_operands_or_bad_subscripts_type():
    with pytest.raises(ValueError, match='at least one operand'):
        F.einsum('i')
    with pytest.raises(TypeError, match='subscripts must be a str'):
        F.einsum(1, numpy.ones(2))
