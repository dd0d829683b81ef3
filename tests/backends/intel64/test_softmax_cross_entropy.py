"""Parity of the fused softmax cross entropy kernels with the NumPy path.

2-D scores with integer labels: forward (reduce 'mean'/'no', normalize,
ignore_label, class_weight) and the gradient by x, on NumPy inputs and on
the Intel64 device; C not a multiple of the vector width; NaN/inf rows;
the gradient's own gradient (double backprop) keeps working.
"""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

SHAPES = [(4, 3), (7, 16), (5, 37), (3, 1), (64, 1000), (1, 10000)]


def _data(shape, rng, ignore=False):
    x = (rng.standard_normal(shape) * 3).astype(numpy.float32)
    t = rng.integers(0, shape[1], shape[0]).astype(numpy.int32)
    if ignore and shape[0] > 1:
        t[::2] = -1
    return x, t


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('where', ['numpy', 'device'])
@pytest.mark.parametrize('opts', [
    dict(), dict(reduce='no'), dict(normalize=False), dict(ignore=True),
    dict(ignore=True, normalize=False), dict(ignore=True, reduce='no'),
    dict(class_weight=True),
])
def test_softmax_cross_entropy_parity(shape, where, opts, rng, run, parity, calls):
    opts = dict(opts)
    x, t = _data(shape, rng, ignore=opts.pop('ignore', False))
    if opts.pop('class_weight', False):
        opts['class_weight'] = rng.uniform(0.5, 2.0, shape[1]).astype(numpy.float32)

    def f(x):
        return F.softmax_cross_entropy(x, t, **opts)

    ref = run(f, [x], mode='never', check_type=False)
    assert calls.names == []
    got = run(f, [x], mode='always', where=where, check_type=False)
    assert 'softmax_cross_entropy_forward' in calls.names
    assert 'softmax_cross_entropy_backward' in calls.names
    parity(got, ref)


def test_gradient_stays_on_the_device(rng):
    x, t = _data((8, 40), rng)
    xv = Variable(intel64.from_numpy(x))
    loss = F.softmax_cross_entropy(xv, t)
    assert isinstance(loss.array, numpy.ndarray) and loss.shape == ()
    loss.backward()
    assert isinstance(xv.grad, intel64.mdarray)


@pytest.mark.parametrize('bad', [numpy.nan, numpy.inf, -numpy.inf])
def test_non_finite_scores_match_numpy(bad, rng):
    x, t = _data((6, 20), rng)
    x[1, 3] = bad
    x[4, :] = bad
    with numpy.errstate(invalid='ignore'):
        with using_config('use_ideep', 'never'):
            ref = F.softmax_cross_entropy(x, t, reduce='no').array
        with using_config('use_ideep', 'always'):
            got = F.softmax_cross_entropy(x, t, reduce='no').array
    numpy.testing.assert_array_equal(numpy.isnan(got), numpy.isnan(ref))
    ok = ~numpy.isnan(ref)
    numpy.testing.assert_allclose(got[ok], ref[ok], rtol=1e-5, atol=1e-5)


def test_double_backprop_on_the_device(rng):
    x, t = _data((5, 9), rng)
    results = []
    for mode, arr in (('never', x), ('always', intel64.from_numpy(x))):
        with using_config('use_ideep', mode):
            xv = Variable(arr)
            loss = F.softmax_cross_entropy(xv, t)
            gx, = __import__('cpuframe').grad([loss], [xv],
                                              enable_double_backprop=True)
            F.sum(gx * gx).backward()
            results.append((numpy.asarray(gx.array), numpy.asarray(xv.grad)))
    for a, b in zip(*results):
        numpy.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_labels_are_checked_before_any_work(rng):
    x, t = _data((4, 5), rng)
    t[2] = 5
    with using_config('use_ideep', 'always'):
        with pytest.raises(ValueError, match='softmax_cross_entropy'):
            F.softmax_cross_entropy(x, t)


def test_native_kernels_reject_bad_arguments(dnnl):
    x = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(ValueError, match='softmax_cross_entropy_forward'):
        dnnl.softmax_cross_entropy_forward(x, numpy.zeros(2, numpy.int64))
    with pytest.raises(ValueError, match='below 4'):
        dnnl.softmax_cross_entropy_forward(x, numpy.array([0, 4, 1]))
    with pytest.raises(ValueError, match='2 non-empty dimensions'):
        dnnl.softmax_cross_entropy_forward(numpy.zeros((3,), numpy.float32),
                                           numpy.zeros(3, numpy.int64))
    with pytest.raises(TypeError, match='softmax_cross_entropy_forward'):
        dnnl.softmax_cross_entropy_forward(x.astype(numpy.float64),
                                           numpy.zeros(3, numpy.int64))
    with pytest.raises(ValueError, match='softmax_cross_entropy_backward'):
        dnnl.softmax_cross_entropy_backward(x, numpy.zeros(3, numpy.float32),
                                            numpy.zeros(3, numpy.int64),
                                            numpy.zeros(2, numpy.float32))
