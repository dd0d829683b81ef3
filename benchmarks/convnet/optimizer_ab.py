"""The optimizer update of a convnet harness model, with the native one-pass
kernels of SGD and MomentumSGD (csrc/optimizer.cpp) and with their NumPy
code, in one process: a training step (forward, softmax cross entropy,
backward, update) in alternating pairs, native then NumPy, so that both see
the same machine. Prints the step's and the update's time, fastest and
median, per side.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/convnet/optimizer_ab.py --model resnet50 \\
        --insize 64 --batch 16 --device @intel64 --optimizer MomentumSGD
"""
import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _models():
    spec = importlib.util.spec_from_file_location('optimizer_ab_models',
                                                  HERE / 'models.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(model_name, insize, batch, device, optimizer_name, rounds,
            warmup=2):
    """{'native': (step seconds, ...), 'numpy': ...} and the same for the
    update alone: ``rounds`` pairs of steps per side."""
    import cpuframe
    models = _models()
    saved = cpuframe.global_config.use_ideep
    cpuframe.global_config.use_ideep = 'never' if device == '@numpy' \
        else 'always'
    try:
        return _alternate(cpuframe, models, model_name, insize, batch,
                          device, optimizer_name, rounds, warmup)
    finally:
        # (a caller in the same process, e.g. a test, keeps its setting)
        cpuframe.global_config.use_ideep = saved


def _alternate(cpuframe, models, model_name, insize, batch, device,
               optimizer_name, rounds, warmup):
    import numpy

    from cpuframe.optimizers import momentum_sgd, sgd
    model = models.build(model_name, insize)
    model.to_device(device)
    rng = numpy.random.default_rng(0)
    x = cpuframe.get_device(device).send(
        rng.standard_normal((batch, 3, insize, insize)).astype(numpy.float32))
    t = rng.integers(0, 1000, batch).astype(numpy.int32)
    optimizer = getattr(cpuframe.optimizers, optimizer_name)(lr=0.001)
    optimizer.setup(model)

    def step():
        model.cleargrads()
        loss = cpuframe.functions.softmax_cross_entropy(model(x), t)
        loss.backward()
        t0 = time.perf_counter()
        optimizer.update()
        return time.perf_counter() - t0

    for _ in range(warmup):
        step()
    steps = {'native': [], 'numpy': []}
    updates = {'native': [], 'numpy': []}
    try:
        for _ in range(rounds):
            for side in ('native', 'numpy'):
                kernel = [] if side == 'native' else [None]
                momentum_sgd._kernel[:] = kernel
                sgd._kernel[:] = list(kernel)
                for _ in range(2):
                    t0 = time.perf_counter()
                    updates[side].append(step())
                    steps[side].append(time.perf_counter() - t0)
    finally:
        momentum_sgd._kernel[:] = []
        sgd._kernel[:] = []
    return steps, updates


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--model', default='resnet50')
    parser.add_argument('--insize', type=int, default=64)
    parser.add_argument('--batch', type=int, default=16)
    parser.add_argument('--device', default='@intel64',
                        help='@intel64 or @numpy')
    parser.add_argument('--optimizer', default='MomentumSGD',
                        choices=('MomentumSGD', 'SGD'))
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args(argv)
    steps, updates = measure(args.model, args.insize, args.batch, args.device,
                             args.optimizer, args.rounds)
    print('{} {}x{} batch {} on {}, {}: ms, fastest / median of {}'.format(
        args.model, args.insize, args.insize, args.batch, args.device,
        args.optimizer, 2 * args.rounds))
    for side in ('native', 'numpy'):
        print('{:7s} step {:8.1f} / {:8.1f}   update {:7.1f} / {:7.1f}'.format(
            side, min(steps[side]) * 1e3, statistics.median(steps[side]) * 1e3,
            min(updates[side]) * 1e3,
            statistics.median(updates[side]) * 1e3))
    return steps, updates


if __name__ == '__main__':
    # (run as a script: the checkout's cpuframe where it is not installed;
    # a caller's own sys.path is left alone)
    sys.path.insert(0, str(HERE.parent.parent))
    main()
