"""Batch sizes that change every iteration keep their primitives (issue 11).

A convnet trained with every batch size from 1 to 64 needs ~1,400 cached
primitives; with the old bound of 1,024 each iteration evicted and
re-created (JIT) several of them, for as long as training ran.
"""
import os
import subprocess
import sys

import numpy

import cpuframe
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64


def _train_step(model, opt, rng, batch):
    x = rng.standard_normal((batch, 3, 16, 16)).astype(numpy.float32)
    t = rng.integers(0, 10, batch).astype(numpy.int32)
    opt.update(model, intel64.from_numpy(x), t)


def test_every_batch_size_from_1_to_64_stays_cached():
    dnnl = intel64.native()
    dnnl.set_primitive_cache_capacity(dnnl.default_primitive_cache_capacity)
    numpy.random.seed(0)
    model = L.Classifier(cpuframe.Sequential(
        L.Convolution2D(3, 16, 3, pad=1), L.BatchNormalization(16), F.relu,
        lambda h: F.max_pooling_2d(h, 2),
        L.Convolution2D(16, 32, 3, pad=1), L.BatchNormalization(32), F.relu,
        lambda h: F.max_pooling_2d(h, 2),
        L.Linear(32 * 4 * 4, 64), F.relu, L.Linear(64, 10)))
    model.to_device('@intel64')
    opt = cpuframe.optimizers.MomentumSGD(lr=0.01).setup(model)
    rng = numpy.random.default_rng(0)
    for batch in range(1, 65):
        _train_step(model, opt, rng, batch)
    before = dnnl.primitive_cache_stats()
    for batch in rng.permutation(numpy.arange(1, 65)):
        _train_step(model, opt, rng, int(batch))
    after = dnnl.primitive_cache_stats()
    assert after['creations'] == before['creations']
    assert after['evictions'] == before['evictions']


def test_capacity_from_the_environment(tmp_path):
    code = ('from cpuframe.backends import intel64; '
            'print(intel64.native().primitive_cache_stats()["capacity"])')
    env = dict(os.environ, CPUFRAME_PRIMITIVE_CACHE_CAPACITY='123')
    # Outside the checkout, so the installed package (with its native
    # module) is imported, not the source tree.
    out = subprocess.run([sys.executable, '-c', code], env=env, text=True,
                         capture_output=True, timeout=120, cwd=str(tmp_path))
    assert out.stdout.split()[-1] == '123', out.stderr
