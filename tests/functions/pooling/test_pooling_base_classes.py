"""Chainer's pooling base classes, subclassed the way user code does."""
import numpy
import pytest

import cpuframe
from cpuframe.functions.pooling import pooling_2d, pooling_nd
from cpuframe.utils import type_check


class _GlobalMax2D(pooling_2d.Pooling2D):
    def forward(self, inputs):
        x, = inputs
        return x.max(axis=(2, 3), keepdims=True),


class _SumND(pooling_nd._PoolingND):
    def forward(self, inputs):
        x, = inputs
        return x.sum(axis=tuple(range(2, 2 + self.ndim))),


def test_pooling_2d_parameters():
    p = pooling_2d.Pooling2D(3)
    assert (p.kh, p.kw, p.sy, p.sx, p.ph, p.pw) == (3, 3, 3, 3, 0, 0)
    assert p.cover_all is True and p.return_indices is False
    q = pooling_2d.Pooling2D((2, 3), stride=(1, 2), pad=1, cover_all=False)
    assert (q.kh, q.kw, q.sy, q.sx, q.ph, q.pw) == (2, 3, 1, 2, 1, 1)


def test_pooling_2d_subclass_runs_and_checks_types():
    x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    y, = _GlobalMax2D(2).apply((x,))
    assert y.array.ravel().tolist() == [15.0]
    with pytest.raises(type_check.InvalidType):
        _GlobalMax2D(2).apply((x[0],))
    with pytest.raises(type_check.InvalidType):
        _GlobalMax2D(2).apply((x.astype(numpy.int32),))


def test_pooling_nd_parameters_and_checks():
    p = pooling_nd._PoolingND(3, 2, pad=1)
    assert p.ksize == (2, 2, 2) and p.stride == (2, 2, 2)
    assert p.pad == (1, 1, 1)
    with pytest.raises(ValueError, match='spatial dimension'):
        pooling_nd._PoolingND(0, 2)
    x = numpy.ones((1, 2, 3), numpy.float32)
    y, = _SumND(1, 3).apply((x,))
    assert y.array.tolist() == [[3.0, 3.0]]
    with pytest.raises(type_check.InvalidType):
        _SumND(2, 3).apply((x,))
    assert isinstance(_SumND(1, 1), cpuframe.FunctionNode)
