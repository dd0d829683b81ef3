"""softmax_cross_entropy's shortcuts for the common case (all labels valid,
no class weight: told by the labels' range; 2-D scores: plain indexing) give
the general path's values bit for bit (a class weight of ones takes the
general path)."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F


@pytest.mark.parametrize('shape', [(7, 5), (1, 1), (16, 3, 4)])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('normalize', [True, False])
def test_all_valid_labels_match_the_general_path(shape, reduce, normalize):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal(shape).astype(numpy.float32) * 4
    x.flat[0] = 80.0        # a large score
    t = rng.integers(0, shape[1], (shape[0],) + shape[2:]).astype(numpy.int32)
    results = []
    for class_weight in (None, numpy.ones(shape[1], numpy.float32)):
        with cpuframe.using_config('use_ideep', 'never'):
            xv = cpuframe.Variable(x.copy())
            loss = F.softmax_cross_entropy(xv, t, normalize=normalize,
                                           reduce=reduce,
                                           class_weight=class_weight)
            F.sum(loss * loss).backward()
        results.append((loss.array, xv.grad))
    for a, b in zip(*results):
        numpy.testing.assert_array_equal(a, b)


def test_labels_out_of_range_or_ignored_still_checked():
    x = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(ValueError, match='0 <= t < x.shape'):
        F.softmax_cross_entropy(x, numpy.array([0, 4, 1], numpy.int32))
    loss = F.softmax_cross_entropy(x, numpy.array([0, -1, 1], numpy.int32))
    numpy.testing.assert_allclose(loss.array, numpy.log(4), rtol=1e-6)
    # an ignore label inside the labels' range takes the general path
    loss = F.softmax_cross_entropy(x, numpy.array([0, 2, 1], numpy.int32),
                                   ignore_label=2)
    numpy.testing.assert_allclose(loss.array, numpy.log(4), rtol=1e-6)
