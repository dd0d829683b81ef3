"""Parity of the oneDNN concat route with the NumPy path.

Forward and the gradient of every input over axes, piece counts and
sizes, on NumPy inputs (also non-contiguous) and on mdarrays in plain, NHWC
and blocked layouts, mixed too; on the device the gradient is split by
oneDNN into each input's own layout.
"""
import numpy
import pytest
from testhelpers.intel64_layouts import as_layout

import cpuframe
import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

LAYOUTS = ['numpy', 'strided', 'transposed', 'plain', 'nhwc', 'blocked']
NUMPY_LAYOUTS = ('numpy', 'strided', 'transposed')




def run(arrays, layouts, axis, mode, gy=None):
    with using_config('use_ideep', mode):
        vs = [Variable(as_layout(a, lay)) for a, lay in zip(arrays, layouts)]
        y = F.concat(vs, axis)
        if gy is None:
            gy = numpy.random.default_rng(3).standard_normal(
                y.shape).astype(numpy.float32)
        y.grad = gy
        y.backward()
    return dict(y=numpy.asarray(y.array), y_type=type(y.array),
                gxs=[numpy.asarray(v.grad) for v in vs],
                gx_types=[type(v.grad) for v in vs],
                gx_formats=[getattr(v.grad, 'format', None) for v in vs],
                x_formats=[getattr(v.array, 'format', None) for v in vs])


CASES = [
    dict(shapes=[(2, 3, 4, 5), (2, 5, 4, 5)], axis=1),
    dict(shapes=[(2, 16, 3, 3), (2, 32, 3, 3), (2, 16, 3, 3)], axis=1),
    dict(shapes=[(2, 8, 3, 3), (2, 24, 3, 3)], axis=1),  # off 16-blocks
    dict(shapes=[(1, 3, 4, 5), (2, 3, 4, 5)], axis=0),
    dict(shapes=[(2, 3, 4, 5), (2, 3, 1, 5), (2, 3, 2, 5)], axis=2),
    dict(shapes=[(2, 3, 4, 5), (2, 3, 4, 2)], axis=-1),
    dict(shapes=[(2, 3, 4, 5)], axis=1),
]


@pytest.mark.parametrize('case', CASES)
@pytest.mark.parametrize('layout', LAYOUTS)
def test_concat_parity(case, layout, rng, calls):
    arrays = [rng.standard_normal(s).astype(numpy.float32)
              for s in case['shapes']]
    ref = run(arrays, ['numpy'] * len(arrays), case['axis'], 'never')
    got = run(arrays, [layout] * len(arrays), case['axis'], 'always')
    numpy.testing.assert_array_equal(got['y'], ref['y'])
    for g, r in zip(got['gxs'], ref['gxs']):
        numpy.testing.assert_array_equal(g, r)
    assert calls.names[0] == 'concat_forward'
    on_device = layout not in NUMPY_LAYOUTS
    want = intel64.mdarray if on_device else numpy.ndarray
    assert got['y_type'] is want and set(got['gx_types']) == {want}
    if on_device:
        # Split by oneDNN, each gradient in its input's layout.
        assert 'concat_backward' in calls.names
        assert got['gx_formats'] == got['x_formats']


@pytest.mark.parametrize('layouts', [
    ['numpy', 'blocked'], ['nhwc', 'blocked', 'plain'],
    ['strided', 'nhwc'], ['blocked', 'numpy', 'nhwc'], ['transposed', 'plain']])
def test_concat_mixed_layouts(layouts, rng, calls):
    arrays = [rng.standard_normal((2, 8 * (i + 1), 3, 4)).astype(
        numpy.float32) for i in range(len(layouts))]
    ref = run(arrays, ['numpy'] * len(arrays), 1, 'never')
    got = run(arrays, layouts, 1, 'always')
    numpy.testing.assert_array_equal(got['y'], ref['y'])
    for g, r, lay, t in zip(got['gxs'], ref['gxs'], layouts,
                            got['gx_types']):
        numpy.testing.assert_array_equal(g, r)
        # Each gradient has its input's type.
        assert t is (numpy.ndarray if lay in NUMPY_LAYOUTS
                     else intel64.mdarray)
    assert calls.names == ['concat_forward', 'concat_backward']


def test_concat_1d_and_high_rank(rng, calls):
    for shapes, axis in (([(3,), (4,)], 0),
                         ([(2, 1, 2, 1, 2, 3), (2, 1, 2, 1, 2, 2)], 5)):
        arrays = [rng.standard_normal(s).astype(numpy.float32)
                  for s in shapes]
        for layout in ('numpy', 'plain'):
            ref = run(arrays, ['numpy'] * 2, axis, 'never')
            got = run(arrays, [layout] * 2, axis, 'always')
            numpy.testing.assert_array_equal(got['y'], ref['y'])
            for g, r in zip(got['gxs'], ref['gxs']):
                numpy.testing.assert_array_equal(g, r)
    assert 'concat_forward' in calls.names


def test_double_backward_on_device(rng):
    # The gradient of the split is a concat again.
    arrays = [rng.standard_normal((2, c, 3, 3)).astype(numpy.float32)
              for c in (16, 8)]
    results = []
    for layout, mode in (('numpy', 'never'), ('blocked', 'always')):
        with using_config('use_ideep', mode):
            vs = [Variable(as_layout(a, layout)) for a in arrays]
            y = F.concat(vs, 1)
            gy = Variable(intel64.from_numpy(numpy.ones(y.shape, numpy.float32))
                          if layout != 'numpy' else
                          numpy.ones(y.shape, numpy.float32))
            gxs = cpuframe.grad([y], vs, [gy], enable_double_backprop=True)
            ggy, = cpuframe.grad([F.sum(gxs[0] * gxs[0]) + F.sum(gxs[1])],
                                 [gy])
        results.append(numpy.asarray(ggy.array))
    numpy.testing.assert_allclose(results[1], results[0])


def test_steady_state_creates_no_primitives(rng):
    d = intel64.native()
    xs = [as_layout(rng.standard_normal((2, c, 3, 3)).astype(numpy.float32),
                    'blocked') for c in (16, 32, 8)]

    def step():
        vs = [Variable(x) for x in xs]
        y = F.concat(vs, 1)
        y.grad = intel64.mdarray.zeros_like(y.array)
        y.backward()
    step()
    before = d.primitive_cache_stats()['creations']
    d.reset_reorder_stats()
    step()
    assert d.primitive_cache_stats()['creations'] == before
    # The forward reorders nothing; the split is one reorder per piece.
    assert d.reorder_stats()['count'] <= len(xs) + 1


def test_empty_pieces_fall_back(rng, calls):
    a = rng.standard_normal((2, 3)).astype(numpy.float32)
    b = numpy.zeros((2, 0), numpy.float32)
    with using_config('use_ideep', 'always'):
        y = F.concat((a, b), 1)
    numpy.testing.assert_array_equal(y.array, a)
    assert calls.names == []


def test_auto_keeps_numpy_inputs_on_numpy(rng, calls):
    a = rng.standard_normal((64, 64, 16, 16)).astype(numpy.float32)
    with using_config('use_ideep', 'auto'):
        F.concat((a, a), 1)
        assert calls.names == []
        F.concat((intel64.from_numpy(a[:1]), a[:1]), 1)
        assert calls.names == ['concat_forward']


def test_bad_input_raises(dnnl, rng):
    a = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    with pytest.raises(ValueError, match='concat_forward'):
        dnnl.concat_forward([], 0)
    with pytest.raises(ValueError, match='concat_forward'):
        dnnl.concat_forward([a, a[:, :, :2]], 1)
    with pytest.raises(ValueError, match='concat_forward'):
        dnnl.concat_forward([a, a], 3)
    with pytest.raises(TypeError, match='concat_forward'):
        dnnl.concat_forward([a, a.astype(numpy.float64)], 1)
    y, ctx = dnnl.concat_forward([a, a], 1)
    with pytest.raises(ValueError, match='concat_backward'):
        dnnl.concat_backward(a, ctx)
