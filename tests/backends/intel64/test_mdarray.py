"""The mdarray (native tensor) and its NumPy protocols, devices and I/O."""
import copy
import io
import pickle

import numpy
import pytest
from testhelpers.threads import run_in_threads

import cpuframe
from cpuframe import Variable, backend
from cpuframe.backends import intel64


def _a(shape=(2, 3, 4, 5), seed=0):
    return numpy.random.default_rng(seed).standard_normal(shape).astype(
        numpy.float32)


def _nhwc(a):
    return intel64.from_numpy(a).reorder('acdb')


def test_round_trip_and_attributes():
    a = _a()
    t = intel64.from_numpy(a)
    assert isinstance(t, intel64.mdarray) and intel64.is_native_array(t)
    assert t.shape == a.shape and t.ndim == 4 and t.size == a.size
    assert t.dtype == numpy.float32 and t.nbytes == a.nbytes and len(t) == 2
    assert t.format == 'abcd' and t.is_plain
    numpy.testing.assert_array_equal(numpy.asarray(t), a)
    numpy.testing.assert_array_equal(t.to_numpy(), a)
    assert 'mdarray(' in repr(t) and "format='abcd'" in repr(t)


def test_from_numpy_copies_strided_input():
    base = _a((4, 6, 3, 2))
    a = base[:, ::2].transpose(0, 1, 3, 2)
    t = intel64.from_numpy(a)
    numpy.testing.assert_array_equal(numpy.asarray(t), a)
    base[...] = 0
    assert numpy.asarray(t).any()


def test_reorder_keeps_values_and_counts():
    dnnl = intel64.native()
    a = _a()
    before = dnnl.reorder_stats()['count']
    t = _nhwc(a)
    assert dnnl.reorder_stats()['count'] == before + 1
    assert t.format == 'acdb' and not t.is_plain
    numpy.testing.assert_array_equal(numpy.asarray(t), a)
    raw = t.raw_view()
    numpy.testing.assert_array_equal(raw, a.transpose(0, 2, 3, 1).ravel())
    assert t.reorder_to_layout_of(intel64.from_numpy(a)).is_plain
    t.reorder_inplace('abcd')
    assert t.is_plain
    numpy.testing.assert_array_equal(numpy.asarray(t), a)


def test_plain_array_conversion_is_a_view_and_copy_true_copies():
    t = intel64.from_numpy(_a())
    v = numpy.asarray(t)
    assert numpy.shares_memory(v, t.raw_view())
    c = numpy.array(t, copy=True)
    assert not numpy.shares_memory(c, t.raw_view())
    with pytest.raises(ValueError, match='acdb'):
        numpy.asarray(_nhwc(_a()), copy=False) if numpy.__version__ >= '2' \
            else _nhwc(_a()).__array__(copy=False)


@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'div', 'pow'])
@pytest.mark.parametrize('layouts', [('abcd', 'abcd'), ('acdb', 'acdb'),
                                     ('acdb', 'abcd'), ('abcd', 'numpy')])
def test_binary_arithmetic(op, layouts):
    a, b = _a(seed=1), numpy.abs(_a(seed=2)) + 0.5
    ta = intel64.from_numpy(a).reorder(layouts[0])
    tb = b if layouts[1] == 'numpy' else intel64.from_numpy(b).reorder(
        layouts[1])
    f = {'add': lambda x, y: x + y, 'sub': lambda x, y: x - y,
         'mul': lambda x, y: x * y, 'div': lambda x, y: x / y,
         'pow': lambda x, y: abs(x) ** y}[op]
    got = f(ta, tb)
    assert isinstance(got, intel64.mdarray)
    assert got.format == layouts[0]
    numpy.testing.assert_allclose(numpy.asarray(got), f(a, b), rtol=1e-6)


def test_in_place_updates_keep_identity_and_layout_without_reorder():
    dnnl = intel64.native()
    p, g = _a(seed=1), _a(seed=2)
    tp, tg = _nhwc(p), _nhwc(g)
    v = numpy.zeros_like(tp)
    assert v.same_layout(tp)
    before = dnnl.reorder_stats()['count']
    ident = id(tp)
    v *= 0.9
    v -= 0.1 * tg
    tp += v
    tp -= numpy.float64(0.01) * numpy.sqrt(tg * tg + 1e-8)
    tp /= 2
    assert id(tp) == ident and tp.format == 'acdb'
    assert dnnl.reorder_stats()['count'] == before
    ref = (p - 0.1 * g - 0.01 * numpy.sqrt(g * g + 1e-8)) / 2
    numpy.testing.assert_allclose(numpy.asarray(tp), ref, rtol=1e-5,
                                  atol=1e-6)


def test_scalars_negation_and_unary_ufuncs():
    a = _a()
    t = _nhwc(a)
    for got, ref in [(2.0 - t, 2.0 - a), (-t, -a), (abs(t), abs(a)),
                     (numpy.maximum(t, 0), numpy.maximum(a, 0)),
                     (numpy.sqrt(t * t), numpy.abs(a)),
                     (numpy.float32(3) * t, 3 * a)]:
        assert isinstance(got, intel64.mdarray) and got.format == 'acdb'
        numpy.testing.assert_allclose(numpy.asarray(got), ref, rtol=1e-6)


def test_non_elementwise_cases_fall_back_to_numpy():
    a = _a()
    t = _nhwc(a)
    bias = numpy.arange(5, dtype=numpy.float32)
    r = t + bias
    assert isinstance(r, numpy.ndarray)
    numpy.testing.assert_allclose(r, a + bias)
    assert isinstance(t > 0, numpy.ndarray)
    assert numpy.isfinite(t).all()
    numpy.testing.assert_allclose(t.sum(), a.sum(), rtol=1e-5)
    numpy.testing.assert_allclose(numpy.sum(t, axis=1), a.sum(axis=1),
                                  rtol=1e-5)
    numpy.testing.assert_array_equal(t[1, 2], a[1, 2])
    numpy.testing.assert_array_equal(t.reshape(2, -1), a.reshape(2, -1))
    t2 = _nhwc(a)
    t2 += bias
    assert isinstance(t2, intel64.mdarray) and t2.format == 'acdb'
    numpy.testing.assert_allclose(numpy.asarray(t2), a + bias)


def test_like_functions_keep_layout():
    t = _nhwc(_a())
    for f, value in [(numpy.zeros_like, 0), (numpy.ones_like, 1)]:
        r = f(t)
        assert isinstance(r, intel64.mdarray) and r.same_layout(t)
        assert (numpy.asarray(r) == value).all()
    r = numpy.full_like(t, 2.5)
    assert r.same_layout(t) and (numpy.asarray(r) == 2.5).all()
    assert numpy.empty_like(t).same_layout(t)
    assert isinstance(numpy.zeros_like(t, dtype=numpy.float64), numpy.ndarray)


def test_copyto_setitem_fill_and_astype():
    a, b = _a(seed=1), _a(seed=2)
    t = _nhwc(a)
    numpy.copyto(t, b)
    assert t.format == 'acdb'
    numpy.testing.assert_array_equal(numpy.asarray(t), b)
    backend.copyto(t, intel64.from_numpy(a))
    numpy.testing.assert_array_equal(numpy.asarray(t), a)
    t[...] = 0.5
    assert (numpy.asarray(t) == 0.5).all()
    t[:] = b
    numpy.testing.assert_array_equal(numpy.asarray(t), b)
    t[0, 1, 2, 3] = 7
    assert numpy.asarray(t)[0, 1, 2, 3] == 7 and t.format == 'acdb'
    t.fill(1)
    assert (numpy.asarray(t) == 1).all()
    dst = numpy.zeros_like(a)
    backend.copyto(dst, t)
    assert (dst == 1).all()
    assert t.astype(numpy.float32, copy=False) is t
    assert t.astype(numpy.float64).dtype == numpy.float64


def test_pickle_copy_and_deepcopy():
    a = _a()
    t = _nhwc(a)
    for u in (pickle.loads(pickle.dumps(t)), copy.copy(t), copy.deepcopy(t),
              t.copy()):
        assert isinstance(u, intel64.mdarray)
        numpy.testing.assert_array_equal(numpy.asarray(u), a)
    assert t.copy().same_layout(t)


def test_blocked_padding_stays_zero_after_updates():
    dnnl = intel64.native()
    import cpuframe.functions as F
    from cpuframe.configuration import using_config
    # 3 output channels get padded to a channel block by the convolution.
    x = intel64.from_numpy(_a((2, 3, 6, 6)))
    W = intel64.from_numpy(_a((3, 3, 3, 3), seed=3))
    with using_config('use_ideep', 'always'):
        y = F.convolution_2d(x, W, pad=1).array
    if not y.has_padding:
        pytest.skip('oneDNN chose an unpadded layout: {}'.format(y.format))
    ref = numpy.asarray(y).copy()
    y += 1.0
    raw = y.raw_view()
    assert numpy.count_nonzero(raw) == y.size
    numpy.testing.assert_allclose(numpy.asarray(y), ref + 1, rtol=1e-6)
    assert dnnl is not None
    if W.has_padding:  # the adopted weight layout pads too
        w_ref = numpy.asarray(W).copy()
        W /= 2.0
        W -= -1.0
        assert numpy.count_nonzero(W.raw_view()) == W.size
        numpy.testing.assert_allclose(numpy.asarray(W), w_ref / 2 + 1)


def test_devices_move_values_both_ways():
    a = _a()
    dev = backend.get_device('@intel64')
    t = dev.send(a)
    assert intel64.is_native_array(t)
    assert backend.get_device_from_array(t) == dev
    assert backend.is_array(t)
    assert dev.send(t) is t
    back = backend.cpu_device.send(_nhwc(a))
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, a)
    labels = numpy.arange(3, dtype=numpy.int32)
    assert dev.send(labels) is labels
    assert isinstance(dev.send(a.astype(numpy.float64)), numpy.ndarray)


def test_variable_and_link_move_to_intel64_and_back():
    import cpuframe.links as L
    link = L.Linear(4, 3)
    w0 = link.W.array.copy()
    link.to_intel64()
    assert intel64.is_native_array(link.W.array)
    assert link.device == backend.get_device('@intel64')
    link.cleargrads()
    link.W.zerograd()
    assert intel64.is_native_array(link.W.grad)
    link.to_cpu()
    assert isinstance(link.W.array, numpy.ndarray)
    numpy.testing.assert_array_equal(link.W.array, w0)
    v = Variable(_a())
    v.to_intel64()
    assert intel64.is_native_array(v.array)
    assert 'variable' in repr(v)
    w = Variable(intel64.from_numpy(numpy.zeros_like(_a())))
    w.copydata(v)
    numpy.testing.assert_array_equal(numpy.asarray(w.array),
                                     numpy.asarray(v.array))


def test_npz_serialization_round_trip():
    import cpuframe.links as L
    from cpuframe import serializers
    src = L.Convolution2D(3, 4, 3)
    src.to_intel64()
    src.W.array.reorder_inplace('acdb')
    buf = io.BytesIO()
    serializers.save_npz(buf, src)
    dst = L.Convolution2D(3, 4, 3)
    dst.to_intel64()
    dst.W.array.reorder_inplace('acdb')
    buf.seek(0)
    serializers.load_npz(buf, dst)
    assert intel64.is_native_array(dst.W.array) and dst.W.array.format == 'acdb'
    numpy.testing.assert_array_equal(numpy.asarray(dst.W.array),
                                     numpy.asarray(src.W.array))


def test_bad_input_raises_python_errors():
    mod = intel64.native()
    with pytest.raises(TypeError, match='Tensor.from_numpy'):
        mod.Tensor.from_numpy(numpy.ones((2, 3)))
    with pytest.raises(TypeError, match='Tensor.from_numpy'):
        mod.Tensor.from_numpy([1.0, 2.0])
    t = intel64.from_numpy(_a())
    with pytest.raises(ValueError, match='Tensor.reorder'):
        t.reorder('abz')
    with pytest.raises(ValueError, match='copy_from'):
        t.copy_from(numpy.zeros((3, 3), numpy.float32))
    with pytest.raises(ValueError, match='reorder_to_layout_of'):
        t.reorder_to_layout_of(intel64.from_numpy(numpy.zeros(3, numpy.float32)))


def test_cpuframe_namespace_unchanged():
    assert cpuframe.Variable is Variable


@pytest.mark.parametrize('update', [
    lambda a, b: a.__iadd__(1.0),             # padding would become 1
    lambda a, b: a.__imul__(3.0),             # keeps zeros: no repair needed
    lambda a, b: a.__iadd__(b * 0.5),         # keeps zeros
    lambda a, b: a.__itruediv__(b),           # 0 / 0 in the padding
    lambda a, b: numpy.sqrt(a * a, out=a),    # keeps zeros
    lambda a, b: numpy.exp(a, out=a),         # padding would become 1
])
def test_padding_is_exactly_zero_after_elementwise_updates(update):
    # A weight of 100 x 784 adopts a blocked layout padded on both axes
    # (the inner product picks it), and an activation of 3 channels gets
    # padded to a channel block by a convolution.
    import cpuframe.functions as F
    from cpuframe.configuration import using_config
    rng = numpy.random.default_rng(7)
    W = intel64.from_numpy(rng.random((100, 784), numpy.float32) + 0.5)
    x = intel64.from_numpy(rng.random((2, 3, 6, 6), numpy.float32))
    with using_config('use_ideep', 'always'):
        F.linear(intel64.from_numpy(rng.random((8, 784), numpy.float32)), W)
        y = F.convolution_2d(x, intel64.from_numpy(
            rng.random((3, 3, 3, 3), numpy.float32)), pad=1).array
    padded = [t for t in (W, y) if t.has_padding]
    if not padded:
        pytest.skip('oneDNN chose unpadded layouts here')
    for a in padded:
        b = a.copy()
        b += 1.0
        want = update(numpy.asarray(a).copy(), numpy.asarray(b))
        update(a, b)
        numpy.testing.assert_allclose(numpy.asarray(a), numpy.asarray(want),
                                      rtol=1e-6)
        # every element outside the logical array is exactly zero
        assert numpy.count_nonzero(a.raw_view()) <= a.size
        logical = numpy.count_nonzero(numpy.asarray(a))
        assert numpy.count_nonzero(a.raw_view()) == logical


def test_plain_view_is_the_buffer_of_a_plain_float32_tensor():
    # The NumPy boundary of the device (numpy.asarray, to_numpy) in one call
    a = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    t = intel64.mdarray.from_numpy(a)
    v = t.plain_view()
    assert isinstance(v, numpy.ndarray) and v.shape == (3, 4)
    assert v.dtype == numpy.float32 and v.flags.c_contiguous
    numpy.testing.assert_array_equal(v, a)
    v[1, 2] = -7  # a view: written through
    assert numpy.asarray(t)[1, 2] == -7
    assert intel64.to_numpy(t).base is not None
    del t  # the view keeps the buffer alive
    assert v[1, 2] == -7 and v[2, 3] == 11
    # other layouts need a copy: None
    p = intel64.mdarray.from_numpy(a).reorder('ba')
    assert not p.is_plain and p.plain_view() is None
    numpy.testing.assert_array_equal(numpy.asarray(p), a)
    # special values pass through unchanged
    s = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 3e38, -0.0],
                    numpy.float32)
    out = intel64.mdarray.from_numpy(s).plain_view()
    numpy.testing.assert_array_equal(out.view(numpy.uint32),
                                     s.view(numpy.uint32))


def test_plain_views_reads_an_ops_inputs_in_one_call():
    # The NumPy path's read of device inputs: ndarrays as they are, plain
    # float32 tensors as views of their buffers, None for anything else
    native = intel64.native()
    a = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    n = numpy.ones((3, 4), numpy.float32)
    t = intel64.from_numpy(a)
    views = native.plain_views((t, n, t))
    assert type(views) is tuple and len(views) == 3
    assert views[1] is n
    for v in (views[0], views[2]):
        assert type(v) is numpy.ndarray and v.dtype == numpy.float32
        assert v.shape == (3, 4) and v.flags.c_contiguous
        assert v.flags.writeable
        numpy.testing.assert_array_equal(v, a)
    views[0][2, 1] = 42  # a view: written through, seen by the other one
    assert numpy.asarray(t)[2, 1] == 42 and views[2][2, 1] == 42
    v = views[0]
    del t, views  # the view keeps the buffer alive
    assert v[2, 1] == 42 and v[2, 3] == 11
    assert native.plain_views(()) == ()
    # a laid-out or bfloat16 tensor needs a copy; None, a list or a scalar
    # is the caller's: None for the whole tuple
    blocked = intel64.from_numpy(a).reorder('ba')
    assert native.plain_views((n, blocked)) is None
    assert native.plain_views((native.to_bfloat16(a),)) is None
    assert native.plain_views((n, None)) is None
    assert native.plain_views((intel64.from_numpy(a), [1.0])) is None
    assert native.plain_views((numpy.float32(1),)) is None
    with pytest.raises(TypeError):
        native.plain_views([n])  # a tuple, as apply passes
    # shapes with a zero extent and many axes; special values unchanged
    for shape in ((0, 3), (2, 0, 5), (1,), (2, 1, 3, 1, 2)):
        z = numpy.random.default_rng(1).standard_normal(shape).astype(
            numpy.float32)
        out, = native.plain_views((intel64.from_numpy(z),))
        assert out.shape == shape and out.flags.c_contiguous
        numpy.testing.assert_array_equal(out, z)
    s = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 3e38, -0.0],
                    numpy.float32)
    out, = native.plain_views((intel64.from_numpy(s),))
    numpy.testing.assert_array_equal(out.view(numpy.uint32),
                                     s.view(numpy.uint32))


def test_attributes_read_without_the_dispatcher():
    # shape, ndim, size, dtype, storage_dtype and is_plain are CPython
    # getters reading the instance directly (the small-work path reads them
    # per op): the same answers as the buffer's, for every layout and
    # storage, and clear errors instead of a crash on what is no tensor
    native = intel64.native()
    for shape in ((2, 3, 4, 5), (0, 3), (2, 0, 5), (1,), (7,),
                  (2, 1, 3, 1, 2)):
        a = _a(shape)
        for t in (intel64.from_numpy(a), native.to_bfloat16(a)):
            assert type(t.shape) is tuple and t.shape == shape
            assert all(type(d) is int for d in t.shape)
            assert t.ndim == len(shape) and type(t.ndim) is int
            assert t.size == a.size and type(t.size) is int
            assert t.dtype == numpy.float32 and t.is_plain is True
    assert native.to_bfloat16(_a()).storage_dtype == 'bfloat16'
    assert intel64.from_numpy(_a()).storage_dtype == 'float32'
    laid_out = _nhwc(_a())
    assert laid_out.shape == (2, 3, 4, 5) and laid_out.is_plain is False
    assert laid_out.format == 'acdb'

    class Sub(intel64.mdarray):  # a Python subclass reads the same way
        pass
    s = Sub(_a((3, 4)))
    assert s.shape == (3, 4) and s.dtype == numpy.float32 and s.is_plain
    views = native.plain_views((s,))
    numpy.testing.assert_array_equal(views[0], _a((3, 4)))
    assert native.data_ptrs((s,)) == (s.data_ptr,)
    bare = intel64.mdarray.__new__(intel64.mdarray)  # no __init__ ran
    for name in ('shape', 'ndim', 'size', 'dtype', 'storage_dtype',
                 'is_plain'):
        with pytest.raises(TypeError, match='not initialized'):
            getattr(bare, name)
        with pytest.raises(TypeError):
            getattr(intel64.mdarray, name).__get__(numpy.zeros(3))
    assert native.plain_views((bare,)) is None
    with pytest.raises(TypeError, match='data_ptrs: expected a tuple of '
                       'Tensors, got an element of type int'):
        native.data_ptrs((intel64.from_numpy(_a()), 3))
    with pytest.raises(TypeError, match='expected x to be a float32'):
        native.to_bfloat16(bare)


def test_plain_views_from_several_threads():
    native = intel64.native()
    arrays = [_a((4, 5), seed) for seed in range(4)]
    tensors = [intel64.from_numpy(a) for a in arrays]

    def work():
        for _ in range(300):
            views = native.plain_views(tuple(tensors))
            for v, a in zip(views, arrays):
                numpy.testing.assert_array_equal(v, a)
    assert run_in_threads(work, 4) == []


def test_the_numpy_path_on_device_keeps_no_views_on_the_graph():
    # The route choice reads a small op's device inputs once (their views
    # go to the NumPy path that follows); the recorded node keeps none
    x = Variable(intel64.from_numpy(_a((4, 3))))
    y = Variable(intel64.from_numpy(_a((4, 3), 1)))
    with cpuframe.using_config('use_ideep', 'auto'):
        z = x * y + x
    assert type(z.array) is numpy.ndarray
    numpy.testing.assert_allclose(
        z.array, _a((4, 3)) * _a((4, 3), 1) + _a((4, 3)), rtol=1e-6)
    node = z.creator
    while node is not None:
        assert node._plain_inputs is None
        node = node.inputs[0].creator
