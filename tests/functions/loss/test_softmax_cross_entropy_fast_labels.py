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


@pytest.mark.parametrize('mode', ['never', 'always'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_shortcut_twice_differentiated_and_routed_matches_general(
        mode, reduce):
    """The shortcut (no weight array at all) against a class weight of ones,
    on the NumPy path and the intel64 route, through a second-order
    gradient: the same bits."""
    from cpuframe.backends import intel64
    if mode == 'always' and not intel64.is_ideep_available():
        pytest.skip('no native module')
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((6, 5)).astype(numpy.float32) * 3
    x[0, 0] = numpy.inf if mode == 'never' else 1e30
    x[1, 2] = -3e38
    t = rng.integers(0, 5, (6,)).astype(numpy.int32)
    results = []
    for class_weight in (None, numpy.ones(5, numpy.float32)):
        with cpuframe.using_config('use_ideep', mode):
            xv = cpuframe.Variable(x.copy())
            loss = F.softmax_cross_entropy(xv, t, reduce=reduce,
                                           class_weight=class_weight)
            gx, = cpuframe.grad([F.sum(loss * loss)], [xv],
                                enable_double_backprop=True)
            F.sum(gx * gx).backward()
        results.append((loss.array, gx.array, xv.grad))
    for a, b in zip(*results):
        numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('mode', ['never', 'always'])
def test_labels_changed_after_forward_do_not_reach_backward(mode):
    from cpuframe.backends import intel64
    if mode == 'always' and not intel64.is_ideep_available():
        pytest.skip('no native module')
    x = numpy.arange(12, dtype=numpy.float32).reshape(3, 4) / 7
    t = numpy.array([0, 3, 1], numpy.int64)
    grads = []
    for mutate in (False, True):
        labels = t.copy()
        with cpuframe.using_config('use_ideep', mode):
            xv = cpuframe.Variable(x.copy())
            loss = F.softmax_cross_entropy(xv, labels)
            if mutate:
                labels[:] = [2, 2, 2]
            loss.backward()
        grads.append(xv.grad)
    numpy.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize('dtype', [numpy.int8, numpy.int32, numpy.int64,
                                   numpy.uint8, numpy.uint64])
def test_routed_labels_of_every_integer_dtype(dtype):
    """The intel64 route's kernel reads int64 labels: every integer dtype
    gives the same loss and gradient (type checks off: unsigned labels are
    refused by them, not by the route)."""
    from cpuframe.backends import intel64
    if not intel64.is_ideep_available():
        pytest.skip('no native module')
    x = numpy.arange(12, dtype=numpy.float32).reshape(3, 4) / 5
    results = []
    for t in (numpy.array([0, 3, 1], numpy.int64),
              numpy.array([0, 3, 1], dtype)):
        with cpuframe.using_config('use_ideep', 'always'), \
                cpuframe.using_config('type_check', False):
            xv = cpuframe.Variable(x.copy())
            loss = F.softmax_cross_entropy(xv, t)
            loss.backward()
        results.append((loss.array, xv.grad))
    for a, b in zip(*results):
        numpy.testing.assert_array_equal(a, b)
