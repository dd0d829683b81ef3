"""F.cholesky, F.fft/F.ifft and F.sparse_matmul."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check, utils


def _spd(n, seed=0):
    a = numpy.random.RandomState(seed).randn(n, n)
    return a @ a.T + n * numpy.eye(n)


# -- cholesky --------------------------------------------------------

def test_cholesky_values():
    a = _spd(4)
    y = F.cholesky(a.astype(numpy.float32))
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, numpy.linalg.cholesky(a),
                                  rtol=1e-5)
    assert numpy.allclose(numpy.triu(y.array, 1), 0)


def test_cholesky_gradients():
    a = _spd(3)
    rs = numpy.random.RandomState(1)
    gy = numpy.tril(rs.randn(3, 3))
    ggx = rs.randn(3, 3)

    def f(x):  # a symmetric input, as the decomposition assumes
        return F.cholesky((x + F.transpose(x)) * 0.5)

    gradient_check.check_backward(f, a, gy, dtype=numpy.float64,
                                  atol=1e-4, rtol=1e-4)
    gradient_check.check_double_backward(f, a, gy, ggx, dtype=numpy.float64,
                                         atol=1e-4, rtol=1e-4)


def test_cholesky_type_errors():
    with pytest.raises(Exception, match='ndim'):
        F.cholesky(numpy.ones((2, 2, 2), numpy.float32))


# -- fft -------------------------------------------------------------

@pytest.mark.parametrize('name', ['fft', 'ifft'])
def test_fft_values(name):
    rs = numpy.random.RandomState(0)
    r = rs.randn(2, 5).astype(numpy.float32)
    i = rs.randn(2, 5).astype(numpy.float32)
    yr, yi = getattr(F, name)((r, i))
    ref = getattr(numpy.fft, name)(r + 1j * i)
    assert yr.dtype == numpy.float32
    numpy.testing.assert_allclose(yr.array, ref.real, rtol=1e-5, atol=1e-5)
    numpy.testing.assert_allclose(yi.array, ref.imag, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('name', ['fft', 'ifft'])
def test_fft_gradients(name):
    rs = numpy.random.RandomState(2)
    x = (rs.randn(3, 4), rs.randn(3, 4))
    gy = (rs.randn(3, 4), rs.randn(3, 4))
    ggx = (rs.randn(3, 4), rs.randn(3, 4))
    f = getattr(F, name)

    def fn(r, i):
        return f((r, i))

    gradient_check.check_backward(fn, x, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(fn, x, gy, ggx, dtype=numpy.float64)


def test_fft_one_output_used():
    r = cpuframe.Variable(numpy.array([1.0, 2.0, 3.0]))
    i = cpuframe.Variable(numpy.zeros(3))
    yr, _ = F.fft((r, i))
    F.sum(yr).backward()
    # sum(Re fft(x)) = n * x[0] for real x.
    numpy.testing.assert_allclose(r.grad, [3.0, 0.0, 0.0], atol=1e-12)


def test_fft_ifft_roundtrip_and_errors():
    r = numpy.arange(4, dtype=numpy.float64)
    i = numpy.zeros(4)
    back = F.ifft(F.fft((r, i)))
    numpy.testing.assert_allclose(back[0].array, r, atol=1e-12)
    from cpuframe.utils import type_check
    with pytest.raises(type_check.InvalidType):
        F.fft((r, numpy.zeros(3)))


# -- sparse_matmul ---------------------------------------------------

def _sparse(shape, seed, batch=None):
    rs = numpy.random.RandomState(seed)
    full = shape if batch is None else (batch,) + shape
    a = rs.randn(*full) * (rs.rand(*full) < 0.5)
    return a


@pytest.mark.parametrize('transa,transb', [(False, False), (True, False),
                                           (False, True), (True, True)])
def test_sparse_left(transa, transb):
    a = _sparse((3, 4), 0)
    sa = a.T if transa else a
    b = numpy.random.RandomState(1).randn(sa.shape[1], 2)
    bb = b.T if transb else b
    y = F.sparse_matmul(utils.to_coo(a, ldnz=20), bb, transa=transa,
                        transb=transb)
    numpy.testing.assert_allclose(y.array, sa @ b, rtol=1e-12)


@pytest.mark.parametrize('transa,transb', [(False, False), (True, True)])
def test_sparse_right_batched(transa, transb):
    sp = _sparse((4, 2), 2, batch=3)
    spt = sp.swapaxes(1, 2) if transb else sp
    d = numpy.random.RandomState(3).randn(3, 5, spt.shape[1])
    dd = d.swapaxes(1, 2) if transa else d
    y = F.sparse_matmul(dd, utils.to_coo(sp), transa=transa, transb=transb)
    numpy.testing.assert_allclose(y.array, d @ spt, rtol=1e-12)


def test_sparse_gradients_flow_to_data_and_dense():
    a = _sparse((3, 4), 4)
    coo = utils.to_coo(a, ldnz=a.size, requires_grad=True)
    b = numpy.random.RandomState(5).randn(4, 2)
    gy = numpy.random.RandomState(6).randn(3, 2)

    # Compare with the dense product: the gradient of the data is the dense
    # gradient at the stored entries (0 at padding slots).
    bv = cpuframe.Variable(b)
    y = F.sparse_matmul(coo, bv)
    y.grad = gy
    y.backward()
    dense_grad = gy @ b.T
    n = int((a != 0).sum())
    numpy.testing.assert_allclose(
        coo.data.grad[:n], dense_grad[coo.row[:n], coo.col[:n]], rtol=1e-12)
    assert (coo.data.grad[n:] == 0).all()
    numpy.testing.assert_allclose(bv.grad, a.T @ gy, rtol=1e-12)


def test_sparse_numerical_gradients():
    a = _sparse((3, 3), 7)
    coo = utils.to_coo(a)
    b = numpy.random.RandomState(8).randn(3, 2)
    gy = numpy.random.RandomState(9).randn(3, 2)
    ggx = (numpy.random.RandomState(10).randn(*coo.data.shape),
           numpy.random.RandomState(11).randn(3, 2))

    def f(data, dense):
        sp = utils.to_coo(a)
        sp.data = data  # the Variable under test
        return F.sparse_matmul(sp, dense)

    gradient_check.check_backward(f, (coo.data.array, b), gy,
                                  dtype=numpy.float64)
    gradient_check.check_double_backward(f, (coo.data.array, b), gy, ggx,
                                         dtype=numpy.float64)


def test_sparse_matmul_errors():
    coo = utils.to_coo(numpy.eye(2))
    with pytest.raises(ValueError, match='combination'):
        F.sparse_matmul(coo, coo)
    with pytest.raises(ValueError, match='ndim'):
        F.sparse_matmul(coo, numpy.ones((1, 2, 2)))
