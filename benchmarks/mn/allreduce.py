"""Gradient averaging throughput: cpuframe.mn against raw MPI.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 \\
        mpiexec -n 2 python benchmarks/mn/allreduce.py --iters 20

For each parameter set (the gradients of ResNet-50 and AlexNet from the
convnet harness, float32), on every rank, the time of:

- ``mean_grad``: ``communicator.multi_node_mean_grad(model)`` (pack into
  buckets, non-blocking allreduce, unpack scaled by 1/size);
- ``in optimizer``: the same inside ``create_multi_node_optimizer``'s
  ``update(lossfun)``, where backward already produced the gradients
  divided by the number of ranks, so no scaling pass is left;
- ``raw MPI``: one ``mpi4py`` ``Allreduce`` (in place) on a flat float32
  buffer of the same number of bytes - the floor nothing can beat without
  compressing;
- ``per-parameter``: one ``Allreduce`` per parameter (what ChainerMN's
  'naive' communicator does);
- ``ChainerMN naive``: ChainerMN's own communicator on the same cpuframe
  model, when ChainerMN is importable (``pip install --no-deps`` of the
  ``chainermn`` package from Chainer 7.8.1's sdist; see
  examples/ecosystem); skipped with the reason otherwise.

Each timing is the median over ``--iters`` runs after ``--warmup``, with a
barrier before each run.  Rank 0 prints the table (and ``--json``).
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'benchmarks' / 'convnet'))

import models  # noqa: E402

from cpuframe import mn  # noqa: E402


def _parameter_set(name):
    model = models.build(name)
    rng = numpy.random.RandomState(0)
    for p in model.params():
        p.grad = rng.standard_normal(p.shape).astype(numpy.float32)
    return model


def _timed(comm, fn, iters, warmup):
    times = []
    for i in range(warmup + iters):
        comm.mpi_comm.Barrier()
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        if i >= warmup:
            times.append(elapsed)
    # The slowest rank decides a collective's time.
    return comm.mpi_comm.allreduce(statistics.median(times),
                                   op=comm._MPI.MAX)


def _chainermn_naive(model):
    """ChainerMN's 'naive' communicator, on this cpuframe model, or why not."""
    os.environ['CPUFRAME_KEEP_CHAINERMN'] = '1'
    from cpuframe import compat
    compat.install()
    try:
        import chainermn
    except ImportError as error:
        return None, 'ChainerMN not importable ({})'.format(
            str(error).splitlines()[0])
    comm = chainermn.create_communicator('naive')
    return (lambda: comm.multi_node_mean_grad(model)), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--models', default='resnet50,alexnet')
    parser.add_argument('--iters', type=int, default=20)
    parser.add_argument('--warmup', type=int, default=3)
    parser.add_argument('--json')
    args = parser.parse_args()

    comm = mn.create_communicator('naive')
    MPI = comm._MPI
    rows = []
    for name in args.models.split(','):
        model = _parameter_set(name)
        params = list(model.params())
        count = sum(p.size for p in params)
        flat = numpy.random.RandomState(1).standard_normal(count).astype(
            numpy.float32)

        def raw(flat=flat):
            comm.mpi_comm.Allreduce(MPI.IN_PLACE, flat, op=MPI.SUM)

        def per_parameter(params=params):
            for p in params:
                comm.mpi_comm.Allreduce(MPI.IN_PLACE, p.grad, op=MPI.SUM)

        def ours(model=model):
            comm.multi_node_mean_grad(model)

        def ours_in_optimizer(model=model):
            # What create_multi_node_optimizer's update(lossfun) does: the
            # gradients come out of backward already divided by the number
            # of ranks, so only the sum remains.
            comm._multi_node_mean_grad_async(model, prescaled=True).wait()

        row = {
            'model': name, 'parameters': len(params), 'floats': count,
            'mbytes': count * 4 / 2**20, 'ranks': comm.size,
            'cpuframe_mn_ms': 1e3 * _timed(comm, ours, args.iters,
                                           args.warmup),
            'cpuframe_mn_optimizer_ms': 1e3 * _timed(
                comm, ours_in_optimizer, args.iters, args.warmup),
            'raw_allreduce_ms': 1e3 * _timed(comm, raw, args.iters,
                                             args.warmup),
            'per_parameter_ms': 1e3 * _timed(comm, per_parameter, args.iters,
                                             args.warmup),
        }
        fn, why = _chainermn_naive(model)
        row['chainermn_naive_ms'] = (
            None if fn is None else 1e3 * _timed(comm, fn, args.iters,
                                                 args.warmup))
        row['chainermn_skipped'] = why
        row['ratio_vs_raw'] = row['raw_allreduce_ms'] / row['cpuframe_mn_ms']
        row['optimizer_ratio_vs_raw'] = (row['raw_allreduce_ms'] /
                                         row['cpuframe_mn_optimizer_ms'])
        rows.append(row)

    if comm.rank == 0:
        print('ranks: {}, MPI: {}'.format(
            comm.size, MPI.Get_library_version().splitlines()[0].strip()))
        print('{:<9} {:>6} {:>8} {:>12} {:>10} {:>9} {:>12} {:>9} {:>11} '
              '{:>11}'.format('model', 'params', 'MiB', 'mean_grad',
                              'raw MPI', 'raw/ours', 'in optimizer',
                              'raw/ours', 'per-param', 'ChainerMN'))
        for r in rows:
            cmn = ('{:.1f} ms'.format(r['chainermn_naive_ms'])
                   if r['chainermn_naive_ms'] is not None else 'skipped')
            print('{:<9} {:>6} {:>8.1f} {:>9.1f} ms {:>7.1f} ms {:>9.2f} '
                  '{:>9.1f} ms {:>9.2f} {:>8.1f} ms {:>11}'.format(
                      r['model'], r['parameters'], r['mbytes'],
                      r['cpuframe_mn_ms'], r['raw_allreduce_ms'],
                      r['ratio_vs_raw'], r['cpuframe_mn_optimizer_ms'],
                      r['optimizer_ratio_vs_raw'], r['per_parameter_ms'],
                      cmn))
            if r['chainermn_skipped']:
                print('  ChainerMN: {}'.format(r['chainermn_skipped']))
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == '__main__':
    main()
