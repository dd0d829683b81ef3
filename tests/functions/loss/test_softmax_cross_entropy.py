"""The intel64 parity tests of this op:
tests/backends/intel64/test_softmax_cross_entropy.py, test_kernel_isa.py and
test_edge_values.py.
"""
import importlib
import types

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check

sce_module = importlib.import_module(
    'cpuframe.functions.loss.softmax_cross_entropy')

SHAPES = [(4, 3), (2, 3, 2, 2), (3, 4, 5)]


def _labels(rng, shape, ignore_label, n_ignored=1):
    t = rng.randint(0, shape[1], (shape[0],) + shape[2:])
    flat = t.reshape(-1)
    flat[rng.permutation(flat.size)[:n_ignored]] = ignore_label
    return t.astype(numpy.int32)


def _reference(x, t, normalize=True, class_weight=None, ignore_label=-1,
               reduce='mean'):
    """Naive loops over positions in float64."""
    x = x.astype(numpy.float64)
    n_class = x.shape[1]
    rows = numpy.moveaxis(x, 1, -1).reshape(-1, n_class)
    labels = t.reshape(-1)
    losses = numpy.zeros(labels.size)
    count = 0
    for i in range(labels.size):
        label = labels[i]
        if label == ignore_label:
            continue
        count += 1
        row = rows[i]
        m = row.max()
        lse = m + numpy.log(numpy.exp(row - m).sum())
        w = 1.0 if class_weight is None else class_weight[label]
        losses[i] = w * (lse - row[label])
    if reduce == 'no':
        return losses.reshape(t.shape)
    denom = count if normalize else x.shape[0]
    return losses.sum() / max(denom, 1)


def _soft_reference(x, t, loss_type, reduce):
    x = x.astype(numpy.float64)
    n_class = x.shape[1]
    rows = numpy.moveaxis(x, 1, -1).reshape(-1, n_class)
    targets = numpy.moveaxis(t, 1, -1).reshape(-1, n_class)
    losses = numpy.zeros(len(rows))
    for i in range(len(rows)):
        row = rows[i]
        m = row.max()
        log_y = row - m - numpy.log(numpy.exp(row - m).sum())
        for c in range(n_class):
            p = targets[i, c]
            losses[i] -= p * log_y[c]
            if loss_type == 'kl-divergence' and p > 0:
                losses[i] += p * numpy.log(p)
    losses = losses.reshape(x.shape[:1] + x.shape[2:])
    if reduce == 'no':
        return losses
    return losses.mean()


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('ignore_label', [-1, 2])
def test_forward(shape, dtype, reduce, normalize, weighted, ignore_label):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-3, 3, shape).astype(dtype)
    t = _labels(rng, shape, ignore_label, n_ignored=2)
    cw = rng.uniform(0.5, 2, shape[1]).astype(dtype) if weighted else None
    y = F.softmax_cross_entropy(x, t, normalize=normalize, class_weight=cw,
                                ignore_label=ignore_label, reduce=reduce)
    expected = _reference(x, t, normalize, cw, ignore_label, reduce)
    assert y.dtype == dtype
    assert y.shape == (() if reduce == 'mean' else t.shape)
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    if reduce == 'no':
        assert (y.array[t == ignore_label] == 0).all()


def test_label_dtypes_and_t_as_variable():
    rng = numpy.random.RandomState(1)
    x = rng.randn(3, 4)
    t = numpy.array([0, 3, -1])
    expected = _reference(x, t)
    for tt in (t.astype(numpy.int8), t.astype(numpy.int64),
               cpuframe.Variable(t.astype(numpy.int32), requires_grad=False)):
        numpy.testing.assert_allclose(
            F.softmax_cross_entropy(x, tt).array, expected, rtol=1e-12)


def test_numerically_stable_for_large_scores():
    x = numpy.array([[1000., 0., -1000.], [-1e4, -1e4 + 2, -1e4 + 1]],
                    numpy.float32)
    t = numpy.array([2, 0], numpy.int32)
    y = F.softmax_cross_entropy(x, t, reduce='no')
    assert numpy.isfinite(y.array).all()
    numpy.testing.assert_allclose(y.array, [2000., 2.407606], rtol=1e-5)
    xv = cpuframe.Variable(x)
    F.softmax_cross_entropy(xv, t).backward()
    assert numpy.isfinite(xv.grad).all()


def test_all_ignored_gives_zero_loss_and_gradient():
    x = cpuframe.Variable(numpy.random.RandomState(2).randn(3, 4))
    t = numpy.full(3, -1, numpy.int32)
    for normalize in (True, False):
        y = F.softmax_cross_entropy(x, t, normalize=normalize)
        assert float(y.array) == 0.0
        x.cleargrad()
        y.backward()
        assert (x.grad == 0).all()


def test_empty_batch():
    y = F.softmax_cross_entropy(numpy.zeros((0, 3), numpy.float32),
                                numpy.zeros((0,), numpy.int32))
    assert y.shape == () and float(y.array) == 0.0


def test_gradient_values():
    # d loss / d x = (softmax(x) - onehot(t)) * w[t] / count
    rng = numpy.random.RandomState(3)
    x = cpuframe.Variable(rng.randn(3, 4))
    t = numpy.array([1, -1, 3], numpy.int32)
    cw = numpy.array([1., 2., 3., 4.])
    F.softmax_cross_entropy(x, t, class_weight=cw).backward()
    e = numpy.exp(x.array - x.array.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    expected = numpy.zeros_like(y)
    for i, label in enumerate(t):
        if label != -1:
            expected[i] = (y[i] - numpy.eye(4)[label]) * cw[label] / 2
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('weighted', [False, True])
def test_backward(shape, reduce, normalize, weighted):
    rng = numpy.random.RandomState(4)
    x = rng.uniform(-2, 2, shape)
    t = _labels(rng, shape, -1)
    cw = rng.uniform(0.5, 2, shape[1]) if weighted else None
    gy = None if reduce == 'mean' else rng.randn(*t.shape)

    def f(x):
        return F.softmax_cross_entropy(x, t, normalize=normalize,
                                       class_weight=cw, reduce=reduce)
    gradient_check.check_backward(f, x, gy, atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize('cache_score', [True, False])
def test_backward_float32(cache_score):
    rng = numpy.random.RandomState(5)
    x = rng.uniform(-2, 2, (2, 3, 2)).astype(numpy.float32)
    t = _labels(rng, x.shape, -1)

    def f(x):
        return F.softmax_cross_entropy(x, t, cache_score=cache_score)
    gradient_check.check_backward(f, x, None, dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2)])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('enable_double_backprop', [False, True])
def test_double_backward(shape, reduce, weighted, enable_double_backprop):
    rng = numpy.random.RandomState(6)
    x = rng.uniform(-2, 2, shape)
    t = _labels(rng, shape, -1)
    cw = rng.uniform(0.5, 2, shape[1]) if weighted else None
    gy = numpy.asarray(rng.randn(*(() if reduce == 'mean' else t.shape)))
    ggx = rng.randn(*shape)

    def f(x):
        return F.softmax_cross_entropy(
            x, t, class_weight=cw, reduce=reduce,
            enable_double_backprop=enable_double_backprop)
    gradient_check.check_double_backward(f, x, gy, ggx, atol=1e-7, rtol=1e-5)


def test_third_order():
    # The gradient node's own backward is differentiable again.
    rng = numpy.random.RandomState(7)
    x0 = rng.randn(2, 3)
    t = numpy.array([2, 0], numpy.int32)

    def gx(x):
        loss = F.softmax_cross_entropy(x, t)
        g, = cpuframe.grad([loss], [x], enable_double_backprop=True)
        return g
    gradient_check.check_double_backward(gx, x0, rng.randn(2, 3),
                                         rng.randn(2, 3), atol=1e-7,
                                         rtol=1e-5)


@pytest.mark.parametrize('loss_type', ['cross-entropy', 'kl-divergence'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2)])
def test_soft_target(loss_type, reduce, shape):
    rng = numpy.random.RandomState(8)
    x = rng.uniform(-2, 2, shape)
    t = rng.uniform(0, 1, shape)
    t /= t.sum(axis=1, keepdims=True)
    t[0, 0] = 0.0  # exercises 0 log 0 = 0
    t[0, 1:] /= t[0, 1:].sum()

    def f(x):
        return F.softmax_cross_entropy(x, t, reduce=reduce,
                                       soft_target_loss=loss_type)
    y = f(x)
    numpy.testing.assert_allclose(
        y.array, _soft_reference(x, t, loss_type, reduce), rtol=1e-12)
    gy = numpy.asarray(rng.randn(*y.shape))
    gradient_check.check_backward(f, x, gy, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.randn(*shape),
                                         atol=1e-7, rtol=1e-5)


def test_soft_target_with_unnormalized_mass():
    # The gradient is that of the loss as written, even if t does not sum
    # to one.
    rng = numpy.random.RandomState(9)
    x = rng.randn(3, 4)
    t = rng.uniform(0, 1, (3, 4))

    def f(x):
        return F.softmax_cross_entropy(x, t)
    gradient_check.check_backward(f, x, None, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(f, x, numpy.asarray(0.7),
                                         rng.randn(3, 4), atol=1e-7,
                                         rtol=1e-5)


def test_generic_label_scatter_matches_numpy_path():
    # The non-NumPy branch (one-hot subtraction) used for CuPy arrays.
    rng = numpy.random.RandomState(10)
    a = rng.randn(2, 4, 3)
    t = rng.randint(0, 4, (2, 3))
    f = rng.randn(2, 1, 3)
    fake_xp = types.SimpleNamespace(arange=numpy.arange)
    b = a.copy()
    sce_module._subtract_at_labels(numpy, a, t, f)
    sce_module._subtract_at_labels(fake_xp, b, t, f)
    numpy.testing.assert_allclose(a, b, rtol=0, atol=1e-15)


def _check_invalid_type(x, t, **kwargs):
    with pytest.raises(type_check.InvalidType) as e:
        F.softmax_cross_entropy(x, t, **kwargs)
    assert 'SoftmaxCrossEntropy' in str(e.value)
    return str(e.value)


def test_float_labels_are_rejected():
    x = numpy.zeros((3, 4), numpy.float32)
    msg = _check_invalid_type(x, numpy.zeros(3, numpy.float32))
    assert 'x.shape == t.shape' in msg


@pytest.mark.parametrize('t_shape', [(4,), (3, 1), ()])
def test_shape_mismatch_is_rejected(t_shape):
    _check_invalid_type(numpy.zeros((3, 4), numpy.float32),
                        numpy.zeros(t_shape, numpy.int32))


def test_spatial_shape_mismatch_is_rejected():
    _check_invalid_type(numpy.zeros((2, 3, 4), numpy.float32),
                        numpy.zeros((2, 5), numpy.int32))


def test_int_scores_are_rejected():
    _check_invalid_type(numpy.zeros((3, 4), numpy.int32),
                        numpy.zeros(3, numpy.int32))


def test_class_weight_length_is_checked():
    msg = _check_invalid_type(numpy.zeros((3, 4), numpy.float32),
                              numpy.zeros(3, numpy.int32),
                              class_weight=numpy.ones(3, numpy.float32))
    assert 'class_weight.shape[0]' in msg


def test_class_weight_with_soft_target_is_rejected():
    _check_invalid_type(numpy.zeros((3, 4)), numpy.full((3, 4), 0.25),
                        class_weight=numpy.ones(4))


@pytest.mark.parametrize('cw', [numpy.ones((2, 2)), numpy.ones(4, numpy.int32),
                                [1., 1., 1., 1.],
                                cpuframe.Variable(numpy.ones(4))])
def test_bad_class_weight(cw):
    with pytest.raises(ValueError, match='softmax_cross_entropy'):
        F.softmax_cross_entropy(numpy.zeros((3, 4)), numpy.zeros(3, 'i'),
                                class_weight=cw)


@pytest.mark.parametrize('label', [4, -2, 100])
def test_out_of_range_label(label):
    t = numpy.array([0, label, 1], numpy.int32)
    with pytest.raises(ValueError, match='softmax_cross_entropy') as e:
        F.softmax_cross_entropy(numpy.zeros((3, 4), numpy.float32), t)
    assert str(label) in str(e.value)


def test_invalid_reduce():
    with pytest.raises(ValueError, match='softmax_cross_entropy') as e:
        F.softmax_cross_entropy(numpy.zeros((3, 4)), numpy.zeros(3, 'i'),
                                reduce='sum')
    assert "'mean'" in str(e.value) and "'no'" in str(e.value)
    assert "'sum'" in str(e.value)


def test_invalid_soft_target_loss():
    with pytest.raises(ValueError, match='softmax_cross_entropy'):
        F.softmax_cross_entropy(numpy.zeros((3, 4)), numpy.zeros((3, 4)),
                                soft_target_loss='mse')
