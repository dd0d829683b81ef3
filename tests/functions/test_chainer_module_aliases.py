"""Chainer 7 modules that re-export functions cpuframe defines elsewhere,
and F.arctanh."""
import importlib

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check

ALIASES = [
    ('math.ceil', ['ceil']),
    ('math.fix', ['fix']),
    ('math.floor', ['floor']),
    ('math.exponential_m1', ['expm1', 'Expm1']),
    ('math.logarithm_1p', ['log1p', 'Log1p']),
    ('math.identity', ['identity', 'Identity']),
    ('math.matmul', ['matmul', 'batch_matmul', 'MatMul']),
    ('math.minimum', ['minimum', 'Minimum']),
    ('math.scale', ['scale']),
    ('math.sum', ['sum_to', 'SumTo']),
    ('math.trigonometric', ['arcsin', 'arccos', 'arctan', 'arctan2',
                            'Arcsin', 'Arccos', 'Arctan', 'Arctan2']),
    ('array.fliplr', ['fliplr', 'FlipLR']),
    ('array.flipud', ['flipud', 'FlipUD']),
    ('array.rollaxis', ['rollaxis', 'Rollaxis']),
    ('array.space2depth', ['space2depth']),
    ('array.transpose_sequence', ['transpose_sequence',
                                  'TransposeSequence']),
    ('loss.squared_error', ['squared_difference']),
    ('pooling.max_pooling_nd', ['max_pooling_2d']),
]


@pytest.mark.parametrize('module,names', ALIASES)
def test_alias_module_reexports_the_same_objects(module, names):
    mod = importlib.import_module('cpuframe.functions.' + module)
    for name in names:
        obj = getattr(mod, name)
        if name[0].islower():
            assert obj is getattr(F, name)
        else:
            assert isinstance(obj, type)


def test_family_packages_still_expose_modules():
    import cpuframe.functions.math as math_pkg
    assert importlib.import_module('cpuframe.functions.math.floor') is \
        math_pkg.floor
    assert callable(math_pkg.floor.floor)


def test_transpose_sequence_through_chainer_path():
    from cpuframe.functions.array.transpose_sequence import transpose_sequence
    xs = [numpy.array([1, 2, 3], numpy.float32),
          numpy.array([4, 5], numpy.float32)]
    ys = transpose_sequence(xs)
    assert [y.array.tolist() for y in ys] == [[1, 4], [2, 5], [3]]


def test_arctanh_values_and_gradients():
    x = numpy.array([-0.5, 0.0, 0.3, 0.9], numpy.float64)
    numpy.testing.assert_allclose(F.arctanh(x).array, numpy.arctanh(x))
    from cpuframe.functions.math.arctanh import Arctanh, arctanh
    assert arctanh is F.arctanh and Arctanh.ufunc == 'arctanh'
    gy = numpy.random.RandomState(0).randn(4)
    ggx = numpy.random.RandomState(1).randn(4)
    gradient_check.check_backward(F.arctanh, x, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(F.arctanh, x, gy, ggx,
                                         dtype=numpy.float64)


def test_arctanh_rejects_ints():
    with pytest.raises(Exception, match='dtype|kind'):
        F.arctanh(numpy.array([0], numpy.int32))
