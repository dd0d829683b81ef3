"""Latency (alpha) and inverse bandwidth (beta) of the MPI link, and how
well the textbook allreduce cost models predict MPI's allreduce on it.

    benchmarks/mn/netns/mpiexec -n 2 python benchmarks/mn/alpha_beta.py
    mpiexec -n 2 python benchmarks/mn/alpha_beta.py        # one host

- ping-pong between ranks 0 and 1 (Send/Recv, float32 buffers of 4 B to
  64 MiB): one-way time t(n) = alpha + n * beta, fitted by least squares
  (alpha from the messages up to 1 KiB, beta from those of 1 MiB and
  more, where the other term is noise);
- exchange: ranks 0 and 1 Sendrecv n bytes to each other at once;
  beta_x fitted the same way (on an ideal full-duplex link beta_x = beta);
- MPI ``Allreduce`` (in place, float32 sum) over all ranks, same sizes,
  next to the models with the fitted alpha, beta_x (gamma = local reduction
  time per byte, measured with numpy on this rank):
    recursive doubling:  log2(p) * (alpha + n*beta + n*gamma)
    ring / Rabenseifner: 2(p-1)*alpha + 2(p-1)/p * n*beta + (p-1)/p * n*gamma
  (MPICH uses recursive doubling for short messages and reduce-scatter +
  allgather for long ones; with Rabenseifner the alpha term is 2 log2(p)).

Each time is the median of ``--iters`` repetitions (fewer for large
messages); every rank's barrier precedes each one.  Rank 0 prints the
tables and, with ``--json``, writes them.
"""
import argparse
import json
import math
import statistics
import time

import numpy
from mpi4py import MPI


def timed(comm, fn, iters):
    times = []
    for _ in range(iters):
        comm.Barrier()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return comm.allreduce(statistics.median(times), op=MPI.MAX)


def pingpong(comm, buf, reps):
    if comm.rank == 0:
        for _ in range(reps):
            comm.Send(buf, 1, 7)
            comm.Recv(buf, 1, 7)
    elif comm.rank == 1:
        for _ in range(reps):
            comm.Recv(buf, 0, 7)
            comm.Send(buf, 0, 7)


def exchange(comm, buf, out, reps):
    """Ranks 0 and 1 send each other n bytes at once (both directions of
    the link busy, as in every step of a ring or recursive doubling)."""
    if comm.rank < 2:
        other = 1 - comm.rank
        for _ in range(reps):
            comm.Sendrecv(buf, other, 8, out, other, 8)


def fit(sizes, times):
    a = numpy.vstack([numpy.ones(len(sizes)), sizes]).T
    (alpha, beta), *_ = numpy.linalg.lstsq(a, numpy.array(times), rcond=None)
    return alpha, beta


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--max-bytes', type=int, default=64 << 20)
    parser.add_argument('--iters', type=int, default=20)
    parser.add_argument('--json')
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    p = comm.size
    sizes = []
    n = 4
    while n <= args.max_bytes:
        sizes.append(n)
        n *= 4
    rows = []
    for nbytes in sizes:
        buf = numpy.ones(nbytes // 4, numpy.float32)
        iters = max(3, args.iters if nbytes <= 1 << 20 else args.iters // 4)
        reps = 10 if nbytes <= 1 << 16 else 1
        pp = timed(comm, lambda b=buf, r=reps: pingpong(comm, b, r),
                   iters) / (2 * reps)
        out = numpy.empty_like(buf)
        ex = timed(comm, lambda b=buf, o=out, r=reps: exchange(comm, b, o, r),
                   iters) / reps
        ar = timed(comm, lambda b=buf: comm.Allreduce(MPI.IN_PLACE, b),
                   iters)
        rows.append({'bytes': nbytes, 'pingpong_s': pp, 'exchange_s': ex,
                     'allreduce_s': ar})
    small = [r for r in rows if r['bytes'] <= 1 << 10]
    large = [r for r in rows if r['bytes'] >= 1 << 20]
    alpha, _ = fit([r['bytes'] for r in small], [r['pingpong_s'] for r in small])
    _, beta = fit([r['bytes'] for r in large], [r['pingpong_s'] for r in large])
    _, beta_x = fit([r['bytes'] for r in large],
                    [r['exchange_s'] for r in large])
    a = numpy.ones((8 << 20) // 4, numpy.float32)
    b = a.copy()
    gamma = min(timed(comm, lambda: numpy.add(a, b, out=a), 5)
                for _ in range(2)) / a.nbytes
    lg = math.log2(p) if p > 1 else 0
    for r in rows:
        n = r['bytes']
        # Every step of both algorithms sends and receives at once: the
        # exchange's beta_x is the one that applies (beta when the link and
        # the hosts are truly full duplex).
        r['recursive_doubling_s'] = lg * (alpha + n * beta_x + n * gamma)
        r['ring_s'] = (2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta_x
                       + (p - 1) / p * n * gamma)
    result = {'ranks': p, 'alpha_s': alpha, 'beta_s_per_byte': beta,
              'bandwidth_gbit_s': 8e-9 / beta if beta > 0 else None,
              'beta_exchange_s_per_byte': beta_x,
              'gamma_s_per_byte': gamma, 'rows': rows}
    if comm.rank == 0:
        print('{} ranks; ping-pong fit: alpha {:.1f} us, beta {:.3f} ns/B '
              '({:.2f} Gbit/s); both ways at once: beta_x {:.3f} ns/B ({:.2f} '
              'Gbit/s each way); gamma {:.3f} ns/B'.format(
                  p, 1e6 * alpha, 1e9 * beta, 8e-9 / beta, 1e9 * beta_x,
                  8e-9 / beta_x, 1e9 * gamma))
        print('{:>10} {:>12} {:>12} {:>13} {:>12} {:>12}'.format(
            'bytes', 'ping-pong', 'exchange', 'allreduce', 'model rd',
            'model ring'))
        for r in rows:
            print('{:>10} {:>9.1f} us {:>9.1f} us {:>10.1f} us {:>9.1f} us '
                  '{:>9.1f} us'
                  .format(r['bytes'], 1e6 * r['pingpong_s'],
                          1e6 * r['exchange_s'],
                          1e6 * r['allreduce_s'],
                          1e6 * r['recursive_doubling_s'], 1e6 * r['ring_s']))
        if args.json:
            with open(args.json, 'w') as f:
                json.dump(result, f, indent=1)


if __name__ == '__main__':
    main()
