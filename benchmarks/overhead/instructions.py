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
        --devices @numpy,@auto,@intel64 --baseline /tmp/base

Devices: ``@numpy`` the NumPy path (``use_ideep='never'``), ``@auto`` NumPy
arrays under ``'auto'`` (cpuframe's default: routes where a size rule says
oneDNN is faster), ``@static`` as ``@auto`` with the models' forward
decorated with ``@static_graph`` (the model rows only), ``@intel64`` the
model and inputs on the device.

``--baseline`` imports cpuframe from that checkout (its native module
built there, as ``run.py --baseline`` expects). ``--where`` says instead
where a call's instructions go, by library (the Python interpreter, NumPy,
BLAS, cpuframe's native module, oneDNN, libc) and by function, from
Valgrind's callgrind (``callgrind_annotate``'s self costs, the same
difference of two runs).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# calls per run (lo, hi) by row kind: a model step costs ~100x an op
_CALLS = {'op': (50, 550), 'fwdbwd': (20, 220), 'model': (5, 45)}

_CHILD = r'''
import os
import sys
import numpy
sys.path.insert(0, {here!r})
root = {root!r}
if root:
    sys.meta_path[:] = [f for f in sys.meta_path
                        if 'editable' not in type(f).__module__.lower()]
    sys.path.insert(0, root)
import cpuframe
import rows
name, device, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
# '@numpy': the NumPy path (use_ideep 'never'); '@auto': NumPy arrays under
# 'auto' (what a user gets by default); '@static': as '@auto', the models'
# forward decorated with @static_graph; '@intel64': the model on the device
cpuframe.config.use_ideep = 'never' if device == '@numpy' else 'auto'
fn = rows.chainer_rows(rows.ChainerAPI(
    cpuframe, '@numpy' if device in ('@auto', '@static') else device,
    static=device == '@static'))[name]
for _ in range(6):
    fn()
for _ in range(n):
    fn()
if os.environ.get('INSTRUCTIONS_SAY'):   # (tests: the mode and array type)
    api = rows.ChainerAPI(
        cpuframe, '@numpy' if device in ('@auto', '@static') else device)
    print(cpuframe.config.use_ideep, type(api.array(numpy.zeros(1))).__name__)
    if device == '@static':   # (what the decorated chains' schedules do)
        import gc
        from cpuframe.graph_optimizations.static_graph import ScheduleManager
        print(*sorted({{state for o in gc.get_objects()
                        if isinstance(o, ScheduleManager)
                        for state in o.schedules.values()}}))
'''


def _kind(row):
    if row.endswith('_fwd') or row == 'relu_4':
        return 'op'
    if row.endswith('_fwdbwd'):
        return 'fwdbwd'
    return 'model'


def _env():
    env = dict(os.environ, OPENBLAS_NUM_THREADS='1', OMP_NUM_THREADS='1',
               PYTHONHASHSEED='0')
    for key in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'):
        env.pop(key, None)
    return env


def _count(script, row, device, calls):
    env = _env()
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


# (an object file's name -> its group in ``--where``'s split)
_GROUPS = (('libpython', 'Python interpreter'),
           ('_multiarray_umath', 'NumPy'), ('openblas', 'BLAS'),
           ('_dnnl', 'cpuframe native'), ('libdnnl', 'oneDNN'),
           ('libc.so', 'libc (memset, memcpy, malloc)'))
_ANNOTATED = re.compile(r'^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?)'
                        r'(?: \[(.*)\])?$')


def parse_annotate(text):
    """``callgrind_annotate``'s per-function self costs: {(function,
    object file): instructions}."""
    costs = collections.Counter()
    for line in text.splitlines():
        m = _ANNOTATED.match(line)
        if m is None or 'PROGRAM TOTALS' in line:
            continue
        function = re.sub(r"'\d+$", '', m.group(2).rsplit('/', 1)[-1])
        costs[(function, m.group(3) or '')] += int(
            m.group(1).replace(',', ''))
    return costs


def group_of(obj):
    for key, name in _GROUPS:
        if key in obj.lower():
            return name
    return 'other'


def _callgrind(script, row, device, calls, tmp):
    out = os.path.join(tmp, 'callgrind.{}.out'.format(calls))
    subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' +
                    out, sys.executable, script, row, device, str(calls)],
                   env=_env(), capture_output=True, check=True)
    text = subprocess.run(['callgrind_annotate', '--threshold=100', out],
                          capture_output=True, text=True, check=True).stdout
    return parse_annotate(text)


def where(script, row, device, tmp, top=15):
    """Print where one call's instructions go: per group of object files
    (the interpreter, NumPy, BLAS, ...) and the costliest functions."""
    lo, hi = _CALLS[_kind(row)]
    few = _callgrind(script, row, device, lo, tmp)
    many = _callgrind(script, row, device, hi, tmp)
    per_call = {k: (many[k] - few[k]) / (hi - lo) for k in many}
    total = sum(per_call.values())
    groups = collections.Counter()
    for (_, obj), n in per_call.items():
        groups[group_of(obj)] += n
    print('{} on {}: {:.0f} instructions per call (callgrind)'.format(
        row, device, total))
    for name, n in groups.most_common():
        print('  {:<32}{:>10.0f} {:>6.1%}'.format(name, n, n / total))
    for (function, obj), n in sorted(per_call.items(),
                                     key=lambda kv: -kv[1])[:top]:
        print('    {:>10.0f} {:>6.1%}  {} ({})'.format(
            n, n / total, function, group_of(obj)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rows', default='relu_4,add_fwd,relu_fwd,'
                        'linear_fwd,add_fwdbwd,elementwise_10,dqn_mlp')
    parser.add_argument('--devices', default='@numpy,@intel64')
    parser.add_argument('--baseline', metavar='DIR')
    parser.add_argument('--where', action='store_true',
                        help='where each call of a row goes (callgrind: by '
                        'library and function, this checkout only)')
    args = parser.parse_args(argv)
    if shutil.which('valgrind') is None:
        sys.exit('instructions.py: needs valgrind (apt install valgrind)')
    if args.where:
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, 'now.py')
            with open(script, 'w') as f:
                f.write(_CHILD.format(here=str(HERE), root=''))
            for row in args.rows.split(','):
                for device in args.devices.split(','):
                    where(script, row, device, tmp)
        return
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
