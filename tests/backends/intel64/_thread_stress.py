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

import cpuframe
from cpuframe import Variable
from cpuframe import functions as F
from cpuframe import links as L
from cpuframe.backends import intel64
from cpuframe.configuration import using_config


def _normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(numpy.float32)


# Each case: (name, make) where make(rng, variant) gives (fn, arrays, link):
# fn(*Variables) -> Variable; link (or None) holds parameters whose
# gradients are compared too.

def _conv(rng, v):
    c = (8, 16)[v]
    W, b = _normal(rng, c, 3, 3, 3, scale=0.3), _normal(rng, c)
    x = _normal(rng, 2 + v, 3, 12, 12)
    return (lambda x, W, b: F.convolution_2d(x, W, b, stride=1, pad=1),
            [x, W, b], None)


def _conv_relu(rng, v):
    fn, arrays, _ = _conv(rng, v)
    return (lambda *a: F.relu(fn(*a))), arrays, None


def _deconv(rng, v):
    c = (6, 10)[v]
    W, b = _normal(rng, 4, c, 3, 3, scale=0.3), _normal(rng, c)
    x = _normal(rng, 2, 4, 7 + v, 7)
    return (lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2, pad=1),
            [x, W, b], None)


def _depthwise(rng, v):
    W, b = _normal(rng, 2, 4, 3, 3, scale=0.3), _normal(rng, 8)
    x = _normal(rng, 2 + v, 4, 10, 10)
    return (lambda x, W, b: F.depthwise_convolution_2d(x, W, b, pad=1),
            [x, W, b], None)


def _linear(rng, v):
    n = (64, 96)[v]
    W, b = _normal(rng, n, 200, scale=0.1), _normal(rng, n)
    x = _normal(rng, 32, 200)
    return (lambda x, W, b: F.linear(x, W, b)), [x, W, b], None


def _max_pool(rng, v):
    x = _normal(rng, 4, 16, 12 + 2 * v, 12)
    return (lambda x: F.max_pooling_2d(x, 3, stride=2, pad=1)), [x], None


def _avg_pool(rng, v):
    x = _normal(rng, 4, 16, 12 + 2 * v, 12)
    return (lambda x: F.average_pooling_2d(x, 2)), [x], None


def _batch_norm(rng, v):
    c = (16, 24)[v]
    x = _normal(rng, 8, c, 9, 9, scale=3.0) + 1.0
    gamma, beta = _normal(rng, c) + 1.0, _normal(rng, c)
    return (lambda x, g, b: F.batch_normalization(x, g, b)), [x, gamma, beta], None


def _fixed_batch_norm(rng, v):
    c = (16, 24)[v]
    x = _normal(rng, 8, c, 9, 9)
    gamma, beta, mean = _normal(rng, c) + 1.0, _normal(rng, c), _normal(rng, c)
    var = numpy.abs(_normal(rng, c)) + 0.5
    return (lambda x, g, b: F.fixed_batch_normalization(x, g, b, mean, var),
            [x, gamma, beta], None)


def _lrn(rng, v):
    x = _normal(rng, 4, 8 + 4 * v, 6, 6)
    return (lambda x: F.local_response_normalization(x)), [x], None


def _eltwise(f):
    def make(rng, v):
        x = _normal(rng, 64, 300 + 64 * v, scale=2.0)
        return (lambda x: f(x)), [x], None
    return make


def _concat(rng, v):
    a, b = _normal(rng, 4, 8, 5, 5), _normal(rng, 4, 8 + 8 * v, 5, 5)
    return (lambda a, b: F.concat((a, b), axis=1)), [a, b], None


def _add(rng, v):
    a, b = _normal(rng, 8, 16 + v, 9, 9), _normal(rng, 8, 16 + v, 9, 9)
    return (lambda a, b: a + b), [a, b], None


def _softmax_xent(rng, v):
    x = _normal(rng, 64, 10 + v, scale=3.0)
    t = rng.integers(0, 10 + v, 64).astype(numpy.int32)
    return (lambda x: F.softmax_cross_entropy(x, t, reduce='no')), [x], None


def _lstm_cell(rng, v):
    c, x = _normal(rng, 16, 32 + 32 * v), _normal(rng, 16, 128 + 128 * v)
    return (lambda c, x: F.concat(F.lstm(c, x), axis=1)), [c, x], None


# Initializers draw from NumPy's global generator: links are made one at a
# time, so that each call gets the same weights as when it ran alone.
_init_lock = threading.Lock()


def _n_step(cls):
    def make(rng, v):
        with _init_lock:
            numpy.random.seed(int(rng.integers(1 << 30)))
            link = cls(2, 6, 8 + 4 * v, 0.0)
        xs = [_normal(rng, n, 6) for n in (5, 4, 4, 2)]

        def fn(*xs):
            out = link(None, None, list(xs)) if cls is L.NStepBiLSTM \
                else link(None, list(xs))
            return F.concat(out[-1], axis=0)
        return fn, xs, link
    return make


CASES = [
    ('convolution_2d', _conv), ('convolution_2d+relu', _conv_relu),
    ('deconvolution_2d', _deconv), ('depthwise_convolution_2d', _depthwise),
    ('linear', _linear), ('max_pooling_2d', _max_pool),
    ('average_pooling_2d', _avg_pool), ('batch_normalization', _batch_norm),
    ('fixed_batch_normalization', _fixed_batch_norm),
    ('local_response_normalization', _lrn), ('relu', _eltwise(F.relu)),
    ('elu', _eltwise(F.elu)), ('leaky_relu', _eltwise(F.leaky_relu)),
    ('sigmoid', _eltwise(F.sigmoid)), ('tanh', _eltwise(F.tanh)),
    ('concat', _concat), ('add', _add),
    ('softmax_cross_entropy', _softmax_xent), ('lstm', _lstm_cell),
    ('n_step_bilstm', _n_step(L.NStepBiLSTM)), ('n_step_gru', _n_step(L.NStepGRU)),
    ('n_step_rnn', _n_step(L.NStepRNNTanh)),
]


def run_case(make, seed, variant, where):
    """Forward and backward of one case; the results as float32 ndarrays."""
    rng = numpy.random.default_rng(seed)
    fn, arrays, link = make(rng, variant)
    with using_config('use_ideep', 'always'):
        if link is not None and where == 'device':
            link.to_intel64()
        if where == 'device':
            vs = [Variable(intel64.from_numpy(a)) for a in arrays]
        else:
            vs = [Variable(a.copy()) for a in arrays]
        y = fn(*vs)
        y.grad = _normal(numpy.random.default_rng(seed + 1), *y.shape)
        y.backward()
    out = [numpy.asarray(y.array)] + [numpy.asarray(v.grad) for v in vs]
    if link is not None:
        out += [numpy.asarray(p.grad) for _, p in sorted(link.namedparams())]
    return out


def _same(a, b):
    return all(x.shape == y.shape and x.tobytes() == y.tobytes()
               for x, y in zip(a, b)) and len(a) == len(b)


def stress_ops(n_threads, shapes, iters):
    jobs = []  # (thread, case index, seed, variant, where)
    for t in range(n_threads):
        variant = t % 2 if shapes == 'mixed' else 0
        for i in range(len(CASES)):
            for where in ('numpy', 'device'):
                jobs.append((t, i, 100 * t + i, variant, where))
    alone = {job: run_case(CASES[job[1]][1], *job[2:]) for job in jobs}
    errors = []

    def worker(t):
        mine = [job for job in jobs if job[0] == t]
        order = numpy.random.default_rng(t)
        for _ in range(iters):
            for k in order.permutation(len(mine)):
                job = mine[k]
                try:
                    got = run_case(CASES[job[1]][1], *job[2:])
                except Exception as e:  # noqa: BLE001 - reported, not hidden
                    errors.append('{} {}: {!r}'.format(CASES[job[1]][0], job, e))
                    continue
                if not _same(got, alone[job]):
                    diff = max(float(numpy.nanmax(numpy.abs(g - r))) if g.size else 0.0
                               for g, r in zip(got, alone[job]))
                    errors.append('{} {}: differs from the call made alone '
                                  '(max abs diff {})'.format(CASES[job[1]][0], job, diff))

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
            x = _normal(rng, 16, 1, 8, 8)
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
