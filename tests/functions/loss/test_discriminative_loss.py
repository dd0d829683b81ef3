"""F.discriminative_margin_based_clustering_loss against loops."""
import math

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.loss import discriminative_loss as module


def _norm(v, p):
    return sum(abs(a) for a in v) if p == 1 else math.sqrt(
        sum(a * a for a in v))


def _reference(emb, labels, dv, dd, K, p, alpha, beta, gamma):
    """Pixel by pixel, instance by instance, in float64."""
    B, D, H, W = emb.shape
    mu = numpy.zeros((B, K, D))
    total = [0] * K
    for b in range(B):
        for c in range(K):
            pix = [(h, w) for h in range(H) for w in range(W)
                   if labels[b, h, w] == c + 1]
            total[c] += len(pix)
            for h, w in pix:
                mu[b, c] += emb[b, :, h, w].astype(numpy.float64)
            if pix:
                mu[b, c] /= len(pix)
    l_var = 0.0
    for c in range(K):
        acc = 0.0
        for b in range(B):
            for h in range(H):
                for w in range(W):
                    if labels[b, h, w] == c + 1:
                        d = _norm(mu[b, c] - emb[b, :, h, w], p)
                        acc += max(d - dv, 0.0) ** 2
        l_var += acc / max(total[c], 1)
    l_var /= K
    l_dist, pairs = 0.0, 0
    for ca in range(K):
        for cb in range(ca + 1, K):
            pairs += 1
            for b in range(B):
                d = _norm(mu[b, ca] - mu[b, cb], p)
                l_dist += max(2 * dd - d, 0.0) ** 2
    l_dist /= max(pairs * B, 1)
    l_reg = sum(_norm(mu[:, c].ravel(), p) for c in range(K)) / (K * B)
    return alpha * l_var, beta * l_dist, gamma * l_reg


def _data(B, K, H=3, W=4, seed=0, dtype=numpy.float64, labels_max=None):
    rng = numpy.random.RandomState(seed)
    emb = rng.randn(B, K, H, W).astype(dtype)
    top = K if labels_max is None else labels_max
    labels = rng.randint(0, top + 1, (B, H, W)).astype(numpy.int32)
    return emb, labels


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32,
                                   numpy.float64])
@pytest.mark.parametrize('norm', [1, 2])
@pytest.mark.parametrize('B,K', [(1, 3), (3, 3), (2, 4), (4, 1)])
def test_terms_against_loops(dtype, norm, B, K):
    emb, labels = _data(B, K, dtype=dtype)
    args = (0.5, 1.5, K, norm, 0.7, 1.3, 0.01)
    terms = F.discriminative_margin_based_clustering_loss(emb, labels,
                                                          *args)
    assert isinstance(terms, tuple) and len(terms) == 3
    expected = _reference(emb, labels, *args)
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    for got, want in zip(terms, expected):
        assert isinstance(got, cpuframe.Variable)
        assert got.shape == () and got.dtype == dtype
        assert float(got.array) == pytest.approx(want, rel=tol, abs=tol)


def test_absent_instances_and_other_labels():
    # instance 2 of 3 never occurs; label 7 is ignored
    emb, labels = _data(2, 3, seed=4)
    labels[labels == 2] = 7
    args = (0.2, 1.0, 3, 2, 1.0, 1.0, 0.001)
    for got, want in zip(
            F.discriminative_margin_based_clustering_loss(emb, labels, *args),
            _reference(emb, labels, *args)):
        assert float(got.array) == pytest.approx(want, rel=1e-10)


def test_class_form_and_defaults():
    loss = module.DiscriminativeMarginBasedClusteringLoss()
    assert (loss.delta_v, loss.delta_d, loss.max_embedding_dim, loss.norm,
            loss.alpha, loss.beta, loss.gamma) == (0.5, 1.5, 10, 1, 1.0,
                                                   1.0, 0.001)
    emb, labels = _data(2, 10, H=2, W=2, seed=5)
    for got, want in zip(loss(emb, labels),
                         _reference(emb, labels, 0.5, 1.5, 10, 1, 1.0, 1.0,
                                    0.001)):
        assert float(got.array) == pytest.approx(want, rel=1e-10)


def test_separated_clusters_have_no_pull_and_no_push():
    # two tight, far apart instances: every term but the regularizer is 0
    emb = numpy.zeros((1, 2, 2, 2))
    emb[0, :, 0, :] = [[5.0, 5.1], [0.0, 0.0]]
    emb[0, :, 1, :] = [[-5.0, -5.1], [0.0, 0.0]]
    labels = numpy.array([[[1, 1], [2, 2]]], numpy.int32)
    l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
        emb, labels, 0.5, 1.5, 2)
    assert float(l_var.array) == 0 and float(l_dist.array) == 0
    assert float(l_reg.array) == pytest.approx(0.001 * 10.1 / 2)


@pytest.mark.parametrize('norm', [1, 2])
@pytest.mark.parametrize('which', [0, 1, 2])
def test_gradients(norm, which):
    emb, labels = _data(2, 3, H=2, W=3, seed=6, labels_max=3)
    # with these margins every term is nonzero for this data
    gy = numpy.array(1.7)

    def f(e):
        return F.discriminative_margin_based_clustering_loss(
            e, labels, 0.3, 1.2, 3, norm)[which]

    gradient_check.check_backward(f, (emb,), gy, eps=1e-5, atol=1e-6,
                                  rtol=1e-5)
    gradient_check.check_double_backward(f, (emb,), gy,
                                         (numpy.random.RandomState(7).randn(
                                             *emb.shape),),
                                         eps=1e-5, atol=1e-5, rtol=1e-4)


def test_l2_gradient_is_finite_with_absent_instances():
    emb, labels = _data(2, 4, seed=8, labels_max=1)  # instances 2..4 absent
    x = cpuframe.Variable(emb)
    terms = F.discriminative_margin_based_clustering_loss(x, labels, 0.5,
                                                          1.5, 4, norm=2)
    F.sum(F.stack(terms)).backward()
    assert numpy.isfinite(x.grad).all()


def test_training_separates_instances():
    # embeddings as free parameters: the loss pulls each instance together
    # and pushes the means 2 delta_d apart
    rng = numpy.random.RandomState(0)
    labels = numpy.array([[[1, 1, 2], [2, 3, 3]]], numpy.int32)
    emb = cpuframe.Parameter(rng.randn(1, 3, 2, 3) * 0.1)
    opt = cpuframe.optimizers.Adam(0.05)
    link = cpuframe.Link()
    with link.init_scope():
        link.emb = emb
    opt.setup(link)
    for _ in range(300):
        terms = F.discriminative_margin_based_clustering_loss(
            emb, labels, 0.1, 1.0, 3, norm=2, gamma=0)
        link.cleargrads()
        F.sum(F.stack(terms)).backward()
        opt.update()
    e = emb.array[0].reshape(3, -1)
    lab = labels.ravel()
    means = [e[:, lab == c].mean(axis=1) for c in (1, 2, 3)]
    for c in range(3):
        assert numpy.abs(e[:, lab == c + 1] - means[c][:, None]).max() < 0.2
        for d in range(c + 1, 3):
            assert numpy.linalg.norm(means[c] - means[d]) > 1.9


def test_errors():
    emb, labels = _data(2, 3)
    f = F.discriminative_margin_based_clustering_loss
    with pytest.raises(ValueError, match='max_embedding_dim=4'):
        f(emb, labels, 0.5, 1.5, 4)
    with pytest.raises(ValueError, match=r'labels of shape \(2, 3, 4\)'):
        f(emb, labels[:1], 0.5, 1.5, 3)
    with pytest.raises(ValueError, match='integer labels'):
        f(emb, labels.astype(numpy.float32), 0.5, 1.5, 3)
    with pytest.raises(ValueError, match='norm can only be 1 or 2'):
        f(emb, labels, 0.5, 1.5, 3, norm=3)
    with pytest.raises(ValueError, match='max_embedding_dim as a positive'):
        module.DiscriminativeMarginBasedClusteringLoss(max_embedding_dim=0)
