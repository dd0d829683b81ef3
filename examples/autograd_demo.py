"""The foundation's demo: runtime info, the native module's ReLU, and an MLP trained
with cpuframe's autograd.

    python examples/autograd_demo.py

Prints what cpuframe runs on, checks the native ReLU (forward and gradient) against
NumPy, then trains a 2-layer MLP on a synthetic XOR-like problem with plain
momentum SGD and prints its loss and accuracy.
"""
import argparse
import time

import numpy

import cpuframe
import cpuframe.functions as F
from cpuframe import Parameter, _native


def relu_through_onednn():
    dnnl = _native.load()
    if dnnl is None:
        print('native ReLU: skipped ({})'.format(_native.load_error()))
        return
    x = numpy.random.RandomState(0).standard_normal((64, 256)).astype(numpy.float32)
    y = dnnl.relu(x).to_numpy()
    gx = dnnl.relu_grad(y, numpy.ones_like(x)).to_numpy()
    ok = numpy.array_equal(y, numpy.maximum(x, 0)) and \
        numpy.array_equal(gx, (x > 0).astype(numpy.float32))
    print('native ReLU forward/backward matches NumPy: {}'.format(ok))
    if not ok:
        raise SystemExit(1)


def train_mlp(steps, hidden, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-1, 1, (512, 2)).astype(numpy.float32)
    labels = x[:, 0] * x[:, 1] > 0
    t = numpy.where(labels, 1.0, -1.0).astype(numpy.float32)[:, None]
    params = [
        Parameter(rng.normal(0, 0.7, (2, hidden)).astype(numpy.float32)),
        Parameter(numpy.zeros(hidden, numpy.float32)),
        Parameter(rng.normal(0, 1 / numpy.sqrt(hidden), (hidden, 1))
                  .astype(numpy.float32)),
        Parameter(numpy.zeros(1, numpy.float32)),
    ]
    velocity = [numpy.zeros_like(p.array) for p in params]

    def predict(x):
        w1, b1, w2, b2 = params
        return F.matmul(F.tanh(F.matmul(x, w1) + b1), w2) + b2

    start = time.perf_counter()
    for step in range(1, steps + 1):
        for p in params:
            p.cleargrad()
        loss = F.mean((predict(x) - t) ** 2)
        loss.backward()
        for p, v in zip(params, velocity):
            v *= 0.9
            v -= 0.05 * p.grad
            p.array += v
        if step % (steps // 5) == 0 or step == 1:
            print('step {:4d}  loss {:.4f}'.format(step, float(loss.array)))
    with cpuframe.no_backprop_mode():
        accuracy = float(((predict(x).array[:, 0] > 0) == labels).mean())
    print('accuracy {:.3f}  ({:.2f} s)'.format(
        accuracy, time.perf_counter() - start))
    return accuracy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=500)
    parser.add_argument('--hidden', type=int, default=16)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    cpuframe.print_runtime_info()
    relu_through_onednn()
    accuracy = train_mlp(args.steps, args.hidden, args.seed)
    if accuracy < 0.9:
        raise SystemExit('training did not converge (accuracy {:.3f})'.format(
            accuracy))


if __name__ == '__main__':
    main()
