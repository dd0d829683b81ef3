"""Training with a batch size that changes every iteration (issue 11).

Every distinct batch size needs its own oneDNN primitives (convolution,
batch normalization, pooling, linear, their backwards, reorders); when the
sizes a run uses need more primitives than the cache holds, the cache
churns: primitives are evicted and re-created (JIT) every iteration.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/varying_batch/run.py [--iters 600] [--capacity N]

Prints, for a fixed batch and for random batch sizes 1..64: ms per
iteration (after a warm-up pass over every size), primitives created and
evicted during the timed iterations, the cache size, and the process RSS.
"""
import argparse
import resource
import time

import numpy

import cpuframe
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64


def model():
    numpy.random.seed(0)
    m = L.Classifier(cpuframe.Sequential(
        L.Convolution2D(3, 16, 3, pad=1), L.BatchNormalization(16), F.relu,
        lambda h: F.max_pooling_2d(h, 2),
        L.Convolution2D(16, 32, 3, pad=1), L.BatchNormalization(32), F.relu,
        lambda h: F.max_pooling_2d(h, 2),
        L.Linear(32 * 4 * 4, 64), F.relu, L.Linear(64, 10)))
    m.to_device('@intel64')
    return m


def rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(sizes, iters, rng):
    m = model()
    opt = cpuframe.optimizers.MomentumSGD(lr=0.01).setup(m)

    def step(b):
        x = rng.standard_normal((b, 3, 16, 16)).astype(numpy.float32)
        t = rng.integers(0, 10, b).astype(numpy.int32)
        opt.update(m, intel64.from_numpy(x), t)

    for b in sorted(set(sizes)):  # warm-up: every size once
        step(b)
    before = intel64.native().primitive_cache_stats()
    start = time.perf_counter()
    for i in range(iters):
        step(sizes[i % len(sizes)])
    ms = (time.perf_counter() - start) * 1e3 / iters
    after = intel64.native().primitive_cache_stats()
    return ms, after['creations'] - before['creations'], \
        after['evictions'] - before['evictions'], after['size']


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--iters', type=int, default=600)
    p.add_argument('--capacity', type=int, default=None)
    args = p.parse_args()
    if args.capacity is not None:
        intel64.native().set_primitive_cache_capacity(args.capacity)
    rng = numpy.random.default_rng(0)
    cap = intel64.native().primitive_cache_stats()['capacity']
    print('primitive cache capacity {}'.format(cap))
    mean = 32
    random_sizes = list(rng.integers(1, 65, args.iters))
    for name, sizes in (('fixed batch {}'.format(mean), [mean]),
                        ('random batch 1..64', random_sizes)):
        ms, made, evicted, size = run(sizes, args.iters, rng)
        print('{:20s} {:7.2f} ms/iter  created {:6d}  evicted {:6d}  cached {:5d}  '
              'RSS {:6.1f} MB'.format(name, ms, made, evicted, size, rss_mb()))


if __name__ == '__main__':
    main()
