"""The native core (``cpuframe._core``) against the core's Python
definitions, in one process: blocks of each alternate (``--blocks``,
fastest and median per row), so the machine's drift hits both alike.
Run from the repository root:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/overhead/core_ab.py --device @numpy
    python benchmarks/overhead/core_ab.py --device @intel64 --rows add_fwd,dqn_mlp

Both cores compute the same values (tests/test_native_core.py); only the
bookkeeping differs. ``--device @numpy`` is NumPy arrays under 'auto'
(what a user gets by default), ``@intel64`` the arrays on the device.
"""
import argparse
import gc
import os
import statistics
import sys
import time

ROWS = ('add_fwd', 'relu_fwd', 'linear_fwd', 'relu_fwdbwd',
        'softmax_cross_entropy_fwdbwd', 'elementwise_10', 'dqn_mlp',
        'mnist_mlp', 'lstm_2steps', 'tiny_convnet')


def measure(fn, switch, blocks=16, block_s=0.01):
    """{True: [µs per call per block, native], False: [... Python]}."""
    for _ in range(10):
        fn()
    t0 = time.perf_counter()
    fn()
    n = max(1, int(block_s / max(time.perf_counter() - t0, 1e-6)))
    times = {True: [], False: []}
    try:
        for k in range(blocks):
            for native in ((True, False) if k % 2 else (False, True)):
                switch(native)
                gc.collect()
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                times[native].append((time.perf_counter() - t0) / n * 1e6)
    finally:
        switch(True)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--device', default='@numpy',
                        choices=('@numpy', '@intel64'))
    parser.add_argument('--rows', default=','.join(ROWS))
    parser.add_argument('--blocks', type=int, default=16)
    parser.add_argument('--block-ms', type=float, default=10.0)
    args = parser.parse_args(argv)
    import rows

    import cpuframe
    from cpuframe import function_node
    if function_node._native_apply is None:
        sys.exit('core_ab.py: cpuframe._core is not there ({})'.format(
            function_node._native_core_missing))
    results = {}
    with cpuframe.using_config('use_ideep', 'auto'):
        table = rows.chainer_rows(rows.ChainerAPI(cpuframe, args.device))
        print('{:<30}{:>10}{:>10}{:>9}{:>10}'.format(
            'row (us per call)', 'native', 'python', 'min', 'median'))
        for name in args.rows.split(','):
            t = results[name] = measure(
                table[name], function_node.native_core, args.blocks,
                args.block_ms / 1000)
            print('{:<30}{:>10.1f}{:>10.1f}{:>9.3f}{:>10.3f}'.format(
                name, min(t[True]), min(t[False]),
                min(t[True]) / min(t[False]),
                statistics.median(t[True]) / statistics.median(t[False])),
                flush=True)
    print('native / python: fastest block each (min) and medians; '
          'device {}, {} blocks each'.format(args.device, args.blocks))
    return results


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
