import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check


def _rand(shape, seed=0, dtype=numpy.float64, low=-1, high=1):
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(
        dtype)


def _conv(x, W, stride=1, pad=0):
    """Naive reference 2-D cross-correlation, no bias."""
    n, c, h, w = x.shape
    oc, _, kh, kw = W.shape
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    y = numpy.zeros((n, oc, oh, ow), numpy.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh,
                       j * stride:j * stride + kw]
            y[:, :, i, j] = numpy.einsum('nckl,ockl->no', patch, W)
    return y


def _pool3(x, stride, kind):
    """3x3 pooling with pad 1 (max: -inf padding, no cover_all; avg: zero
    padding, always divided by 9)."""
    n, c, h, w = x.shape
    fill = -numpy.inf if kind == 'max' else 0.
    xp = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=fill)
    oh = (h + 2 - 3) // stride + 1
    ow = (w + 2 - 3) // stride + 1
    windows = [xp[:, :, di:di + stride * (oh - 1) + 1:stride,
                  dj:dj + stride * (ow - 1) + 1:stride]
               for di in range(3) for dj in range(3)]
    if kind == 'max':
        return numpy.max(windows, axis=0)
    return numpy.sum(windows, axis=0) / 9.


def _bn(bn, h, train):
    if train:
        mean = h.mean(axis=(0, 2, 3))
        var = h.var(axis=(0, 2, 3))
    else:
        mean, var = bn.avg_mean, bn.avg_var
    g, b = bn.gamma.array, bn.beta.array
    s = (slice(None),) + (None,) * 2
    return (g[s] * (h - mean[s]) / numpy.sqrt(var[s] + bn.eps) + b[s])


def _relu(x):
    return numpy.maximum(x, 0)


def _reference(link, x, train):
    def cbr(conv, bn, h, stride=1, pad=0):
        return _relu(_bn(bn, _conv(h, conv.W.array, stride, pad), train))
    s = link.stride
    outs = []
    if link.out1 > 0:
        outs.append(cbr(link.conv1, link.conv1n, x, s))
    outs.append(cbr(link.conv3, link.conv3n,
                    cbr(link.proj3, link.proj3n, x), s, 1))
    h = cbr(link.conv33a, link.conv33an,
            cbr(link.proj33, link.proj33n, x), 1, 1)
    outs.append(cbr(link.conv33b, link.conv33bn, h, s, 1))
    p = _pool3(x, s, link.pooltype)
    if link.proj_pool is not None:
        p = cbr(link.poolp, link.poolpn, p)
    outs.append(p)
    return numpy.concatenate(outs, axis=1)


def _randomize_bn(link, seed):
    rng = numpy.random.RandomState(seed)
    for _, child in sorted(link.namedlinks(skipself=True)):
        if isinstance(child, L.BatchNormalization):
            child.gamma.array[...] = rng.uniform(0.5, 1.5, child.gamma.shape)
            child.beta.array[...] = rng.uniform(-0.5, 0.5, child.beta.shape)
            child.avg_mean[...] = rng.uniform(-0.2, 0.2, child.avg_mean.shape)
            child.avg_var[...] = rng.uniform(0.5, 2., child.avg_var.shape)


def test_params_and_names():
    link = L.InceptionBN(3, 2, 3, 4, 1, 5, 'max', proj_pool=6)
    shapes = {n: p.shape for n, p in link.namedparams()}
    assert shapes['/conv1/W'] == (2, 3, 1, 1)
    assert shapes['/proj3/W'] == (3, 3, 1, 1)
    assert shapes['/conv3/W'] == (4, 3, 3, 3)
    assert shapes['/proj33/W'] == (1, 3, 1, 1)
    assert shapes['/conv33a/W'] == (5, 1, 3, 3)
    assert shapes['/conv33b/W'] == (5, 5, 3, 3)
    assert shapes['/poolp/W'] == (6, 3, 1, 1)
    # no convolution has a bias; each has its batch normalization
    assert not [n for n in shapes if n.endswith('/b')]
    for bn, size in [('conv1n', 2), ('proj3n', 3), ('conv3n', 4),
                     ('proj33n', 1), ('conv33an', 5), ('conv33bn', 5),
                     ('poolpn', 6)]:
        assert shapes['/{}/gamma'.format(bn)] == (size,)
    bare = L.InceptionBN(3, 0, 3, 4, 1, 5, 'avg', stride=2)
    names = {n for n, _ in bare.namedparams()}
    assert not any(n.startswith(('/conv1/', '/conv1n/', '/poolp'))
                   for n in names)


@pytest.mark.parametrize('train', [True, False])
@pytest.mark.parametrize('out1,pooltype,proj_pool,stride', [
    (2, 'max', 3, 1), (3, 'avg', 2, 1), (0, 'max', None, 2),
    (0, 'avg', 2, 2), (0, 'avg', None, 1)])
def test_forward_matches_reference(train, out1, pooltype, proj_pool, stride):
    link = L.InceptionBN(3, out1, 2, 4, 3, 2, pooltype, proj_pool, stride)
    _randomize_bn(link, 1)
    x = _rand((2, 3, 5, 6), dtype=numpy.float32)
    with cpuframe.using_config('train', train):
        y = link(x)
    n_pool = 3 if proj_pool is None else proj_pool
    oh, ow = (5, 6) if stride == 1 else (3, 3)
    assert y.shape == (2, out1 + 4 + 2 + n_pool, oh, ow)
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(
        y.array, _reference(link, x.astype(numpy.float64), train),
        rtol=1e-4, atol=1e-4)


def test_dtype_of_batch_normalization():
    link = L.InceptionBN(2, 1, 1, 1, 1, 1, 'max', 1, dtype=numpy.float64)
    assert link.conv1n.gamma.dtype == numpy.float64
    assert link.conv1n.avg_var.dtype == numpy.float64
    with cpuframe.using_config('dtype', numpy.float16):
        link = L.InceptionBN(2, 1, 1, 1, 1, 1, 'max', 1)
    assert link.poolpn.gamma.dtype == numpy.float16


def test_conv_init_and_lazy_in_channels():
    link = L.InceptionBN(None, 1, 1, 2, 1, 2, 'avg', 1, conv_init=0.25)
    x = _rand((1, 3, 4, 4), dtype=numpy.float32)
    with cpuframe.using_config('train', False):
        y = link(x)
    assert link.proj3.W.shape == (1, 3, 1, 1)
    assert all((p.array == numpy.float32(0.25)).all()
               for n, p in link.namedparams() if n.endswith('/W'))
    numpy.testing.assert_allclose(
        y.array, _reference(link, x.astype(numpy.float64), False),
        rtol=1e-4, atol=1e-5)


def _condition(link, x, seed):
    """Weights for a gradient check far from every relu kink: each batch
    normalization scales by 0.15 and shifts by +-(1.5..2.5), and its
    running statistics are those of ``x``'s batch, so every normalized
    value (at most 7 in magnitude for 50 samples) stays over 0.4 away from
    zero in train and test mode alike."""
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array = rng.uniform(-1, 1, p.shape)
    bns = [child for _, child in sorted(link.namedlinks(skipself=True))
           if isinstance(child, L.BatchNormalization)]
    for bn in bns:
        bn.gamma.array[...] = 0.15
        sign = numpy.where(rng.uniform(size=bn.beta.shape) < 0.25, -1., 1.)
        bn.beta.array[...] = sign * rng.uniform(1.5, 2.5, bn.beta.shape)
        bn.decay = 0.
    link(x)  # train mode: the running statistics become the batch's
    for bn in bns:
        bn.decay = 0.9
    link.cleargrads()


@pytest.mark.parametrize('train', [True, False])
@pytest.mark.parametrize('pooltype,proj_pool,stride', [
    ('avg', 2, 1), ('max', None, 2), ('max', 1, 1)])
def test_gradient(train, pooltype, proj_pool, stride):
    out1 = 1 if stride == 1 else 0
    link = L.InceptionBN(2, out1, 1, 2, 1, 1, pooltype, proj_pool, stride,
                         dtype=numpy.float64)
    rng = numpy.random.RandomState(3)
    # distinct values 0.1 apart: no ties inside a max-pooling window
    x = (rng.permutation(50).reshape(2, 1, 5, 5) * 0.1 - 2.5).repeat(2, 1)
    x[:, 1] *= -0.7
    _condition(link, x, 4)
    with cpuframe.using_config('train', train):
        gy = _rand(link(x).shape, seed=5)
        gradient_check.check_backward(
            link, x, gy, params=tuple(link.params()), atol=1e-6, rtol=1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="InceptionBN: pooltype must be "
                       "'max' or 'avg', got 'min'"):
        L.InceptionBN(3, 1, 1, 1, 1, 1, 'min', 1)
    with pytest.raises(ValueError, match='InceptionBN: .*needs stride 1'):
        L.InceptionBN(3, 1, 1, 1, 1, 1, 'max', 1, stride=2)
    with pytest.raises(ValueError, match='InceptionBN: .*proj_pool is None'):
        L.InceptionBN(3, 1, 1, 1, 1, 1, 'max')
    link = L.InceptionBN(3, 1, 1, 1, 1, 1, 'max', 1)
    with pytest.raises(ValueError, match=r'InceptionBN: expected a 4-d input'):
        link(_rand((3, 4, 4), dtype=numpy.float32))
