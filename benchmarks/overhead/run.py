"""Small-work benchmark: what one op, one small training step costs.

    python benchmarks/overhead/run.py
    python benchmarks/overhead/run.py --torch-python /venv-torch/bin/python \\
        --chainer-python /venv-chainer/bin/python --json out.json

Paths: ``auto`` (cpuframe, ``use_ideep='auto'``, NumPy arrays: what a user
gets without asking), ``static`` (as ``auto``, the models' forward decorated
with ``@static_graph``: the model rows only), ``intel64`` (cpuframe, the
model and the inputs on the
``@intel64`` device), ``numpy`` (cpuframe, ``use_ideep='never'``: the
reference path), ``pycore`` (as ``auto``, on the core's Python
definitions instead of ``cpuframe._core``), ``chainer`` (Chainer itself, on
NumPy, when a Python with ``chainer`` is given) and ``torch`` (PyTorch
eager, comparison only, when a Python with ``torch`` is given or this one
has it).

Rows (``rows.py``): a relu on 4 elements; 10 elementwise ops then backward;
an MNIST MLP SGD step; a DQN-sized MLP Adam step; two ``L.LSTM`` steps at
batch 1 then backward; a tiny convnet SGD step; and each common op on 32x32
arrays forward (the graph recorded) and forward + backward.

Each path runs in a worker process of its own; for every row the workers are
driven in turn (the first one rotating) for ``--rounds`` rounds, each a
block of calls sized on the first round to last about ``--block-ms``
after ``--settle`` seconds of quiet (OpenBLAS's idle threads spin for
about 0.1 s after a call: with less, a path pays for its predecessor's),
so a
change of the machine's load falls on every path alike. The table gives the
median over the rounds of the time per call, in microseconds, and the
ratios to PyTorch and to the NumPy path. ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` are removed from the workers' environment (they slow
NumPy's BLAS down); the threads are ``--threads`` (default: all cores).

``--baseline DIR`` also runs each cpuframe path from another checkout
(``auto@base``, ``intel64@base``, ``numpy@base``: e.g. a ``git worktree``
of the commit before a change, with its native module built or copied in),
interleaved with the others, so that a before/after comparison shares one
run's machine load; the table then adds the ratios to the baseline.
"""
import argparse
import gc
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
PATHS = ('auto', 'static', 'intel64', 'numpy', 'chainer', 'torch',
         'torch_compile', 'pycore')
THREAD_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')
UNFAIR_BLAS_VARS = ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')
_PREFIX = '@@overhead '


def _rows_module():
    spec = importlib.util.spec_from_file_location(
        'cpuframe_overhead_rows', HERE / 'rows.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------
# Worker side
# ---------------------------------------------------------------------------

def _build(path, rows):
    if path in ('torch', 'torch_compile'):
        import torch
        torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', '1')))
        if path == 'torch':
            return rows.torch_rows(torch), {'torch': torch.__version__}
        steps, compile_s = rows.torch_compiled_rows(torch)
        return steps, {'torch': torch.__version__,
                       'compile_seconds': compile_s}
    if path == 'chainer':
        import chainer
        chainer.config.use_ideep = 'never'
        api = rows.ChainerAPI(chainer, '@numpy')
        return rows.chainer_rows(api), {'chainer': chainer.__version__}
    path, _, base = path.partition('@')
    root = os.environ.get('CPUFRAME_OVERHEAD_BASELINE') if base else None
    if root:
        # this checkout's cpuframe, not the installed (editable) one
        sys.meta_path[:] = [f for f in sys.meta_path
                            if 'editable' not in repr(f).lower()]
    sys.path.insert(0, root or str(REPO_ROOT))
    import cpuframe
    if root and not cpuframe.__file__.startswith(
            str(Path(root).resolve())):
        raise RuntimeError('--baseline: imported {}, not the checkout '
                           '{}'.format(cpuframe.__file__, root))
    cpuframe.config.use_ideep = 'never' if path == 'numpy' else 'auto'
    device = '@intel64' if path == 'intel64' else '@numpy'
    if path == 'pycore':
        from cpuframe import function_node
        function_node.native_core(False)
    if path == 'intel64':
        from cpuframe.backends import intel64
        intel64.check_ideep_available()
    api = rows.ChainerAPI(cpuframe, device, static=path == 'static')
    info = {'cpuframe': cpuframe.__version__}
    if root:
        info['from'] = root
    return rows.chainer_rows(api), info


def _time_block(step, n):
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - start) / n


def worker_main(path):
    proto = os.fdopen(os.dup(1), 'w', buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(msg):
        proto.write(_PREFIX + json.dumps(msg) + '\n')
        proto.flush()

    try:
        steps, info = _build(path, _rows_module())
    except Exception as e:  # noqa: BLE001 - reported to the parent
        traceback.print_exc()
        send({'status': 'skipped', 'reason': '{}: {}'.format(
            type(e).__name__, e)})
        return 0
    import numpy
    info['numpy'] = numpy.__version__
    send({'status': 'ready', 'info': info})
    sizes = {}
    for line in sys.stdin:
        command = json.loads(line)
        if command['op'] == 'finish':
            return 0
        row = command['row']
        if row not in steps:
            send({'status': 'na'})   # (a row this path does not run)
            continue
        try:
            step = steps[row]
            if row not in sizes:
                for _ in range(3):  # warm-up: primitives, caches, lazy init
                    step()
                n, elapsed = 1, 0.0
                while elapsed < command['block_s'] / 4:
                    n *= 2
                    elapsed = _time_block(step, n) * n
                sizes[row] = max(1, int(n * command['block_s'] / elapsed))
            send({'status': 'ok', 'seconds': _time_block(step, sizes[row])})
        except Exception as e:  # noqa: BLE001 - reported to the parent
            traceback.print_exc()
            send({'status': 'error', 'reason': '{}: {}'.format(
                type(e).__name__, e)})
    return 1


# ---------------------------------------------------------------------------
# Parent side
# ---------------------------------------------------------------------------

class _Worker:
    def __init__(self, path, python, env, log_dir):
        self.path = path
        self.log = open(Path(log_dir) / '{}.log'.format(path), 'w')
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), '--worker', path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            env=env, text=True, bufsize=1)

    def request(self, msg=None):
        if msg is not None:
            self.proc.stdin.write(json.dumps(msg) + '\n')
            self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                return {'status': 'error', 'reason': 'the worker died; see '
                        + self.log.name}
            if line.startswith(_PREFIX):
                return json.loads(line[len(_PREFIX):])

    def close(self):
        try:
            self.request({'op': 'finish'})
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self.log.close()


def _has(python, module):
    try:
        return subprocess.run([python, '-c', 'import ' + module],
                              capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _cpu_name():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run(args):
    rows = _rows_module()
    names = [r for r, _ in rows.ROWS]
    if args.rows:
        wanted = args.rows.split(',')
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            raise SystemExit('--rows: unknown {}; known: {}'.format(
                unknown, ', '.join(names)))
        names = [r for r in names if r in wanted]
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = str(args.threads)
    for var in UNFAIR_BLAS_VARS + ('CPUFRAME_DTYPE', 'CHAINER_DTYPE'):
        env.pop(var, None)
    pythons = {p: sys.executable for p in PATHS}
    pythons['torch'] = pythons['torch_compile'] = \
        args.torch_python or sys.executable
    pythons['chainer'] = args.chainer_python or sys.executable
    paths = [p for p in args.paths.split(',')]
    if args.baseline:
        env['CPUFRAME_OVERHEAD_BASELINE'] = str(Path(args.baseline).resolve())
        paths += [p + '@base' for p in paths
                  if p in ('auto', 'intel64', 'numpy', 'static')]
        for p in paths:
            pythons.setdefault(p, sys.executable)
    report = {'cpu': _cpu_name(), 'threads': args.threads, 'rounds':
              args.rounds, 'stat': args.stat, 'paths': {}, 'rows': {}}
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    workers = []
    for p in paths:
        module = 'torch' if p == 'torch_compile' else p
        if module in ('torch', 'chainer') and not _has(pythons[p], module):
            report['paths'][p] = {'skipped': 'no {} in {}'.format(
                module, pythons[p])}
            continue
        w = _Worker(p, pythons[p], env, log_dir)
        msg = w.request()
        if msg['status'] != 'ready':
            report['paths'][p] = {'skipped': msg.get('reason')}
            w.close()
            continue
        report['paths'][p] = msg['info']
        workers.append(w)
    try:
        for row in names:
            times = {w.path: [] for w in workers}
            for k in range(args.rounds):
                order = workers[k % len(workers):] + workers[:k % len(workers)]
                for w in order:
                    if times[w.path] is None:
                        continue
                    # the previous worker's BLAS/OpenMP threads stop spinning
                    time.sleep(args.settle)
                    msg = w.request({'op': 'row', 'row': row,
                                     'block_s': args.block_ms / 1e3})
                    if msg['status'] == 'na':
                        times[w.path] = None
                        continue
                    if msg['status'] != 'ok':
                        print('{} {}: {}'.format(row, w.path, msg['reason']),
                              file=sys.stderr)
                        times[w.path] = None
                        continue
                    times[w.path].append(msg['seconds'] * 1e6)
            pick = min if args.stat == 'min' else statistics.median
            report['rows'][row] = {
                p: None if ts is None else pick(ts)
                for p, ts in times.items()}
            report.setdefault('samples', {})[row] = times
            print_row(row, report['rows'][row], [w.path for w in workers],
                      header=row == names[0])
    finally:
        for w in workers:
            w.close()
    return report


def _ratio(a, b):
    return '' if a is None or b is None else '{:.2f}'.format(a / b)


def print_row(row, times, paths, header=False):
    widths = [max(9, len(p) + 1) for p in paths]
    cols = ['{:>{}}'.format(p, w) for p, w in zip(paths, widths)]
    ratios = [('auto/torch', 'auto', 'torch'),
              ('static/torch', 'static', 'torch'),
              ('static/auto', 'static', 'auto'),
              ('static/torch_compile', 'static', 'torch_compile'),
              ('intel64/numpy', 'intel64', 'numpy'),
              ('auto/chainer', 'auto', 'chainer'),
              ('auto/pycore', 'auto', 'pycore')] + [
                  (p + '/base', p, p + '@base')
                  for p in ('auto', 'intel64', 'numpy', 'static')]
    ratios = [r for r in ratios if r[1] in paths and r[2] in paths]
    if header:
        print('{:<28}{}  {}'.format('row (us per call)', ''.join(cols),
                                    '  '.join(r[0] for r in ratios)))
    vals = ''.join('{:>{}}'.format('-' if times[p] is None else
                                   '{:.1f}'.format(times[p]), w)
                   for p, w in zip(paths, widths))
    rs = '  '.join('{:>{}}'.format(_ratio(times[a], times[b]), len(n))
                   for n, a, b in ratios)
    print('{:<28}{}  {}'.format(row, vals, rs), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        '--paths', default=','.join(p for p in PATHS
                                    if p not in ('torch_compile', 'pycore')),
        help='comma-separated, of: {} (default: all but torch_compile, '
        'whose compiling takes minutes, and pycore)'.format(', '.join(PATHS)))
    parser.add_argument('--rows', default='',
                        help='comma-separated row names (default: all)')
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--stat', choices=('median', 'min'),
                        default='median',
                        help='what the table gives of each path\'s rounds '
                        '(min: less of a shared machine\'s noise)')
    parser.add_argument('--block-ms', type=float, default=40.0)
    parser.add_argument('--threads', type=int, default=os.cpu_count())
    parser.add_argument("--settle", type=float, default=0.3,
                        help='seconds of quiet before each block')
    parser.add_argument('--torch-python')
    parser.add_argument('--chainer-python')
    parser.add_argument('--json')
    parser.add_argument('--baseline', metavar='DIR',
                        help='also run the cpuframe paths from this '
                        'checkout, interleaved (before/after in one run)')
    parser.add_argument('--log-dir', default='/tmp/cpuframe-overhead-logs')
    parser.add_argument('--worker', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    print('cpu: {}, threads: {} ({} removed from the workers\' '
          'environment)'.format(_cpu_name(), args.threads,
                                ' and '.join(UNFAIR_BLAS_VARS)))
    report = run(args)
    for p, info in report['paths'].items():
        print('{}: {}'.format(p, info))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
