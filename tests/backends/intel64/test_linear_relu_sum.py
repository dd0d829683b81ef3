"""Parity of the linear, relu and gradient-sum routes with the NumPy path."""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config
from cpuframe.functions.math.basic_math import MultiAdd


# (96, 24, 200): a large batch and an output much wider than the input, where
# the weights stay plain (the language-model softmax layer's policy).
@pytest.mark.parametrize('n,i,o', [(1, 7, 3), (8, 33, 17), (64, 256, 100),
                                   (96, 24, 200)])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_linear_parity(n, i, o, bias, where, rng, run, parity):
    arrays = [rng.standard_normal((n, i)).astype(numpy.float32),
              (rng.standard_normal((o, i)) * 0.2).astype(numpy.float32)]
    if bias:
        arrays.append(rng.standard_normal(o).astype(numpy.float32))
    parity(run(F.linear, arrays, where=where),
           run(F.linear, arrays, mode='never'))


@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_linear_n_batch_axes_and_4d_input(where, rng, run, parity):
    x = rng.standard_normal((2, 3, 4, 5)).astype(numpy.float32)
    W = rng.standard_normal((6, 20)).astype(numpy.float32)
    b = rng.standard_normal(6).astype(numpy.float32)

    def f(*a):
        return F.linear(*a, n_batch_axes=2)
    # The output is reshaped back by F.reshape, a NumPy op (a boundary).
    parity(run(f, [x, W, b], where=where, check_type=False),
           run(f, [x, W, b], mode='never'))
    W = rng.standard_normal((6, 60)).astype(numpy.float32)
    parity(run(F.linear, [x, W, b], where=where),
           run(F.linear, [x, W, b], mode='never'))


def test_linear_weight_gradient_in_weight_layout(rng):
    x = intel64.from_numpy(rng.standard_normal((16, 64)).astype(numpy.float32))
    W = Variable(intel64.from_numpy(rng.standard_normal((32, 64)).astype(
        numpy.float32)))
    with using_config('use_ideep', 'always'):
        y = F.linear(x, W)
        y.grad = numpy.ones(y.shape, numpy.float32)
        y.backward()
    assert intel64.is_native_array(W.grad)
    assert W.grad.same_layout(W.array)


@pytest.mark.parametrize('n,plain', [(96, True), (8, False)])
def test_linear_wide_output_keeps_plain_weights(n, plain, rng):
    # 24 -> 200 for a batch of 96: oneDNN's backward data is fastest on plain
    # weights there, so the weight is not reordered; for a small batch the
    # forward wants a blocked layout and the weight adopts it, where oneDNN
    # also writes the weight gradient blocked (AVX-512's brgemm); below
    # AVX-512 it computes that gradient plain, and the weight stays plain.
    if not intel64.native().isa().startswith('avx512'):
        plain = True
    x = rng.standard_normal((n, 24)).astype(numpy.float32)
    w = (rng.standard_normal((200, 24)) * 0.2).astype(numpy.float32)
    gy = rng.standard_normal((n, 200)).astype(numpy.float32)
    W = Variable(intel64.from_numpy(w))
    xv = Variable(intel64.from_numpy(x))
    with using_config('use_ideep', 'always'):
        y = F.linear(xv, W)
        y.grad = intel64.from_numpy(gy)
        y.backward()
    assert W.array.is_plain == plain
    assert W.grad.same_layout(W.array)
    numpy.testing.assert_allclose(numpy.asarray(y.array), x @ w.T,
                                  rtol=1e-4, atol=1e-4)
    numpy.testing.assert_allclose(numpy.asarray(xv.grad), gy @ w,
                                  rtol=1e-4, atol=1e-4)
    numpy.testing.assert_allclose(numpy.asarray(W.grad), gy.T @ x,
                                  rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize('shape', [(5,), (3, 7), (2, 16, 9, 9), (2, 3, 4, 5, 6)])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_relu_parity(shape, where, rng, run, parity):
    x = rng.standard_normal(shape).astype(numpy.float32)
    parity(run(F.relu, [x], where=where), run(F.relu, [x], mode='never'))


def test_relu_keeps_blocked_layout_and_grad_from_other_layout(rng):
    x = rng.standard_normal((2, 8, 5, 5)).astype(numpy.float32)
    t = intel64.from_numpy(x).reorder('acdb')
    xv = Variable(t)
    with using_config('use_ideep', 'always'):
        y = F.relu(xv)
        assert y.array.format == 'acdb'
        y.grad = intel64.from_numpy(x)  # plain: reordered to y's layout
        y.backward()
    assert xv.grad.format == 'acdb'
    numpy.testing.assert_array_equal(numpy.asarray(y.array), numpy.maximum(x, 0))
    numpy.testing.assert_array_equal(numpy.asarray(xv.grad), x * (x > 0))


def test_relu_non_contiguous_numpy(rng):
    x = rng.standard_normal((4, 6, 5)).astype(numpy.float32)[:, ::2].transpose(
        2, 0, 1)
    with using_config('use_ideep', 'always'):
        y = F.relu(x).array
    assert isinstance(y, numpy.ndarray)
    numpy.testing.assert_array_equal(y, numpy.maximum(x, 0))


@pytest.mark.parametrize('n', [2, 3, 5])
@pytest.mark.parametrize('kinds', ['numpy', 'device', 'mixed'])
def test_multi_add_parity(n, kinds, rng):
    arrays = [rng.standard_normal((2, 16, 3, 3)).astype(numpy.float32)
              for _ in range(n)]
    ref = sum(arrays[1:], arrays[0])
    if kinds == 'numpy':
        xs = arrays
    elif kinds == 'device':
        xs = [intel64.from_numpy(a).reorder('acdb') for a in arrays]
    else:
        xs = [intel64.from_numpy(a).reorder('acdb') if i % 2 else a
              for i, a in enumerate(arrays)]
    with using_config('use_ideep', 'always'):
        y = MultiAdd().apply(xs)[0].array
    if kinds == 'numpy':
        assert isinstance(y, numpy.ndarray)
    else:
        assert intel64.is_native_array(y) and y.format == 'acdb'
    numpy.testing.assert_allclose(numpy.asarray(y), ref, rtol=1e-6, atol=1e-6)


def test_gradient_accumulation_on_device(rng):
    """A variable used twice gets the sum of both gradients, as an mdarray."""
    x = rng.standard_normal((2, 4, 6, 6)).astype(numpy.float32)
    out = {}
    for mode, send in (('never', numpy.copy), ('always', intel64.from_numpy)):
        with using_config('use_ideep', mode):
            xv = Variable(send(x))
            h = F.relu(xv)
            y = F.sum(h * 2) + F.sum(F.relu(h) * 3) + F.sum(h)
            y.backward()
            out[mode] = numpy.asarray(xv.grad)
    numpy.testing.assert_allclose(out['always'], out['never'], rtol=1e-6)


@pytest.mark.parametrize('shape', [(7,), (3, 5), (2, 16, 5, 5), (2, 3, 4, 5, 6)])
@pytest.mark.parametrize('where', ['numpy', 'device'])
def test_add_parity(shape, where, rng, run, parity):
    a = rng.standard_normal(shape).astype(numpy.float32)
    b = rng.standard_normal(shape).astype(numpy.float32)

    def f(x, y):
        return x + y
    parity(run(f, [a, b], where=where), run(f, [a, b], mode='never'))


def test_add_residual_stays_on_device_without_reorder(rng):
    """ResNet's residual add: blocked mdarrays in, same layout out, no reorder
    forward or backward; the gradients of both operands are mdarrays."""
    shape = (2, 16, 5, 5)
    a, b, g = (rng.standard_normal(shape).astype(numpy.float32)
               for _ in range(3))
    nat = intel64.native()
    xa = intel64.from_numpy(a).reorder('acdb')
    xb = intel64.from_numpy(b).reorder('acdb')
    xg = intel64.from_numpy(g).reorder('acdb')
    with using_config('use_ideep', 'always'):
        va, vb = Variable(xa), Variable(xb)
        nat.reset_reorder_stats()
        y = va + vb
        y.grad = xg
        y.backward()
        assert nat.reorder_stats()['count'] == 0
    assert intel64.is_native_array(y.array) and y.array.format == 'acdb'
    numpy.testing.assert_allclose(numpy.asarray(y.array), a + b, rtol=1e-6)
    for v in (va, vb):
        assert intel64.is_native_array(v.grad)
        numpy.testing.assert_allclose(numpy.asarray(v.grad), g, rtol=1e-6)


def test_add_broadcasting_falls_back_to_numpy(rng):
    a = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    b = rng.standard_normal((3, 4)).astype(numpy.float32)
    with using_config('use_ideep', 'always'):
        va = Variable(intel64.from_numpy(a))
        vb = Variable(b)
        y = va + vb
        y.grad = numpy.ones(y.shape, numpy.float32)
        y.backward()
    numpy.testing.assert_allclose(numpy.asarray(y.array), a + b, rtol=1e-6)
    numpy.testing.assert_allclose(numpy.asarray(vb.grad),
                                  numpy.full((3, 4), 2, numpy.float32))


def test_tensor_pool_reuses_freed_buffers():
    nat = intel64.native()
    limit = nat.tensor_pool_stats()['limit_bytes']
    try:
        nat.set_tensor_pool_limit(64 << 20)
        nat.release_tensor_pool()
        a = numpy.arange(1 << 18, dtype=numpy.float32).reshape(512, 512)
        t = intel64.from_numpy(a)
        ptr = t.data_ptr
        del t
        stats = nat.tensor_pool_stats()
        assert stats['cached_buffers'] == 1 and stats['cached_bytes'] >= a.nbytes
        hits = stats['hits']
        t2 = intel64.from_numpy(a + 1)   # same size: the same buffer again
        assert t2.data_ptr == ptr and nat.tensor_pool_stats()['hits'] == hits + 1
        numpy.testing.assert_array_equal(numpy.asarray(t2), a + 1)
        # A raw view keeps the buffer out of the pool while it lives.
        view = t2.raw_view()
        del t2
        assert nat.tensor_pool_stats()['cached_buffers'] == 0
        del view
        assert nat.tensor_pool_stats()['cached_buffers'] == 1
        nat.release_tensor_pool()
        assert nat.tensor_pool_stats()['cached_bytes'] == 0
        nat.set_tensor_pool_limit(0)   # disabled: freed buffers go back
        t3 = intel64.from_numpy(a)
        del t3
        assert nat.tensor_pool_stats()['cached_bytes'] == 0
    finally:
        nat.set_tensor_pool_limit(limit)
