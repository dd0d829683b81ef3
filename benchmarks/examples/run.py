#!/usr/bin/env python
"""Chainer-style example scripts, timed on cpuframe and on Chainer itself.

Each script in this folder is written as a Chainer user writes it (it
imports ``chainer`` only) and prints one JSON line with the seconds of its
training loop (imports and set-up excluded). cpuframe runs it unmodified
through ``python -m cpuframe.compat``; Chainer runs it with the Python given
by ``--chainer-python`` (e.g. a venv with Chainer 7.8.1 on NumPy 1.26). The
paths are driven in turn, the first one rotating, for ``--rounds`` rounds;
the table gives the fastest round (``--stat min``, the default) or the
median, and cpuframe / Chainer.

    python benchmarks/examples/run.py --chainer-python /venv-chainer/bin/python
    python benchmarks/examples/run.py --scripts ptb_rnnlm,dqn --paths auto,numpy
    python benchmarks/examples/run.py --scripts sentiment --paths auto,pycore

``pycore`` is ``auto`` with the core's Python definitions
(``CPUFRAME_NATIVE_CORE=0``) instead of ``cpuframe._core``.

``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` are removed from the
scripts' environment (they slow NumPy's BLAS).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ('sentiment', 'ptb_rnnlm', 'seq2seq', 'dqn', 'mnist_trainer',
           'word2vec', 'vae', 'dcgan', 'cifar_vgg')

# path -> (needs chainer python, extra environment, extra script arguments)
PATHS = {
    'auto': (False, {}, []),
    'intel64': (False, {}, ['--device', '@intel64']),
    'numpy': (False, {'CPUFRAME_USE_IDEEP': 'never'}, []),
    # 'auto' with the core's Python definitions instead of cpuframe._core
    'pycore': (False, {'CPUFRAME_NATIVE_CORE': '0'}, []),
    'chainer': (True, {}, []),
}


def _env(extra):
    env = dict(os.environ)
    for key in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE', 'CPUFRAME_USE_IDEEP',
                'CHAINER_USE_IDEEP'):
        env.pop(key, None)
    env.update(extra)
    return env


def run_once(script, path, chainer_python, workdir):
    needs_chainer, extra_env, extra_args = PATHS[path]
    if needs_chainer:
        cmd = [chainer_python, str(HERE / (script + '.py'))]
    else:
        cmd = [sys.executable, '-m', 'cpuframe.compat',
               str(HERE / (script + '.py'))]
    proc = subprocess.run(cmd + extra_args, cwd=workdir, env=_env(extra_env),
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError('{} on {} failed:\n{}'.format(
            script, path, proc.stderr[-3000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--scripts', default=','.join(SCRIPTS))
    parser.add_argument('--paths', default='auto,intel64,numpy,chainer')
    parser.add_argument('--chainer-python', default=None)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--stat', choices=('min', 'median'), default='min')
    parser.add_argument('--settle', type=float, default=0.5,
                        help='seconds of quiet before each run')
    parser.add_argument('--json', default=None)
    args = parser.parse_args(argv)
    scripts = [s for s in args.scripts.split(',') if s]
    paths = [p for p in args.paths.split(',') if p]
    for s in scripts:
        if s not in SCRIPTS:
            parser.error('unknown script {!r} (known: {})'.format(
                s, ', '.join(SCRIPTS)))
    for p in paths:
        if p not in PATHS:
            parser.error('unknown path {!r} (known: {})'.format(
                p, ', '.join(PATHS)))
    if 'chainer' in paths and not args.chainer_python:
        print('no --chainer-python: the chainer path is left out',
              file=sys.stderr)
        paths.remove('chainer')

    samples = {s: {p: [] for p in paths} for s in scripts}
    with tempfile.TemporaryDirectory() as workdir:
        for r in range(args.rounds):
            for s in scripts:
                order = paths[r % len(paths):] + paths[:r % len(paths)]
                for p in order:
                    time.sleep(args.settle)
                    out = run_once(s, p, args.chainer_python, workdir)
                    samples[s][p].append(out['seconds'])
    stat = min if args.stat == 'min' else statistics.median
    header = '| script (s) | ' + ' | '.join(paths)
    if 'chainer' in paths:
        header += ' | ' + ' | '.join(
            '{} / chainer'.format(p) for p in paths if p != 'chainer')
    core_ab = 'auto' in paths and 'pycore' in paths
    if core_ab:
        header += ' | auto / pycore'
    print(header + ' |')
    print('|' + '---|' * (header.count('|')))
    for s in scripts:
        figs = {p: stat(samples[s][p]) for p in paths}
        cells = ['{:.3f}'.format(figs[p]) for p in paths]
        if 'chainer' in paths:
            cells += ['{:.2f}'.format(figs[p] / figs['chainer'])
                      for p in paths if p != 'chainer']
        if core_ab:
            cells.append('{:.2f}'.format(figs['auto'] / figs['pycore']))
        print('| {} | {} |'.format(s, ' | '.join(cells)))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'stat': args.stat, 'rounds': args.rounds,
                       'samples': samples}, f, indent=1)


if __name__ == '__main__':
    main()
