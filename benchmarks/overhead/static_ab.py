"""`@static_graph` against define-by-run on the model rows, in one process:
blocks of each alternate (30 blocks, median), so the machine's drift hits
both alike. Run from the repository root:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/overhead/static_ab.py
"""
import gc
import statistics
import sys
import time

sys.path.insert(0, __import__('os').path.dirname(__file__))
import rows

import cpuframe

A = rows.chainer_rows(rows.ChainerAPI(cpuframe, '@numpy'))
S = rows.chainer_rows(rows.ChainerAPI(cpuframe, '@numpy', static=True))
for name in ('mnist_mlp', 'dqn_mlp', 'lstm_2steps', 'tiny_convnet'):
    a, s = A[name], S[name]
    for f in (a, s):
        for _ in range(20):
            f()
    ra, rs = [], []
    n = 40 if name != 'mnist_mlp' else 15
    for k in range(30):
        for f, out in ((a, ra), (s, rs)) if k % 2 else ((s, rs), (a, ra)):
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            out.append((time.perf_counter() - t0) / n * 1e6)
    med_a, med_s = statistics.median(ra), statistics.median(rs)
    print('%-14s auto %7.1f  static %7.1f  static/auto %.3f '
          '(median of 30 interleaved blocks; min %.1f / %.1f)' % (
              name, med_a, med_s, med_s / med_a, min(ra), min(rs)))
