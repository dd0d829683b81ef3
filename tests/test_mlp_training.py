"""End to end: a 2-layer MLP built from core functions learns a problem."""
import numpy

import cpuframe.functions as F
from cpuframe import Parameter


def _mlp_params(rng, n_in, n_hidden, n_out):
    w1 = Parameter(rng.normal(0, 1 / numpy.sqrt(n_in), (n_in, n_hidden))
                   .astype(numpy.float32))
    b1 = Parameter(numpy.zeros(n_hidden, numpy.float32))
    w2 = Parameter(rng.normal(0, 1 / numpy.sqrt(n_hidden), (n_hidden, n_out))
                   .astype(numpy.float32))
    b2 = Parameter(numpy.zeros(n_out, numpy.float32))
    return [w1, b1, w2, b2]


def _forward(params, x):
    w1, b1, w2, b2 = params
    h = F.tanh(F.matmul(x, w1) + b1)
    return F.matmul(h, w2) + b2


def _train(params, x, t, steps, lr, momentum=0.9):
    velocity = [numpy.zeros_like(p.array) for p in params]
    losses = []
    for _ in range(steps):
        for p in params:
            p.cleargrad()
        loss = F.mean((_forward(params, x) - t) ** 2)
        loss.backward()
        losses.append(float(loss.array))
        for p, v in zip(params, velocity):
            v *= momentum
            v -= lr * p.grad
            p.array += v
    return losses


def test_mlp_fits_xor_like_classes():
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (256, 2)).astype(numpy.float32)
    labels = (x[:, 0] * x[:, 1] > 0)
    t = numpy.where(labels, 1.0, -1.0).astype(numpy.float32)[:, None]
    params = _mlp_params(rng, 2, 16, 1)
    losses = _train(params, x, t, steps=400, lr=0.05)
    assert losses[-1] < 0.15 * losses[0], (losses[0], losses[-1])
    pred = _forward(params, x).array[:, 0] > 0
    accuracy = float((pred == labels).mean())
    assert accuracy >= 0.95, accuracy


def test_mlp_regression_loss_falls():
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, (128, 1)).astype(numpy.float32)
    t = numpy.sin(3 * x).astype(numpy.float32)
    params = _mlp_params(rng, 1, 32, 1)
    losses = _train(params, x, t, steps=500, lr=0.05)
    assert losses[-1] < 0.01, losses[-1]
