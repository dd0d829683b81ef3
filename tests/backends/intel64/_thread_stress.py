"""Every intel64 route called from several threads at once (issue 11).

Run as a script in a subprocess by test_threads.py, so that a hang inside
native code fails that test (the subprocess is killed at its timeout)
instead of stalling the suite:

    python _thread_stress.py ops THREADS SHAPES ITERS [CACHE_CAPACITY]
    python _thread_stress.py train THREADS STEPS

``ops``: each of THREADS threads calls every routed op (forward and
backward, NumPy inputs and device inputs, 'always') ITERS times in its own
shuffled order on its own data; every result must equal, bit for bit, the
same call made alone before the threads started. SHAPES is 'same' (every
thread the same shapes: shared cached primitives) or 'mixed' (thread i uses
shape variant i % 2). ``train``: THREADS small convnets trained at once on
'@intel64', each on its own data, must end with the parameters they reach
when trained one after the other.

Prints one line per mismatch and exits 1 if there was any.
"""
import sys
import threading

import numpy
from testhelpers.routed_cases import CASES, normal, run_case

import cpuframe
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64
from cpuframe.configuration import using_config


def _same(a, b):
    return all(x.shape == y.shape and x.tobytes() == y.tobytes()
               for x, y in zip(a, b)) and len(a) == len(b)


def stress_ops(n_threads, shapes, iters):
    jobs = []  # (thread, case index, seed, variant, where)
    for t in range(n_threads):
        variant = t % 2 if shapes == 'mixed' else 0
        for i, name in enumerate(CASES):
            for where in ('numpy', 'device'):
                jobs.append((t, name, 100 * t + i, variant, where))
    alone = {job: run_case(CASES[job[1]], *job[2:]) for job in jobs}
    errors = []

    def worker(t):
        mine = [job for job in jobs if job[0] == t]
        order = numpy.random.default_rng(t)
        for _ in range(iters):
            for k in order.permutation(len(mine)):
                job = mine[k]
                try:
                    got = run_case(CASES[job[1]], *job[2:])
                except Exception as e:  # noqa: BLE001 - reported, not hidden
                    errors.append('{} {}: {!r}'.format(job[1], job, e))
                    continue
                if not _same(got, alone[job]):
                    diff = max(float(numpy.nanmax(numpy.abs(g - r))) if g.size else 0.0
                               for g, r in zip(got, alone[job]))
                    errors.append('{} {}: differs from the call made alone '
                                  '(max abs diff {})'.format(job[1], job, diff))

    run_threads(worker, n_threads)
    return errors


def _convnet(seed):
    numpy.random.seed(seed)
    model = L.Classifier(cpuframe.Sequential(
        L.Convolution2D(1, 8, 3, pad=1), L.BatchNormalization(8), F.relu,
        lambda h: F.max_pooling_2d(h, 2), L.Linear(8 * 4 * 4, 10)))
    model.to_device('@intel64')
    return model


def _train(model, seed, steps):
    opt = cpuframe.optimizers.MomentumSGD(lr=0.05).setup(model)
    rng = numpy.random.default_rng(seed)
    with using_config('use_ideep', 'auto'):
        for _ in range(steps):
            x = normal(rng, 16, 1, 8, 8)
            t = rng.integers(0, 10, 16).astype(numpy.int32)
            opt.update(model, intel64.from_numpy(x), t)
    return {name: numpy.asarray(p.array) for name, p in model.namedparams()}


def stress_train(n_threads, steps):
    alone = [_train(_convnet(seed), seed, steps) for seed in range(n_threads)]
    models = [_convnet(seed) for seed in range(n_threads)]
    together = [None] * n_threads

    def worker(t):
        together[t] = _train(models[t], t, steps)

    run_threads(worker, n_threads)
    errors = []
    for t in range(n_threads):
        if together[t] is None:
            errors.append('model {} did not finish training'.format(t))
            continue
        for name, value in alone[t].items():
            if value.tobytes() != together[t][name].tobytes():
                errors.append('model {}: {} differs from training alone (max abs '
                              'diff {})'.format(t, name, float(numpy.nanmax(
                                  numpy.abs(value - together[t][name])))))
    return errors


def run_threads(worker, n_threads):
    failures = []

    def guarded(t):
        try:
            worker(t)
        except BaseException as e:  # noqa: BLE001
            failures.append('thread {}: {!r}'.format(t, e))

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if failures:
        raise RuntimeError('; '.join(failures))


def main(argv):
    if argv[0] == 'ops':
        if len(argv) > 4:
            intel64.native().set_primitive_cache_capacity(int(argv[4]))
        errors = stress_ops(int(argv[1]), argv[2], int(argv[3]))
    else:
        errors = stress_train(int(argv[1]), int(argv[2]))
    for line in errors[:40]:
        print(line)
    print('{} mismatches'.format(len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
