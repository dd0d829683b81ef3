"""Instructions per call of the small-work rows, counted by Valgrind.

A shared machine's timings move by 20-50% from minute to minute (other
guests on the same cores); the instructions a row executes do not. This
counts them with Valgrind's cachegrind (``--cache-sim=no``: the
instruction count only) for the current checkout and, with
``--baseline DIR``, for another checkout, so that a change to the core is
measured by the work it removes. Each figure is the difference between a
run of ``--hi`` and one of ``--lo`` calls of the row, divided by the
difference in calls: imports, set-up and warm-up cancel out. BLAS and
OpenMP run one thread (their idle threads would otherwise add spinning),
and the hash seed is fixed; two runs agree to about 0.1%.

Instructions are not time (a cache miss or a slow division counts one),
so this complements ``run.py``'s timings; it does not replace them.

    python benchmarks/overhead/instructions.py --rows add_fwd,dqn_mlp \\
        --devices @numpy,@intel64 --baseline /tmp/base

``--baseline`` imports cpuframe from that checkout (its native module
built there, as ``run.py --baseline`` expects).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# calls per run (lo, hi) by row kind: a model step costs ~100x an op
_CALLS = {'op': (50, 550), 'fwdbwd': (20, 220), 'model': (5, 45)}

_CHILD = r'''
import sys
sys.path.insert(0, {here!r})
root = {root!r}
if root:
    sys.meta_path[:] = [f for f in sys.meta_path
                        if 'editable' not in type(f).__module__.lower()]
    sys.path.insert(0, root)
import cpuframe
import rows
name, device, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cpuframe.config.use_ideep = 'never' if device == '@numpy' else 'auto'
fn = rows.chainer_rows(rows.ChainerAPI(cpuframe, device))[name]
for _ in range(3):
    fn()
for _ in range(n):
    fn()
'''


def _kind(row):
    if row.endswith('_fwd') or row == 'relu_4':
        return 'op'
    if row.endswith('_fwdbwd'):
        return 'fwdbwd'
    return 'model'


def _count(script, row, device, calls):
    env = dict(os.environ, OPENBLAS_NUM_THREADS='1', OMP_NUM_THREADS='1',
               PYTHONHASHSEED='0')
    for key in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'):
        env.pop(key, None)
    out = subprocess.run(
        ['valgrind', '--tool=cachegrind', '--cache-sim=no',
         '--cachegrind-out-file=/dev/null', sys.executable, script, row,
         device, str(calls)],
        env=env, capture_output=True, text=True, check=False)
    for line in out.stderr.splitlines():
        if 'I' in line and 'refs:' in line:
            return int(line.rsplit(':', 1)[1].replace(',', '').strip())
    raise RuntimeError('valgrind gave no instruction count for {} on {}:\n'
                       '{}'.format(row, device, out.stderr[-2000:]))


def per_call(script, row, device):
    lo, hi = _CALLS[_kind(row)]
    return (_count(script, row, device, hi) -
            _count(script, row, device, lo)) / (hi - lo)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rows', default='relu_4,add_fwd,relu_fwd,'
                        'linear_fwd,add_fwdbwd,elementwise_10,dqn_mlp')
    parser.add_argument('--devices', default='@numpy,@intel64')
    parser.add_argument('--baseline', metavar='DIR')
    args = parser.parse_args(argv)
    if shutil.which('valgrind') is None:
        sys.exit('instructions.py: needs valgrind (apt install valgrind)')
    versions = [('now', '')]
    if args.baseline:
        versions.append(('base', str(Path(args.baseline).resolve())))
    with tempfile.TemporaryDirectory() as tmp:
        scripts = {}
        for label, root in versions:
            path = os.path.join(tmp, label + '.py')
            with open(path, 'w') as f:
                f.write(_CHILD.format(here=str(HERE), root=root))
            scripts[label] = path
        header = '{:<30}{:>10}'.format('row', 'device') + ''.join(
            '{:>12}'.format(label) for label, _ in versions)
        if args.baseline:
            header += '{:>10}'.format('now/base')
        print('instructions per call (Valgrind cachegrind)')
        print(header)
        for row in args.rows.split(','):
            for device in args.devices.split(','):
                counts = [per_call(scripts[label], row, device)
                          for label, _ in versions]
                line = '{:<30}{:>10}'.format(row, device) + ''.join(
                    '{:>12.0f}'.format(c) for c in counts)
                if args.baseline:
                    line += '{:>10.3f}'.format(counts[0] / counts[1])
                print(line, flush=True)


if __name__ == '__main__':
    main()
