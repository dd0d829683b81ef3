"""RNN benchmarks for cpuframe: the intel64 (oneDNN) path against the NumPy
path and PyTorch (``nn.LSTM`` with packed sequences), forward + backward.

    python benchmarks/rnn/run.py --json out.json
    python benchmarks/rnn/run.py --models ptb_lstm --iters 10 --threads 2 \\
        --torch-python /path/to/venv-with-torch/bin/python

Models (see models.py): ``ptb_lstm`` (PTB-style word LM: embed 650, 2-layer
LSTM 650, 35 steps, batch 20, vocabulary 10000, one NStepLSTM call),
``nstep_bilstm`` (NStepBiLSTM encoder: batch 64, lengths 5-50, 512 units,
2 layers) and ``ptb_lstm_cell`` (the PTB model stepped with L.LSTM, as
Chainer's example does).  Paths: ``intel64`` (``use_ideep='always'``, the
model on the Intel64 device), ``numpy`` (``use_ideep='never'``) and
``torch`` (when a Python with torch is available: this one, or
``--torch-python``); asked for by name, the bfloat16 mixed-precision paths
``intel64_bf16`` (the intel64 path with ``config.dtype = cpuframe.mixed_bf16``
set before the model is built) and ``torch_bf16`` (the torch path with the
forward and the loss under ``torch.autocast('cpu', dtype=torch.bfloat16)``,
backward outside it; parameters stay float32).

Each path runs in its own worker process. All workers of a model start
together and are driven one iteration at a time in turn (interleaved, the
first one rotating, with a pause of ``--settle`` seconds before each step so
that the previous worker's threads stop spinning), so a change in the
machine's load falls on every path alike. One iteration:
clear the gradients, forward + loss (timed as ``fwd``), backward (forward +
backward timed as ``fwdbwd``); no optimizer update. Warm-up iterations are
not counted. The table and the JSON report medians (and the minimum).
"""
import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
PATHS = ('intel64', 'numpy', 'torch', 'intel64_bf16', 'torch_bf16')
#: What ``--paths`` runs when not given: the float32 paths.
DEFAULT_PATHS = ('intel64', 'numpy', 'torch')
TORCH_PATHS = ('torch', 'torch_bf16')
#: The cpuframe paths on the Intel64 device (``use_ideep='always'``).
INTEL64_PATHS = ('intel64', 'intel64_bf16')
#: Removed from the workers' environment: each path sets its own dtype.
DTYPE_VARS = ('CPUFRAME_DTYPE', 'CHAINER_DTYPE')
DEFAULT_MODELS = ('ptb_lstm', 'nstep_bilstm', 'ptb_lstm_cell')
THREAD_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')
#: Set in this environment, they slow OpenBLAS (the NumPy path) down.
UNFAIR_BLAS_VARS = ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')
_PREFIX = '@@rnnbench '


def _sibling(name, folder=HERE):
    key = 'cpuframe_rnn_bench_' + name if folder == HERE else \
        'cpuframe_bench_{}_{}'.format(folder.name, name)
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, folder / (name + '.py'))
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


#: The bf16 paths' helpers, shared with the other harness.
bf16h = _sibling('harness', HERE.parent / 'bf16')


# ---------------------------------------------------------------------------
# Worker side
# ---------------------------------------------------------------------------

class _CpuframeRunner:
    def __init__(self, cfg):
        if importlib.util.find_spec('cpuframe') is None:
            sys.path.insert(0, str(REPO_ROOT))
        import cpuframe
        from cpuframe.backends import intel64

        models = _sibling('models')
        self.info = {'cpuframe': str(Path(cpuframe.__file__).parent)}
        self.skip_reason = None
        self.path = cfg['path']
        on_intel64 = self.path in INTEL64_PATHS
        if on_intel64 and not intel64.is_ideep_available():
            self.skip_reason = 'the oneDNN native module is not available: ' \
                '{}'.format(intel64.unavailable_reason())
            return
        cpuframe.global_config.use_ideep = 'always' if on_intel64 else 'never'
        if self.path == 'intel64_bf16':
            # Before the model is built: the links read config.dtype.
            cpuframe.global_config.dtype = bf16h.mixed_bf16(cpuframe)
            self.info['bf16_support'] = bf16h.bf16_support(intel64)
        self.info['dtype'] = bf16h.dtype_name(cpuframe.config.dtype)
        numpy_ = __import__('numpy')
        numpy_.random.seed(0)
        self.model = models.build(cfg['model'])
        self.data = models.make_data(cfg['model'])
        self.native = None
        if on_intel64:
            self.native = intel64.native()
            self.info.update(
                onednn_version=self.native.onednn_version_string(),
                onednn_isa=self.native.isa(),
                onednn_threads=self.native.num_threads())
            if cfg['device']:
                self.model.to_intel64()
                if 'xs' in self.data:
                    dev = cpuframe.get_device('@intel64')
                    self.data['xs'] = [dev.send(x) for x in self.data['xs']]
            self.info['on_intel64_device'] = bool(cfg['device'])
        self.routes = None
        self.storage = None
        self.creations_start = self._creations()
        self.creations_timed = None

    def _creations(self):
        if self.native is None:
            return None
        return int(self.native.primitive_cache_stats()['creations'])

    def step(self, count_routes=False):
        restore = bf16h.count_routes(self) if count_routes else None
        if count_routes and self.path in INTEL64_PATHS:
            restore = bf16h.chain(restore, bf16h.count_storage(self))
        try:
            self.model.cleargrads()
            bf16h.touch_weights(self.model)  # as after an update
            t0 = time.perf_counter()
            loss = self.model.loss(self.data)
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
        finally:
            if restore is not None:
                restore()
        return t1 - t0, t2 - t0

    def mark_timed(self):
        self.creations_timed = self._creations()

    def extra(self):
        out = dict(self.info)
        if self.routes is not None:
            out['routes'] = self.routes
        if self.storage is not None:
            # Op outputs of the first iteration by how they are stored
            # ('bfloat16' under mixed_bf16 where a bf16 route ran).
            out['output_storage'] = self.storage
        creations = self._creations()
        if creations is not None:
            out['primitive_creations'] = creations - self.creations_start
            if self.creations_timed is not None:
                out['primitive_creations_timed'] = \
                    creations - self.creations_timed
        return out


class _TorchRunner:
    """The PyTorch twin; ``torch_bf16``: forward and loss under
    ``torch.autocast('cpu', dtype=torch.bfloat16)`` (parameters stay float32),
    backward outside it, as PyTorch recommends. No channels_last for RNNs."""

    def __init__(self, cfg):
        import torch

        models = _sibling('models')
        torch_models = _sibling('torch_models')
        torch.set_num_threads(cfg['threads'])
        torch.manual_seed(0)
        self.skip_reason = None
        self.model, self.loss_fn, self.tensors = torch_models.build(
            cfg['model'], models, models.make_data(cfg['model']))
        self.model.train()
        self.torch = torch
        self.bf16 = cfg['path'] == 'torch_bf16'
        self.info = {'torch_version': torch.__version__,
                     'torch_threads': torch.get_num_threads(),
                     'python': sys.executable}
        if self.bf16:
            self.info['dtype'] = 'autocast bfloat16'
            self.info['torch_bf16_support'] = bf16h.torch_bf16_support(torch)

    def _autocast(self):
        return bf16h.torch_autocast(self.torch, self.bf16)

    def step(self, count_routes=False):
        self.model.zero_grad(set_to_none=True)
        t0 = time.perf_counter()
        with self._autocast():
            loss = self.loss_fn(self.model, *self.tensors)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        return t1 - t0, t2 - t0

    def mark_timed(self):
        pass

    def extra(self):
        return dict(self.info)


def worker_main(cfg):
    proto = os.fdopen(os.dup(1), 'w', buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(msg):
        proto.write(_PREFIX + json.dumps(msg) + '\n')
        proto.flush()

    try:
        runner = _TorchRunner(cfg) if cfg['path'] in TORCH_PATHS \
            else _CpuframeRunner(cfg)
    except Exception as e:  # noqa: BLE001 - reported to the parent
        traceback.print_exc()
        send({'status': 'error', 'reason': bf16h.one_line(e)})
        return 1
    if runner.skip_reason:
        send({'status': 'skipped', 'reason': runner.skip_reason})
        return 0
    send({'status': 'ready'})
    import gc
    first = True
    for line in sys.stdin:
        command = line.strip()
        if command == 'timed':
            runner.mark_timed()
            send({'status': 'ok'})
        elif command == 'step':
            gc.collect()
            try:
                fwd, fwdbwd = runner.step(count_routes=first)
            except Exception as e:  # noqa: BLE001 - reported to the parent
                traceback.print_exc()
                send({'status': 'error', 'reason': bf16h.one_line(e)})
                return 1
            first = False
            send({'status': 'ok', 'fwd': fwd, 'fwdbwd': fwdbwd})
        elif command == 'finish':
            send({'status': 'done', 'extra': runner.extra()})
            return 0
    return 1


# ---------------------------------------------------------------------------
# Parent side
# ---------------------------------------------------------------------------

class _Worker:
    def __init__(self, python, cfg, env, log_dir, timeout):
        self.path = cfg['path']
        self.timeout = timeout
        self.log_path = Path(log_dir) / '{}_{}.log'.format(cfg['model'],
                                                            cfg['path'])
        self.log = open(self.log_path, 'w')
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), '--worker',
             json.dumps(cfg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            env=env, text=True, bufsize=1)
        self.failed = None

    def request(self, command=None):
        if command is not None:
            self.proc.stdin.write(command + '\n')
            self.proc.stdin.flush()
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith(_PREFIX):
                return json.loads(line[len(_PREFIX):])
        return {'status': 'error', 'reason': 'the worker died or timed out; '
                'see {}'.format(self.log_path)}

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def _has_torch(python):
    try:
        return subprocess.run(
            [python, '-c', 'import torch'], capture_output=True,
            timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _worker_env(threads):
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = str(threads)
    for var in UNFAIR_BLAS_VARS + DTYPE_VARS:
        env.pop(var, None)
    return env


def _summary(values):
    ms = [v * 1e3 for v in values]
    return {'median': statistics.median(ms), 'min': min(ms), 'all': ms}


def run_model(model, paths, args, pythons, log_dir):
    models = _sibling('models')
    tokens = models.tokens_processed(model, models.make_data(model))
    results = {}
    workers = []
    env = _worker_env(args.threads)
    for path in paths:
        cfg = {'model': model, 'path': path, 'threads': args.threads,
               'device': not args.no_device}
        if pythons.get(path) is None:
            results[path] = {'skipped': 'torch is not importable (pass '
                             '--torch-python)', 'fwd_ms': None,
                             'fwdbwd_ms': None}
            continue
        workers.append(_Worker(pythons[path], cfg, env, log_dir,
                               args.timeout))
    live = []
    for w in workers:
        msg = w.request()
        if msg['status'] == 'ready':
            live.append(w)
        else:
            key = 'skipped' if msg['status'] == 'skipped' else 'error'
            results[w.path] = {key: msg.get('reason'), 'fwd_ms': None,
                               'fwdbwd_ms': None}
            w.close()
    times = {w.path: ([], []) for w in live}
    for it in range(args.warmup + args.iters):
        if it == args.warmup:
            for w in live:
                w.request('timed')
        # Rotate who goes first, so no path always follows the same one.
        shift = it % len(live) if live else 0
        for w in live[shift:] + live[:shift]:
            if len(live) > 1 and args.settle > 0:
                # Let the previous worker's BLAS/OpenMP threads stop
                # spinning before this one starts.
                time.sleep(args.settle)
            msg = w.request('step')
            if msg['status'] != 'ok':
                results[w.path] = {'error': msg.get('reason'), 'fwd_ms': None,
                                   'fwdbwd_ms': None}
                live.remove(w)
                w.close()
                continue
            if it >= args.warmup:
                times[w.path][0].append(msg['fwd'])
                times[w.path][1].append(msg['fwdbwd'])
    for w in live:
        msg = w.request('finish')
        fwd, fwdbwd = _summary(times[w.path][0]), _summary(times[w.path][1])
        results[w.path] = {
            'fwd_ms': fwd['median'], 'fwdbwd_ms': fwdbwd['median'],
            'fwd_ms_min': fwd['min'], 'fwdbwd_ms_min': fwdbwd['min'],
            'fwdbwd_ms_all': fwdbwd['all'],
            'tokens_per_s': tokens / (fwdbwd['median'] / 1e3),
            'extra': msg.get('extra', {})}
        w.close()
    paths_out = {p: results[p] for p in paths if p in results}
    return {'tokens_per_iteration': tokens, 'paths': paths_out,
            'ratios': model_ratios(paths_out)}


def _ratio(a, b):
    """How many times faster ``a`` is than ``b`` (times in ms), or None."""
    if not a or not b:
        return None
    return b / a


#: (key, faster path, slower path): key's value is how many times faster.
RATIOS = (('intel64_over_numpy', 'intel64', 'numpy'),
          ('intel64_over_torch', 'intel64', 'torch'),
          ('intel64_bf16_over_intel64', 'intel64_bf16', 'intel64'),
          ('intel64_bf16_over_torch_bf16', 'intel64_bf16', 'torch_bf16'))


def model_ratios(paths):
    """Speed-ups (the other path's median time / this path's), None if absent."""
    return {key: {k: _ratio((paths.get(a) or {}).get(k + '_ms'),
                            (paths.get(b) or {}).get(k + '_ms'))
                  for k in ('fwd', 'fwdbwd')}
            for key, a, b in RATIOS}


def _fmt(v, spec='{:.1f}'):
    return '-' if v is None else spec.format(v)


def _fmt_dict(d):
    if not isinstance(d, dict):
        return str(d)
    return ', '.join('{}={}'.format(k, v) for k, v in d.items())


def print_table(report):
    head = ('model', 'path', 'fwd ms', 'fwd+bwd ms', 'min fwd+bwd',
            'tokens/s', 'vs numpy', 'vs torch')
    rows = [head]
    for model, res in report['results'].items():
        paths = res['paths']
        base = paths.get('numpy', {}).get('fwdbwd_ms')
        torch_ms = paths.get('torch', {}).get('fwdbwd_ms')
        for path, r in paths.items():
            ms = r.get('fwdbwd_ms')
            note = r.get('skipped') or r.get('error')
            rows.append((
                model, path, _fmt(r.get('fwd_ms')), _fmt(ms),
                _fmt(r.get('fwdbwd_ms_min')),
                _fmt(r.get('tokens_per_s'), '{:.0f}'),
                _fmt(base / ms if ms and base else None, '{:.2f}x'),
                _fmt(torch_ms / ms if ms and torch_ms else None,
                     '{:.2f}x')) + ((note,) if note else ()))
    widths = [max(len(str(r[i])) for r in rows if i < len(r))
              for i in range(len(head))]
    for r in rows:
        cells = ['{:<{}}'.format(str(c), widths[i]) if i < len(head) else
                 str(c) for i, c in enumerate(r)]
        print('  '.join(cells).rstrip())
    for model, res in report['results'].items():
        for path in ('intel64_bf16', 'torch_bf16'):
            r = res['paths'].get(path) or {}
            extra = r.get('extra') or {}
            support = extra.get('bf16_support') or extra.get('torch_bf16_support')
            storage = extra.get('output_storage')
            if support or storage:
                print('{} {}: {}{}'.format(
                    model, path,
                    'op outputs by storage {}; '.format(_fmt_dict(storage))
                    if storage else '',
                    'bfloat16 support {}'.format(_fmt_dict(support))
                    if support else 'bf16_support() not reported'))
        ratios = res.get('ratios') or {}
        for key, what in (('intel64_bf16_over_intel64', 'over intel64 (float32)'),
                          ('intel64_bf16_over_torch_bf16', 'over torch_bf16')):
            rb = ratios.get(key) or {}
            if rb.get('fwdbwd') is not None:
                print('{} speed-up intel64_bf16 {}: fwd {}, fwd+bwd {}  '
                      '(>1: intel64_bf16 faster)'.format(
                          model, what, _fmt(rb.get('fwd'), '{:.2f}x'),
                          _fmt(rb['fwdbwd'], '{:.2f}x')))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--models', default=','.join(DEFAULT_MODELS))
    ap.add_argument('--paths', default=','.join(DEFAULT_PATHS),
                    help='comma-separated, of ' + ','.join(PATHS)
                    + ' (default: ' + ','.join(DEFAULT_PATHS) + ')')
    ap.add_argument('--iters', type=int, default=5)
    ap.add_argument('--warmup', type=int, default=2)
    ap.add_argument('--threads', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--torch-python', default=None,
                    help='a Python with torch for the torch path (default: '
                    'this one when it can import torch)')
    ap.add_argument('--no-device', action='store_true',
                    help='intel64 path on NumPy arrays (routes still taken) '
                    'instead of the model on the Intel64 device')
    ap.add_argument('--json', default=None)
    ap.add_argument('--settle', type=float, default=0.2,
                    help='seconds of pause before each worker\'s step')
    ap.add_argument('--timeout', type=float, default=1800.0,
                    help='seconds a worker may take for one request')
    ap.add_argument('--worker', default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        return worker_main(json.loads(args.worker))

    models = [m for m in args.models.split(',') if m]
    paths = [p for p in args.paths.split(',') if p]
    known = _sibling('models').MODELS
    for m in models:
        if m not in known:
            ap.error('unknown model {!r}; expected some of {}'.format(m, known))
    for p in paths:
        if p not in PATHS:
            ap.error('unknown path {!r}; expected some of {}'.format(p, PATHS))
    pythons = {'intel64': sys.executable, 'numpy': sys.executable,
               'intel64_bf16': sys.executable}
    if any(p in TORCH_PATHS for p in paths):
        cand = args.torch_python or sys.executable
        torch_python = cand if _has_torch(cand) else None
        for p in TORCH_PATHS:
            pythons[p] = torch_python

    load_before = os.getloadavg()
    report = {
        'command': ' '.join([Path(sys.executable).name] + sys.argv),
        'machine': {'cpus': os.cpu_count(), 'platform': platform.platform(),
                    'processor': platform.processor(),
                    'loadavg_start': load_before},
        'config': {'threads': args.threads, 'iters': args.iters,
                   'warmup': args.warmup, 'intel64_device': not args.no_device,
                   'paths': paths,
                   'unset_for_workers': list(UNFAIR_BLAS_VARS + DTYPE_VARS)},
        'results': {}}
    with tempfile.TemporaryDirectory(prefix='rnnbench_') as log_dir:
        for model in models:
            print('running {} ...'.format(model), file=sys.stderr, flush=True)
            report['results'][model] = run_model(model, paths, args, pythons,
                                                 log_dir)
            for path, r in report['results'][model]['paths'].items():
                if r.get('error'):
                    log = Path(log_dir) / '{}_{}.log'.format(model, path)
                    if log.exists():
                        r['log_tail'] = log.read_text()[-2000:]
    report['machine']['loadavg_end'] = os.getloadavg()
    print_table(report)
    print('load average at start {:.2f}, at end {:.2f} ({} cpus)'.format(
        load_before[0], report['machine']['loadavg_end'][0], os.cpu_count()))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
