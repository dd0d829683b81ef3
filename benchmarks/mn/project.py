"""Projected weak-scaling efficiency of cpuframe.mn data parallelism on many
nodes, from the alpha-beta cost models of MPI allreduce.

    python benchmarks/mn/project.py --alpha-beta ab-10g.json \\
        --scaling sc-10g.json [--check ar-10g.json ar-1g.json ...]

Inputs: alpha (per message) and gamma (reduction, per byte) measured by
alpha_beta.py; the compute time per step at 1 rank and the gradient bytes
(ResNet-50 and AlexNet, batch 16 per rank) from scaling.py / allreduce.py
JSON (or the defaults below).  Network bandwidth is a parameter (25 and
100 Gbit/s), used as beta = 8 / bandwidth, each way, full duplex.

Allreduce of n bytes over p ranks (Thakur, Rabenseifner & Gropp 2005):
  recursive doubling   log2(p) * (alpha + n*beta + n*gamma)
  ring                 2(p-1)*alpha + 2(p-1)/p * n*beta + (p-1)/p * n*gamma
  Rabenseifner (reduce-scatter by recursive halving + allgather by
  recursive doubling; what MPICH uses for long messages, p a power of 2)
                       2 log2(p)*alpha + 2(p-1)/p * n*beta + (p-1)/p * n*gamma
T_ar(p) = the smallest of the three.  Efficiency, one rank per node:
  no overlap (the current cpuframe.mn: averaging starts after backward)
      E = T_c / (T_c + T_ar)
  full overlap (bound: reduction starts as backward starts, so it can
  hide behind backward, a fraction b of the step, b = 2/3 by default)
      E = T_c / max(T_c, (1 - b) * T_c + T_ar)
The per-step time is otherwise unchanged by p (weak scaling; no stragglers,
no congestion, a non-blocking switch).
"""
import argparse
import json
import math

# scaling.py at 1 rank and allreduce.py's gradient sizes, overridable.
GRAD_BYTES = {'resnet50': 97.5 * 2 ** 20, 'alexnet': 233.1 * 2 ** 20}


def allreduce_time(n, p, alpha, beta, gamma):
    if p == 1:
        return 0.0
    lg = math.log2(p)
    rd = lg * (alpha + n * beta + n * gamma)
    ring = 2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta \
        + (p - 1) / p * n * gamma
    rab = 2 * lg * alpha + 2 * (p - 1) / p * n * beta + (p - 1) / p * n * gamma
    return min(rd, ring, rab)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--alpha-beta', required=True,
                        help="alpha_beta.py --json output (alpha, gamma)")
    parser.add_argument('--scaling', help='scaling.py --json output '
                        '(compute time per step at 1 rank)')
    parser.add_argument('--step', action='append', default=[],
                        help='MODEL=SECONDS: compute time per step instead')
    parser.add_argument('--alpha', type=float, help='override alpha (s)')
    parser.add_argument('--backward-fraction', type=float, default=2 / 3)
    parser.add_argument('--nodes', default='8,32,128')
    parser.add_argument('--gbits', default='25,100')
    parser.add_argument('--check', nargs='*', default=[],
                        help='alpha_beta.py JSON of other links: predicted vs '
                        'measured allreduce of 1, 16, 64 MiB')
    args = parser.parse_args()
    ab = json.load(open(args.alpha_beta))
    alpha = args.alpha if args.alpha is not None else ab['alpha_s']
    gamma = ab['gamma_s_per_byte']
    steps = {}
    if args.scaling:
        runs = json.load(open(args.scaling))
        one = runs[min(runs, key=int)]
        steps = {m: r['step_s'] for m, r in one.items()}
    for item in args.step:
        model, seconds = item.split('=')
        steps[model] = float(seconds)

    for path in [args.alpha_beta] + args.check:
        d = json.load(open(path))
        print('model check, {} ({} ranks; alpha {:.1f} us, beta_x {:.3f} '
              'ns/B):'.format(path, d['ranks'], 1e6 * d['alpha_s'],
                              1e9 * d['beta_exchange_s_per_byte']))
        for r in d['rows']:
            if r['bytes'] in (1 << 10, 1 << 20, 1 << 24, 1 << 26):
                pred = allreduce_time(r['bytes'], d['ranks'], d['alpha_s'],
                                      d['beta_exchange_s_per_byte'],
                                      d['gamma_s_per_byte'])
                print('  {:>9} B: predicted {:9.3f} ms, measured {:9.3f} ms '
                      '({:+.0f} %)'.format(
                          r['bytes'], 1e3 * pred, 1e3 * r['allreduce_s'],
                          100 * (r['allreduce_s'] / pred - 1)))
    print('\nalpha {:.1f} us, gamma {:.3f} ns/B; one rank per node'.format(
        1e6 * alpha, 1e9 * gamma))
    print('{:<9} {:>8} {:>6} {:>6} {:>10} {:>11} {:>12}'.format(
        'model', 'T_c', 'Gbit/s', 'nodes', 'T_ar', 'E no ovl', 'E full ovl'))
    bf = args.backward_fraction
    for model, tc in steps.items():
        n = GRAD_BYTES[model]
        for gbit in [float(g) for g in args.gbits.split(',')]:
            beta = 8 / (gbit * 1e9)
            for p in [int(x) for x in args.nodes.split(',')]:
                t = allreduce_time(n, p, alpha, beta, gamma)
                print('{:<9} {:>6.3f} s {:>6g} {:>6} {:>7.1f} ms {:>10.1f}% '
                      '{:>11.1f}%'.format(model, tc, gbit, p, 1e3 * t,
                                          100 * tc / (tc + t),
                                          100 * tc / max(
                                              tc, (1 - bf) * tc + t)))


if __name__ == '__main__':
    main()
