"""``@static_graph`` on the convnet harness's models against define-by-run,
in one process: forward + softmax cross entropy + backward of the same
model, decorated (a wrapper chain whose ``forward`` is ``@static_graph``)
and not, in interleaved blocks; then one profiled step of each, reporting
the time spent in Python functions (``cProfile``'s own time of functions
defined in Python; the native kernels are built-ins and not counted).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/convnet/static_ab.py --models resnet50,googlenet \\
        --insize 64 --batch 16 --paths intel64,intel64_bf16
"""
import argparse
import cProfile
import importlib.util
import pstats
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name):
    spec = importlib.util.spec_from_file_location('static_ab_' + name,
                                                  HERE / (name + '.py'))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _python_seconds(step):
    prof = cProfile.Profile()
    prof.runcall(step)
    stats = pstats.Stats(prof)
    return sum(v[2] for (filename, _, _), v in stats.stats.items()
               if filename != '~' and not filename.startswith('<'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--models', default='resnet50,googlenet')
    parser.add_argument('--paths', default='intel64',
                        help='intel64 and/or intel64_bf16 (mixed_bf16)')
    parser.add_argument('--insize', type=int, default=64)
    parser.add_argument('--batch', type=int, default=16)
    parser.add_argument('--blocks', type=int, default=6)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent.parent))
    import numpy

    import cpuframe
    models = _load('models')
    cpuframe.global_config.use_ideep = 'always'
    for path in args.paths.split(','):
        dtype = cpuframe.mixed_bf16 if path == 'intel64_bf16' else numpy.float32
        with cpuframe.using_config('dtype', dtype):
            for name in args.models.split(','):
                _compare(cpuframe, models, name, path, args)


def _compare(cpuframe, models, name, path, args):
    import numpy
    F = cpuframe.functions
    rng = numpy.random.RandomState(0)
    shape = (args.batch, 3, args.insize, args.insize)
    x = rng.standard_normal(shape).astype(numpy.float32)
    t = rng.randint(0, 1000, size=args.batch).astype(numpy.int32)
    dev = cpuframe.get_device('@intel64')
    x = dev.send(x)

    class Static(cpuframe.Chain):
        def __init__(self, model):
            super().__init__()
            with self.init_scope():
                self.model = model

        @cpuframe.static_graph
        def forward(self, x):
            return self.model(x)

    plain = models.build(name, args.insize)
    static = Static(models.build(name, args.insize))
    static.model.copyparams(plain)
    for m in (plain, static):
        m.to_device(dev)

    def step_of(model):
        def step():
            model.cleargrads()
            F.softmax_cross_entropy(model(x), t).backward()
        return step
    steps = {'define-by-run': step_of(plain), 'static_graph': step_of(static)}
    for step in steps.values():
        for _ in range(3):       # records twice, then replays
            step()
    times = {k: [] for k in steps}
    for b in range(args.blocks):
        order = list(steps) if b % 2 == 0 else list(steps)[::-1]
        for k in order:
            t0 = time.perf_counter()
            steps[k]()
            times[k].append((time.perf_counter() - t0) * 1e3)
    py = {k: _python_seconds(s) * 1e3 for k, s in steps.items()}
    med = {k: statistics.median(v) for k, v in times.items()}
    print('{} {} batch {} insize {}: define-by-run {:.1f} ms (Python {:.1f} ms), '
          'static_graph {:.1f} ms (Python {:.1f} ms), static/define-by-run {:.3f}; '
          '{}'.format(name, path, args.batch, args.insize, med['define-by-run'],
                      py['define-by-run'], med['static_graph'], py['static_graph'],
                      med['static_graph'] / med['define-by-run'],
                      static.schedule_manager), flush=True)


if __name__ == '__main__':
    main()
