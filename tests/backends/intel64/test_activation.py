"""Parity of the oneDNN element-wise activation routes with the NumPy path.

leaky_relu, elu, tanh and sigmoid: forward, gradient and second-order
gradient over their parameters, on NumPy inputs (also non-contiguous) and on
mdarrays in plain, NHWC and blocked layouts (padded blocks too), including
Chainer's choice at the kink x == 0.
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




def run(f, x, layout, mode, gy=None, ggx=None):
    """y, gx and the second-order gradients (w.r.t. x and gy) as NumPy."""
    with using_config('use_ideep', mode):
        v = Variable(as_layout(x, layout))
        y = f(v)
        gyv = Variable(gy)
        gx, = cpuframe.grad([y], [v], [gyv], enable_double_backprop=True)
        g2x, g2y = cpuframe.grad([gx], [v, gyv], [Variable(ggx)])
    return dict(y=numpy.asarray(y.array), gx=numpy.asarray(gx.array),
                g2x=None if g2x is None else numpy.asarray(g2x.array),
                g2y=numpy.asarray(g2y.array),
                types=(type(y.array), type(gx.array)),
                formats=(getattr(v.array, 'format', None),
                         getattr(y.array, 'format', None),
                         getattr(gx.array, 'format', None)))


FUNCS = {
    'leaky_relu': (F.leaky_relu, {}),
    'leaky_relu_0.5': (F.leaky_relu, dict(slope=0.5)),
    'leaky_relu_0': (F.leaky_relu, dict(slope=0.0)),
    'leaky_relu_neg': (F.leaky_relu, dict(slope=-0.3)),
    'elu': (F.elu, {}),
    'elu_0.5': (F.elu, dict(alpha=0.5)),
    'elu_2': (F.elu, dict(alpha=2.0)),
    'tanh': (F.tanh, {}),
    'sigmoid': (F.sigmoid, {}),
}
ROUTES = {
    F.leaky_relu: ('leaky_relu_forward', 'leaky_relu_backward'),
    F.elu: ('elu_forward', 'elu_backward'),
    F.tanh: ('tanh_forward', 'tanh_backward'),
    F.sigmoid: ('sigmoid_forward', 'sigmoid_backward'),
}


def inputs(rng, shape, zeros=True):
    x = (rng.standard_normal(shape) * 2).astype(numpy.float32)
    if zeros:  # exact zeros: Chainer takes the x >= 0 side of the kink
        x.reshape(-1)[::7] = 0
    gy = rng.standard_normal(shape).astype(numpy.float32)
    ggx = rng.standard_normal(shape).astype(numpy.float32)
    return x, gy, ggx


def check(got, ref):
    for k in ('y', 'gx', 'g2x', 'g2y'):
        if ref[k] is None:
            assert got[k] is None
            continue
        tol = 2e-6 * max(1.0, float(numpy.abs(ref[k]).max()))
        numpy.testing.assert_allclose(got[k], ref[k], rtol=2e-5, atol=tol,
                                      err_msg=k)


@pytest.mark.parametrize('name', sorted(FUNCS))
@pytest.mark.parametrize('layout', LAYOUTS)
@pytest.mark.parametrize('shape', [(2, 5, 3, 4), (1, 16, 3, 3), (3, 7)])
def test_activation_parity(name, layout, shape, rng, calls):
    func, opts = FUNCS[name]
    x, gy, ggx = inputs(rng, shape)

    def f(v):
        return func(v, **opts)
    ref = run(f, x, 'numpy', 'never', gy, ggx)
    assert calls.names == []
    got = run(f, x, layout, 'always', gy, ggx)
    check(got, ref)
    fwd, bwd = ROUTES[func]
    assert calls.names.count(fwd) == 1 and bwd in calls.names
    on_device = layout not in NUMPY_LAYOUTS
    want = intel64.mdarray if on_device else numpy.ndarray
    assert got['types'] == (want, want)
    if on_device:  # element-wise: the input's layout, no reorder
        assert got['formats'][1] == got['formats'][0] == got['formats'][2]


@pytest.mark.parametrize('func', [F.sigmoid, F.elu, F.tanh, F.leaky_relu])
def test_blocked_padding_stays_zero(func, rng):
    # 5 channels in 16-channel blocks (8 under an AVX2 ISA): the padding of
    # y and gx must stay zero (sigmoid(0) is 0.5), as oneDNN expects of
    # blocked memory.
    x, gy, _ = inputs(rng, (2, 5, 3, 3), zeros=False)
    xb = as_layout(x, 'blocked')
    assert xb.has_padding
    v = Variable(xb)
    y = func(v)
    y.grad = as_layout(gy, 'blocked')
    y.backward()
    for a in (y.array, v.grad):
        assert a.format == xb.format
        raw = a.raw_view()
        # The padded channels, read through a plain copy of the buffer.
        flat = numpy.asarray(raw)
        block = flat.size // (2 * 3 * 3)
        assert block in (8, 16), a.format
        flat = flat.reshape(2, 1, 3, 3, block)
        numpy.testing.assert_array_equal(flat[..., 5:], 0)


def test_device_chain_without_reorders_or_new_primitives(rng):
    # conv-made blocked activations through every activation and back: no
    # reorder, and a second pass creates no primitive.
    d = intel64.native()
    x = as_layout(rng.standard_normal((2, 16, 5, 5)).astype(numpy.float32),
                  'blocked')

    def step():
        v = Variable(x)
        y = F.sigmoid(F.tanh(F.elu(F.leaky_relu(v), 0.5)))
        y.grad = intel64.mdarray.zeros_like(y.array)
        y.backward()
        return y, v
    step()
    before = d.primitive_cache_stats()['creations']
    d.reset_reorder_stats()
    y, v = step()
    assert d.primitive_cache_stats()['creations'] == before
    assert d.reorder_stats()['count'] == 0
    assert y.array.format == x.format and v.grad.format == x.format


def test_numpy_backward_after_onednn_forward(rng, calls):
    x, gy, _ = inputs(rng, (3, 4, 5))
    for func in (F.leaky_relu, F.elu, F.tanh, F.sigmoid):
        with using_config('use_ideep', 'never'):
            v_ref = Variable(x)
            y_ref = func(v_ref)
            y_ref.grad = gy
            y_ref.backward()
        v = Variable(x)
        with using_config('use_ideep', 'always'):
            y = func(v)
        y.grad = gy
        with using_config('use_ideep', 'never'):
            y.backward()
        numpy.testing.assert_allclose(v.grad, v_ref.grad, rtol=2e-5,
                                      atol=1e-6)
    assert all(n.endswith('_forward') for n in calls.names)


def test_auto_thresholds(rng, calls):
    small = rng.standard_normal((4, 8)).astype(numpy.float32)
    large = rng.standard_normal((64, 64, 32)).astype(numpy.float32)
    with using_config('use_ideep', 'auto'):
        for func in (F.leaky_relu, F.elu, F.tanh, F.sigmoid):
            func(small)
        assert calls.names == []
        F.leaky_relu(large)
        F.elu(large)
        assert calls.names == ['leaky_relu_forward', 'elu_forward']
        # device arrays: the same rule ...
        F.tanh(intel64.from_numpy(small))
        assert calls.names[-1] == 'elu_forward'
    # ... and 'always' routes them whatever the size
    with using_config('use_ideep', 'always'):
        F.tanh(intel64.from_numpy(small))
    assert calls.names[-1] == 'tanh_forward'


def test_zero_size_and_scalar_fall_back(calls):
    with using_config('use_ideep', 'always'):
        for func in (F.leaky_relu, F.elu, F.tanh, F.sigmoid):
            y = func(numpy.zeros((0, 3), numpy.float32))
            assert y.shape == (0, 3)
            y = func(numpy.full((), 0.5, numpy.float32))
            assert y.shape == ()
    assert calls.names == []


def test_bad_input_raises(dnnl, rng):
    x = rng.standard_normal((2, 3)).astype(numpy.float32)
    with pytest.raises(TypeError, match='tanh_forward'):
        dnnl.tanh_forward(x.astype(numpy.float64))
    with pytest.raises(TypeError, match='sigmoid_forward'):
        dnnl.sigmoid_forward([1.0, 2.0])
    for name in ('tanh_backward', 'sigmoid_backward'):
        with pytest.raises(ValueError, match=name):
            getattr(dnnl, name)(x, x[:1])
    with pytest.raises(ValueError, match='leaky_relu_backward'):
        dnnl.leaky_relu_backward(x, x.T, 0.2)
    with pytest.raises(ValueError, match='elu_backward'):
        dnnl.elu_backward(x, x[:, :2], 1.0)
