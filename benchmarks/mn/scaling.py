"""Weak scaling of data-parallel training with cpuframe.mn.

    python benchmarks/mn/scaling.py --models resnet50,alexnet --batch 16

The same model (from the convnet harness, on the intel64 path) trains with
``batch`` images per rank, as 1 rank x 1 thread and as 2 ranks x 1 thread
(each run is ``mpiexec -n N python scaling.py --worker``, with
``OMP_NUM_THREADS=1`` and the environment's OpenBLAS slow-down variables
unset).  Reported: images per second over all ranks, weak-scaling
efficiency = throughput(2) / (2 x throughput(1)), and the time per step
spent averaging gradients (it is not hidden behind backward: the reduction
starts after backward ends).  ``--launcher`` runs the ranks through another
command (the multi-host measurement in README.md uses it).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
UNFAIR_BLAS_VARS = ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')


class _CommTimer:
    """Adds up the time a communicator spends starting and finishing the
    gradient reduction (what the multi-node optimizer calls)."""

    def __init__(self, comm):
        self.total = 0.0
        self._comm = comm
        start_async = comm._multi_node_mean_grad_async
        timer = self

        class Pending:
            def __init__(self, pending):
                self._pending = pending

            def wait(self):
                start = time.perf_counter()
                self._pending.wait()
                timer.total += time.perf_counter() - start

        def timed(*args, **kwargs):
            start = time.perf_counter()
            pending = start_async(*args, **kwargs)
            timer.total += time.perf_counter() - start
            return Pending(pending)

        comm._multi_node_mean_grad_async = timed

        # The overlapped path: starting the session, handing it each final
        # gradient (packing, starting buckets, driving progress: inside
        # backward, on its critical path) and finishing it (the wait for
        # what backward did not hide) all count.
        begin = comm._begin_overlapped_mean_grad

        class Session:
            def __init__(self, session):
                self._session = session

            def __getattr__(self, name):
                return getattr(self._session, name)

            def __setattr__(self, name, value):
                if name == '_session':
                    object.__setattr__(self, name, value)
                else:
                    setattr(self._session, name, value)

            def ready(self, param):
                start = time.perf_counter()
                self._session.ready(param)
                timer.total += time.perf_counter() - start

            def finish(self):
                start = time.perf_counter()
                self._session.finish()
                timer.total += time.perf_counter() - start
                timer.tail += time.perf_counter() - start

        def timed_begin(*args, **kwargs):
            start = time.perf_counter()
            session = begin(*args, **kwargs)
            timer.total += time.perf_counter() - start
            return None if session is None else Session(session)

        comm._begin_overlapped_mean_grad = timed_begin
        self.tail = 0.0

    def remove(self):
        del self._comm._multi_node_mean_grad_async
        del self._comm._begin_overlapped_mean_grad


def worker(args):
    sys.path.insert(0, str(REPO / 'benchmarks' / 'convnet'))
    import models

    import cpuframe
    import cpuframe.functions as F
    from cpuframe import mn, optimizers

    comm = mn.create_communicator('naive')
    cpuframe.global_config.use_ideep = 'always'
    results = {}
    for name in args.models.split(','):
        model = models.build(name)
        model.to_intel64()
        device = cpuframe.get_device('@intel64')
        rng = numpy.random.RandomState(comm.rank)
        x = device.send(rng.standard_normal(
            (args.batch, 3, model.insize, model.insize)).astype(numpy.float32))
        t = rng.randint(0, 1000, args.batch).astype(numpy.int32)
        opt = mn.create_multi_node_optimizer(
            optimizers.MomentumSGD(lr=0.001), comm,
            overlap=args.overlap == 'on').setup(model)
        timer = _CommTimer(comm)

        def lossfun(model=model, x=x, t=t):
            return F.softmax_cross_entropy(model(x), t)

        steps, comms, tails = [], [], []
        opt.update(lossfun)     # the broadcast step
        for i in range(args.warmup + args.iters):
            comm.mpi_comm.Barrier()
            timer.total = timer.tail = 0.0
            start = time.perf_counter()
            opt.update(lossfun)
            elapsed = time.perf_counter() - start
            if i >= args.warmup:
                steps.append(elapsed)
                comms.append(timer.total)
                tails.append(timer.tail)
        timer.remove()
        step = comm.mpi_comm.allreduce(statistics.median(steps),
                                       op=comm._MPI.MAX)
        exposed = comm.mpi_comm.allreduce(statistics.median(comms),
                                          op=comm._MPI.MAX)
        tail = comm.mpi_comm.allreduce(statistics.median(tails),
                                       op=comm._MPI.MAX)
        results[name] = {'ranks': comm.size, 'step_s': step,
                         'comm_s': exposed, 'wait_after_backward_s': tail,
                         'images_per_s': comm.size * args.batch / step}
    if comm.rank == 0:
        print('RESULT ' + json.dumps(results), flush=True)


def launch(n, args):
    env = dict(os.environ)
    for var in UNFAIR_BLAS_VARS:
        env.pop(var, None)
    env['OMP_NUM_THREADS'] = '1'
    command = list(args.launcher.split()) if args.launcher else [
        str(Path(sys.executable).with_name('mpiexec'))]
    command += ['-n', str(n), sys.executable, str(Path(__file__).resolve()),
                '--worker', '--overlap', args.overlap, '--models',
                args.models, '--batch',
                str(args.batch), '--iters', str(args.iters), '--warmup',
                str(args.warmup)]
    out = subprocess.run(command, env=env, capture_output=True, text=True,
                         timeout=args.timeout)
    for line in out.stdout.splitlines():
        if line.startswith('RESULT '):
            return json.loads(line[len('RESULT '):])
    raise RuntimeError('scaling: {} ranks failed (exit {}):\n{}{}'.format(
        n, out.returncode, out.stdout[-2000:], out.stderr[-4000:]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--models', default='resnet50,alexnet')
    parser.add_argument('--overlap', choices=('on', 'off'), default='off',
                        help='reduce gradient buckets while backward runs '
                             '(on) or after it (off, the default)')
    parser.add_argument('--batch', type=int, default=16)
    parser.add_argument('--iters', type=int, default=5)
    parser.add_argument('--warmup', type=int, default=1)
    parser.add_argument('--ranks', default='1,2')
    parser.add_argument('--launcher', help='mpiexec command line to use')
    parser.add_argument('--timeout', type=int, default=1800)
    parser.add_argument('--json')
    parser.add_argument('--worker', action='store_true')
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    runs = {int(n): launch(int(n), args) for n in args.ranks.split(',')}
    print('batch {} per rank, 1 thread per rank, intel64, overlap {}; '
          'OpenBLAS slow-down variables unset'.format(args.batch,
                                                      args.overlap))
    print('{:<9} {:>5} {:>10} {:>10} {:>12} {:>11} {:>13}'.format(
        'model', 'ranks', 'step', 'img/s', 'efficiency', 'comm/step',
        'wait/step'))
    base = min(runs)
    for name in args.models.split(','):
        one = runs[base][name]['images_per_s'] / base
        for n, result in sorted(runs.items()):
            r = result[name]
            efficiency = r['images_per_s'] / (n * one)
            print('{:<9} {:>5} {:>8.2f} s {:>10.2f} {:>12.3f} {:>8.1f} ms '
                  '{:>10.1f} ms'.format(
                      name, n, r['step_s'], r['images_per_s'], efficiency,
                      1e3 * r['comm_s'],
                      1e3 * r.get('wait_after_backward_s', r['comm_s'])))
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))


if __name__ == '__main__':
    main()
