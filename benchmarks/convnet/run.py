"""convnet-benchmarks for cpuframe: the intel64 (oneDNN) path against the NumPy
path and PyTorch eager (NCHW and channels_last), on the classic models; with
``--paths ...,intel64_bf16,torch_bf16`` also both in bfloat16 mixed precision
(cpuframe's ``config.dtype = mixed_bf16``, PyTorch's ``torch.autocast``).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
        python benchmarks/convnet/run.py --models alexnet,vgg_a --batch 16 \\
        --iters 10 --warmup 2 --threads 2 --json out.json

Each path runs in its own worker process, so its peak RSS is its own; by
default all workers of a model are started together and driven one training
iteration at a time in turn (interleaved), so a change in the machine's load
falls on every path alike.  One iteration is: clear the gradients, forward +
softmax cross entropy (timed as "fwd"), backward (forward + backward timed as
"fwdbwd").  Warm-up iterations are not counted.  See README.md.
"""
import argparse
import importlib.metadata
import importlib.util
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent

ALL_MODELS = ('alexnet', 'overfeat', 'vgg_a', 'googlenet', 'resnet50')
ALL_PATHS = ('intel64', 'numpy', 'torch_nchw', 'torch_channels_last',
             'intel64_bf16', 'torch_bf16', 'torch_compile')
#: What ``--paths`` runs when not given: the float32 paths (the bfloat16 ones
#: are asked for by name).
DEFAULT_PATHS = ('intel64', 'numpy', 'torch_nchw', 'torch_channels_last')
TORCH_PATHS = ('torch_nchw', 'torch_channels_last', 'torch_bf16',
               'torch_compile')
#: The float32 PyTorch paths, of which ``intel64_over_best_torch`` takes the best.
TORCH_FP32_PATHS = ('torch_nchw', 'torch_channels_last')
CPUFRAME_PATHS = ('intel64', 'numpy', 'intel64_bf16')
#: The cpuframe paths on the Intel64 device (``use_ideep='always'``).
INTEL64_PATHS = ('intel64', 'intel64_bf16')
#: bfloat16 mixed precision: cpuframe's ``mixed_bf16``, PyTorch's autocast.
BF16_PATHS = ('intel64_bf16', 'torch_bf16')
#: Removed from the workers' environment: each path sets its own dtype.
DTYPE_VARS = ('CPUFRAME_DTYPE', 'CHAINER_DTYPE')
#: Keys every path entry of the JSON has (None when the path did not run).
REQUIRED_KEYS = ('fwd_ms', 'fwdbwd_ms', 'gflops', 'peak_rss_mb')
THREAD_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')
#: Set in this environment, they slow OpenBLAS down by 35-40 % (NATIVE_BUILD.md).
UNFAIR_BLAS_VARS = ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')
_PROTOCOL_PREFIX = '@@convnet '


def _ensure_cpuframe_importable():
    # An installed cpuframe (with its built native module) wins; otherwise
    # use the checkout this script lives in.
    if importlib.util.find_spec('cpuframe') is None:
        sys.path.insert(0, str(REPO_ROOT))


def _sibling(name, folder=HERE):
    """Import ``<folder>/<name>.py`` (this harness's folder by default)
    under a name of its own."""
    key = 'cpuframe_convnet_bench_' + name if folder == HERE else \
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


def _rss_peak_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_rss_peak():
    """Reset the kernel's peak-RSS mark (Linux >= 4.0); False if impossible."""
    try:
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------
# Worker side: one process per (model, path).
# ---------------------------------------------------------------------------

class _CpuframeRunner:
    """One training iteration of a cpuframe model, on the intel64 or NumPy path."""

    def __init__(self, cfg):
        _ensure_cpuframe_importable()
        import numpy

        import cpuframe
        from cpuframe.backends import intel64

        self.info = {'cpuframe': str(Path(cpuframe.__file__).parent)}
        self.path = cfg['path']
        self.skip_reason = None
        on_intel64 = self.path in INTEL64_PATHS
        if on_intel64 and not intel64.is_ideep_available():
            self.skip_reason = ('the oneDNN native module cpuframe._dnnl is not '
                                'available: {}'.format(intel64.unavailable_reason()))
            return
        models = _sibling('models')
        flops = _sibling('flops')
        cpuframe.global_config.use_ideep = 'always' if on_intel64 else 'never'
        if self.path == 'intel64_bf16':
            # Before the model is built: the links read config.dtype.
            cpuframe.global_config.dtype = bf16h.mixed_bf16(cpuframe)
            self.info['bf16_support'] = bf16h.bf16_support(intel64)
        self.info['dtype'] = bf16h.dtype_name(cpuframe.config.dtype)
        self.cpuframe = cpuframe
        self.F = cpuframe.functions
        self.model = models.build(cfg['model'], cfg['insize'])
        self.flops_fwd_per_image = flops.model_flops(self.model, cfg['insize'])
        x, t = _make_batch(numpy, cfg)
        self.native = None
        if on_intel64:
            from cpuframe import _native
            self.native = _native.load()
            self.model.to_intel64()
            x = cpuframe.get_device('@intel64').send(x)
            self.info.update(_native_info(self.native))
        self.x, self.t = x, t
        self.routes = None
        self.storage = None
        self._creations_start = self._creations()

    def _creations(self):
        if self.native is None or not hasattr(self.native, 'primitive_cache_stats'):
            return None
        return int(self.native.primitive_cache_stats()['creations'])

    def step(self, count_routes=False):
        self.model.cleargrads()
        bf16h.touch_weights(self.model)  # as after an update
        restore = bf16h.count_routes(self) if count_routes else None
        if count_routes and self.path in INTEL64_PATHS:
            restore = bf16h.chain(restore, bf16h.count_storage(self))
        try:
            t0 = time.perf_counter()
            y = self.model(self.x)
            loss = self.F.softmax_cross_entropy(y, self.t)
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
        finally:
            if restore is not None:
                restore()
        return t1 - t0, t2 - t0

    def mark_timed_start(self):
        self._creations_timed_start = self._creations()

    def profile(self):
        """Each op's time and arrays in one step (roofline.profile_step)."""
        return _sibling('roofline').profile_step(self.step, iterations=2)

    def extra(self):
        out = dict(self.info)
        if self.routes is not None:
            out['routes'] = self.routes
            out['op_calls'] = sum(sum(v.values()) for v in self.routes.values())
            out['onednn_op_calls'] = sum(v.get('intel64', 0)
                                         for v in self.routes.values())
        if self.storage is not None:
            # Op outputs of the first iteration by how they are stored
            # ('bfloat16' under mixed_bf16 where a bf16 route ran).
            out['output_storage'] = self.storage
        creations = self._creations()
        if creations is not None:
            out['primitive_creations'] = creations - self._creations_start
            out['primitive_creations_timed'] = (
                creations - self._creations_timed_start)
        if self.path == 'numpy':
            out['path_used'] = 'numpy'
            if out.get('onednn_op_calls'):
                out['path_used'] = 'mixed'
        else:
            used = (out.get('primitive_creations') or 0) > 0 or \
                (out.get('onednn_op_calls') or 0) > 0
            out['path_used'] = 'onednn' if used else 'numpy-fallback'
        return out


def _native_info(native):
    info = {}
    for key, fn in (('onednn_version', 'onednn_version_string'),
                    ('onednn_isa', 'isa'), ('onednn_threads', 'num_threads')):
        if hasattr(native, fn):
            try:
                info[key] = getattr(native, fn)()
            except Exception as e:  # noqa: BLE001 - informational only
                info[key] = 'error: {}'.format(e)
    return info


class _TorchRunner:
    """One training iteration of the PyTorch twin, NCHW or channels_last.

    ``torch_bf16``: channels_last, forward and loss under
    ``torch.autocast('cpu', dtype=torch.bfloat16)`` (the parameters stay
    float32), backward outside the autocast region as PyTorch recommends.
    """

    def __init__(self, cfg):
        import numpy
        import torch
        import torch.nn.functional as F

        torch.set_num_threads(cfg['threads'])
        torch_models = _sibling('torch_models')
        self.torch, self.F = torch, F
        self.skip_reason = None
        torch.manual_seed(0)
        self.model = torch_models.build(cfg['model'], cfg['insize'])
        self.flops_fwd_per_image = torch_models.count_flops(
            self.model, torch.zeros(1, 3, cfg['insize'], cfg['insize']))
        self.model.train()
        x, t = _make_batch(numpy, cfg)
        self.x = torch.from_numpy(x)
        self.t = torch.from_numpy(t).long()
        if cfg['path'] in ('torch_channels_last', 'torch_bf16'):
            self.model = self.model.to(memory_format=torch.channels_last)
            self.x = self.x.contiguous(memory_format=torch.channels_last)
        self.bf16 = cfg['path'] == 'torch_bf16'
        self.info = {'torch_version': torch.__version__,
                     'torch_threads': torch.get_num_threads(),
                     'path_used': 'torch'}
        if self.bf16:
            self.info['dtype'] = 'autocast bfloat16'
            self.info['torch_bf16_support'] = bf16h.torch_bf16_support(torch)
        if cfg['path'] == 'torch_compile':
            # torch.compile of the model (inductor; the backward compiled by
            # AOTAutograd on the first call), loss and backward called as
            # in eager. The first step compiles: timed here, apart.
            self.model = torch.compile(self.model)
            t0 = time.perf_counter()
            self.step()
            self.info['compile_s'] = time.perf_counter() - t0
            self.info['path_used'] = 'torch.compile'

    def _autocast(self):
        return bf16h.torch_autocast(self.torch, self.bf16)

    def step(self, count_routes=False):
        self.model.zero_grad(set_to_none=True)
        t0 = time.perf_counter()
        with self._autocast():
            y = self.model(self.x)
            loss = self.F.cross_entropy(y, self.t)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        return t1 - t0, t2 - t0

    def mark_timed_start(self):
        pass

    def extra(self):
        return dict(self.info)


def _make_batch(numpy, cfg):
    rng = numpy.random.RandomState(0)
    n, s = cfg['batch'], cfg['insize']
    x = rng.standard_normal((n, 3, s, s)).astype(numpy.float32)
    t = rng.randint(0, 1000, size=n).astype(numpy.int32)
    return x, t


def worker_main(cfg):
    """Serve the parent: build, then one iteration per request; see _Worker."""
    # Our replies go to the real stdout; anything a library prints (oneDNN's
    # verbose mode prints to stdout) goes to stderr, the log.
    proto = os.fdopen(os.dup(1), 'w', buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(msg):
        proto.write(_PROTOCOL_PREFIX + json.dumps(msg) + '\n')
        proto.flush()

    try:
        if cfg['path'] in TORCH_PATHS:
            runner = _TorchRunner(cfg)
        else:
            runner = _CpuframeRunner(cfg)
    except Exception as e:  # noqa: BLE001 - reported to the parent
        traceback.print_exc()
        send({'status': 'error', 'reason': bf16h.one_line(e)})
        return 1
    if runner.skip_reason:
        send({'status': 'skipped', 'reason': runner.skip_reason})
        return 0
    import gc
    gc.collect()
    build_peak = _rss_peak_mb()
    reset = _reset_rss_peak()
    send({'status': 'ready', 'flops_fwd_per_image': runner.flops_fwd_per_image,
          'build_peak_rss_mb': build_peak, 'rss_peak_reset': reset,
          'baseline_rss_mb': _rss_peak_mb()})
    first = True
    peak_before_profile = None
    for line in sys.stdin:
        command = line.strip()
        if command == 'timed':
            runner.mark_timed_start()
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
        elif command == 'profile':
            # The roofline's per-op profile, after the timed iterations; the
            # peak RSS reported is the timed iterations'.
            peak_before_profile = _rss_peak_mb()
            try:
                records = runner.profile()
            except Exception as e:  # noqa: BLE001 - reported to the parent
                traceback.print_exc()
                send({'status': 'error', 'reason': bf16h.one_line(e)})
                return 1
            send({'status': 'ok', 'records': records})
        elif command == 'finish':
            peak = _rss_peak_mb()
            if peak_before_profile is not None:
                peak = peak_before_profile
            send({'status': 'done', 'peak_rss_mb': peak,
                  'extra': runner.extra()})
            return 0
    return 1


# ---------------------------------------------------------------------------
# Parent side.
# ---------------------------------------------------------------------------

class _Worker:
    """A worker process for one (model, path), driven by line requests."""

    def __init__(self, cfg, env, log_dir, timeout):
        self.path = cfg['path']
        self.timeout = timeout
        name = '{}_{}.log'.format(cfg['model'], cfg['path'])
        self.log_path = Path(log_dir) / name
        self.log = open(self.log_path, 'w')
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), '--worker',
             json.dumps(cfg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            env=env, text=True, bufsize=1)
        self.result = {'status': 'starting'}
        self.fwd, self.fwdbwd = [], []

    def request(self, command=None):
        """Send ``command`` (if any) and return the reply, or an error reply."""
        try:
            if command is not None:
                self.proc.stdin.write(command + '\n')
                self.proc.stdin.flush()
            while True:
                ready, _, _ = select.select([self.proc.stdout], [], [],
                                            self.timeout)
                if not ready:
                    self.kill()
                    return {'status': 'error', 'reason': 'no reply within '
                            '{} s (--timeout)'.format(self.timeout)}
                line = self.proc.stdout.readline()
                if not line:
                    self.proc.wait()
                    return {'status': 'error', 'reason': 'worker exited '
                            '(code {}): {}'.format(self.proc.returncode,
                                                   self.log_tail())}
                if line.startswith(_PROTOCOL_PREFIX):
                    return json.loads(line[len(_PROTOCOL_PREFIX):])
        except (BrokenPipeError, OSError) as e:
            return {'status': 'error', 'reason': 'worker pipe: {}; {}'.format(
                e, self.log_tail())}

    def log_tail(self, n=3):
        self.log.flush()
        try:
            lines = self.log_path.read_text(errors='replace').strip().splitlines()
        except OSError:
            return ''
        return ' | '.join(lines[-n:])

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.log.close()


def _worker_env(threads):
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = str(threads)
    for var in DTYPE_VARS:
        env.pop(var, None)
    return env


def _torch_version():
    if importlib.util.find_spec('torch') is None:
        return None
    try:
        return importlib.metadata.version('torch')
    except Exception:  # noqa: BLE001 - a torch without metadata still runs
        return 'unknown'


def _run_group(model, paths, args, insize, log_dir, results):
    """Start one worker per path, run the iterations (interleaved), collect."""
    env = _worker_env(args.threads)
    workers = []
    for path in paths:
        if path in TORCH_PATHS and _torch_version() is None:
            results[path] = {'status': 'skipped', 'reason':
                             'torch is not installed in this Python (pip install '
                             'torch==2.13.0 into a separate venv; see README.md)'}
            continue
        cfg = {'model': model, 'path': path, 'insize': insize,
               'batch': args.batch, 'threads': args.threads}
        workers.append(_Worker(cfg, env, log_dir, args.timeout))
    live = []
    for w in workers:
        reply = w.request()
        if reply.get('status') == 'ready':
            w.result = reply
            live.append(w)
        else:
            results[w.path] = reply
            w.close()
    try:
        total = args.warmup + args.iters
        for i in range(total):
            if i == args.warmup:
                for w in list(live):
                    _check_reply(w, w.request('timed'), live, results)
            # Rotate who goes first, so no path always follows the same one.
            order = live[i % len(live):] + live[:i % len(live)] if live else []
            for w in order:
                if len(live) > 1 and args.settle > 0:
                    # Let the previous worker's BLAS/OpenMP threads stop
                    # spinning before this one starts.
                    time.sleep(args.settle)
                reply = w.request('step')
                if _check_reply(w, reply, live, results) and i >= args.warmup:
                    w.fwd.append(reply['fwd'])
                    w.fwdbwd.append(reply['fwdbwd'])
        if args.roofline:
            for w in list(live):
                if w.path in CPUFRAME_PATHS:
                    reply = w.request('profile')
                    if _check_reply(w, reply, live, results):
                        w.records = reply['records']
        for w in list(live):
            reply = w.request('finish')
            if _check_reply(w, reply, live, results):
                results[w.path] = _path_result(w, reply, args)
                if getattr(w, 'records', None) is not None:
                    results[w.path]['_records'] = w.records
                live.remove(w)
    finally:
        for w in workers:
            w.close()


def _check_reply(w, reply, live, results):
    if reply.get('status') in ('ok', 'done'):
        return True
    results[w.path] = reply
    if w in live:
        live.remove(w)
    w.close()
    return False


def _path_result(w, done, args):
    ready = w.result
    res = {'status': 'ok'}
    for key, samples in (('fwd_ms', w.fwd), ('fwdbwd_ms', w.fwdbwd)):
        ms = [1000.0 * s for s in samples]
        res[key] = statistics.median(ms) if ms else None
        res[key + '_min'] = min(ms) if ms else None
        res[key + '_max'] = max(ms) if ms else None
        res[key + '_samples'] = ms
    res['gflops'] = None
    res['fwd_gflops'] = None
    res['peak_rss_mb'] = done['peak_rss_mb']
    res['baseline_rss_mb'] = ready['baseline_rss_mb']
    res['iteration_rss_mb'] = done['peak_rss_mb'] - ready['baseline_rss_mb']
    res['build_peak_rss_mb'] = ready['build_peak_rss_mb']
    res['rss_peak_reset'] = ready['rss_peak_reset']
    res['flops_fwd_per_image'] = ready['flops_fwd_per_image']
    res['threads'] = args.threads
    res['iters'] = len(w.fwd)
    res['warmup'] = args.warmup
    res.update(done.get('extra', {}))
    return res


def _measure_peaks(args):
    """roofline.measure_peaks in a process with the workers' threads."""
    proc = subprocess.run(
        [sys.executable, str(HERE / 'roofline.py'), '--peaks', '--threads',
         str(args.threads), '--scale', str(args.roofline_scale)],
        env=_worker_env(args.threads),
        capture_output=True, text=True, timeout=args.timeout)
    if proc.returncode != 0:
        raise RuntimeError('measuring the roofline peaks failed: ' +
                           proc.stderr.strip()[-500:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: Where a path without its own profile takes its limit from (the same
#: model's ops in the same precision).
_LIMIT_FROM = {'torch_nchw': ('intel64', 'numpy'),
               'torch_channels_last': ('intel64', 'numpy'),
               'torch_compile': ('intel64', 'numpy'),
               'torch_bf16': ('intel64_bf16',)}


def _roofline(paths, peaks):
    """Each path's roofline summary (roofline.summarize); the raw records
    are dropped from the entries."""
    rl = _sibling('roofline')
    out = {}
    for path, e in paths.items():
        records = e.pop('_records', None)
        if records is not None and e.get('status') == 'ok':
            out[path] = rl.summarize(records, peaks, e['fwdbwd_ms'] / 1e3)
    for path, sources in _LIMIT_FROM.items():
        e = paths.get(path) or {}
        src = next((p for p in sources if p in out), None)
        if e.get('status') != 'ok' or src is None:
            continue
        base = out[src]
        out[path] = {
            'step_ms': e['fwdbwd_ms'], 'limit_ms': base['limit_ms'],
            'ratio': e['fwdbwd_ms'] / base['limit_ms'] if base['limit_ms']
            else None, 'compute_bound_ms': base['compute_bound_ms'],
            'memory_bound_ms': base['memory_bound_ms'], 'limit_from': src,
            'top': []}
    return {'paths': out}


def _fill_gflops(entry, flops_fwd):
    if entry.get('status') != 'ok' or not flops_fwd:
        return
    factor = _sibling('flops').FWDBWD_FACTOR
    if entry['fwd_ms']:
        entry['fwd_gflops'] = flops_fwd / (entry['fwd_ms'] * 1e-3) / 1e9
    if entry['fwdbwd_ms']:
        entry['gflops'] = factor * flops_fwd / (entry['fwdbwd_ms'] * 1e-3) / 1e9


def _normalize(entry):
    out = dict(entry)
    for key in REQUIRED_KEYS:
        out.setdefault(key, None)
    return out


def _ratio(a, b):
    """How many times faster ``a`` is than ``b`` (times in ms), or None."""
    if not a or not b:
        return None
    return b / a


def _model_ratios(paths):
    ratios = {}
    cf = paths.get('intel64', {})
    np_ = paths.get('numpy', {})
    ratios['intel64_over_numpy'] = {
        k: _ratio(cf.get(k + '_ms'), np_.get(k + '_ms')) for k in ('fwd', 'fwdbwd')}
    best = None
    for p in TORCH_FP32_PATHS:
        ms = paths.get(p, {}).get('fwdbwd_ms')
        if ms and (best is None or ms < paths[best]['fwdbwd_ms']):
            best = p
    ratios['intel64_over_best_torch'] = {
        'best_torch_path': best,
        'fwd': _ratio(cf.get('fwd_ms'),
                      min((paths[p]['fwd_ms'] for p in TORCH_FP32_PATHS
                           if (paths.get(p) or {}).get('fwd_ms')), default=None)),
        'fwdbwd': _ratio(cf.get('fwdbwd_ms'),
                         paths[best]['fwdbwd_ms'] if best else None),
    }
    ratios['intel64_over_torch_compile'] = {
        k: _ratio(cf.get(k + '_ms'),
                  paths.get('torch_compile', {}).get(k + '_ms'))
        for k in ('fwd', 'fwdbwd')}
    # bfloat16: >1 means intel64_bf16 is faster than the other path.
    bf = paths.get('intel64_bf16', {})
    for name, other in (('intel64_bf16_over_intel64', cf),
                        ('intel64_bf16_over_torch_bf16',
                         paths.get('torch_bf16', {}))):
        ratios[name] = {k: _ratio(bf.get(k + '_ms'), other.get(k + '_ms'))
                        for k in ('fwd', 'fwdbwd')}
    return ratios


def _fmt(v, spec='{:.1f}', none='-'):
    return none if v is None else spec.format(v)


def _dtype_note(entry):
    dtype = entry.get('dtype')
    if entry.get('status') != 'ok' or dtype in (None, 'float32'):
        return ''
    return ' [{}]'.format(dtype)


def _fmt_dict(d):
    if not isinstance(d, dict):
        return str(d)
    return ', '.join('{}={}'.format(k, v) for k, v in d.items())


def _ran_on(entry):
    status = entry.get('status')
    if status != 'ok':
        return '{}: {}'.format(status, entry.get('reason', ''))
    used = entry.get('path_used')
    if used == 'onednn':
        parts = ['oneDNN']
        if entry.get('op_calls'):
            parts.append('{}/{} op calls'.format(entry['onednn_op_calls'],
                                                 entry['op_calls']))
        if entry.get('primitive_creations') is not None:
            parts.append('{} primitives, {} new while timed'.format(
                entry['primitive_creations'], entry['primitive_creations_timed']))
        return parts[0] + ' (' + ', '.join(parts[1:]) + ')' if parts[1:] else parts[0]
    if used == 'numpy-fallback':
        return 'NumPy FALLBACK ({}/{} op calls on oneDNN)'.format(
            entry.get('onednn_op_calls', 0), entry.get('op_calls', '?'))
    if used == 'torch':
        return 'torch {}'.format(entry.get('torch_version'))
    if used == 'torch.compile':
        return 'torch.compile {} (compiled in {:.1f} s)'.format(
            entry.get('torch_version'), entry.get('compile_s') or 0.0)
    return used or '?'


def _numpy_routed_ops(entry):
    routes = entry.get('routes') or {}
    return ', '.join('{} x{}'.format(op, n['numpy'])
                     for op, n in sorted(routes.items()) if n.get('numpy'))


def _print_model(name, insize, batch, paths, info, out):
    flops = info.get('gflop_fwd')
    head = '== {}  input {}x3x{}x{}'.format(name, batch, insize, insize)
    if flops:
        head += '  {:.2f} GFLOP fwd, {:.2f} fwd+bwd per batch'.format(
            flops, info['gflop_fwdbwd'])
    print(head + ' ==', file=out)
    print('{:<20} {:>27} {:>28} {:>8} {:>8} {:>8} {:>8}  {}'.format(
        'path', 'fwd ms: median [min-max]', 'fwd+bwd ms: median [min-max]',
        'GF/s fwd', 'GF/s f+b', 'peak MB', '+iter MB', 'ran on'), file=out)
    for path, e in paths.items():
        if e.get('status') == 'ok':
            fwd = '{:>9} [{:>7}-{:>7}]'.format(
                _fmt(e['fwd_ms']), _fmt(e['fwd_ms_min']), _fmt(e['fwd_ms_max']))
            fb = '{:>9} [{:>7}-{:>7}]'.format(
                _fmt(e['fwdbwd_ms']), _fmt(e['fwdbwd_ms_min']),
                _fmt(e['fwdbwd_ms_max']))
        else:
            fwd = fb = '-'
        print('{:<20} {:>27} {:>28} {:>8} {:>8} {:>8} {:>8}  {}'.format(
            path, fwd, fb, _fmt(e.get('fwd_gflops')), _fmt(e.get('gflops')),
            _fmt(e.get('peak_rss_mb'), '{:.0f}'),
            _fmt(e.get('iteration_rss_mb'), '{:.0f}'), _ran_on(e)
            + _dtype_note(e)), file=out)
    for path in INTEL64_PATHS:
        fallback = _numpy_routed_ops(paths.get(path, {}))
        if fallback:
            print('  {} ops that took the NumPy route: {}'.format(path, fallback),
                  file=out)
    bf16_entry = paths.get('intel64_bf16') or {}
    if bf16_entry.get('status') == 'ok':
        print('  intel64_bf16: op outputs by storage {}; bf16_support(): {}'.format(
            _fmt_dict(bf16_entry.get('output_storage') or {}) or '?',
            _fmt_dict(bf16_entry['bf16_support'])
            if bf16_entry.get('bf16_support') else 'not reported'), file=out)
    r = info['ratios']
    ion = r['intel64_over_numpy']
    if ion['fwdbwd'] is not None:
        print('  speed-up intel64 over numpy: fwd {}, fwd+bwd {}  '
              '(>1: intel64 faster)'.format(
                  _fmt(ion['fwd'], '{:.2f}x'), _fmt(ion['fwdbwd'], '{:.2f}x')),
              file=out)
    iot = r['intel64_over_best_torch']
    if iot['fwdbwd'] is not None:
        print('  speed-up intel64 over best torch ({}): fwd {}, fwd+bwd {}  '
              '(>1: cpuframe faster)'.format(
                  iot['best_torch_path'], _fmt(iot['fwd'], '{:.2f}x'),
                  _fmt(iot['fwdbwd'], '{:.2f}x')), file=out)
    itc = r.get('intel64_over_torch_compile') or {}
    if itc.get('fwdbwd') is not None:
        print('  speed-up intel64 over torch_compile: fwd {}, fwd+bwd {}  '
              '(>1: cpuframe faster; torch.compile took {:.1f} s, first '
              'step)'.format(_fmt(itc['fwd'], '{:.2f}x'),
                             _fmt(itc['fwdbwd'], '{:.2f}x'),
                             paths['torch_compile'].get('compile_s') or 0.0),
              file=out)
    for key, what, other in (
            ('intel64_bf16_over_intel64', 'intel64_bf16 over intel64 (float32)',
             'bfloat16 faster'),
            ('intel64_bf16_over_torch_bf16', 'intel64_bf16 over torch_bf16',
             'cpuframe faster')):
        rb = r.get(key) or {}
        if rb.get('fwdbwd') is not None:
            print('  speed-up {}: fwd {}, fwd+bwd {}  (>1: {})'.format(
                what, _fmt(rb['fwd'], '{:.2f}x'), _fmt(rb['fwdbwd'], '{:.2f}x'),
                other), file=out)
    if info.get('roofline'):
        _sibling('roofline').print_roofline(info['roofline'], out)
    for warning in info.get('warnings', []):
        print('  WARNING: ' + warning, file=out)
    print(file=out)


def _print_summary(result, paths, args, out):
    print('== summary: fwd+bwd ms (median), batch {}, threads {} =='.format(
        args.batch, args.threads), file=out)
    cols = list(paths)
    bf16_cols = [(k, h) for k, h in (
        ('intel64_bf16_over_intel64', 'bf16/intel64'),
        ('intel64_bf16_over_torch_bf16', 'bf16/torch_bf16'))
        if 'intel64_bf16' in cols]
    print('{:<10} '.format('model') + ' '.join('{:>20}'.format(p) for p in cols)
          + ' {:>14} {:>18}'.format('intel64/numpy', 'intel64/best torch')
          + ''.join(' {:>16}'.format(h) for _, h in bf16_cols),
          file=out)
    for model, entries in result['models'].items():
        r = result['model_info'][model]['ratios']
        print('{:<10} '.format(model)
              + ' '.join('{:>20}'.format(_fmt(entries[p].get('fwdbwd_ms')))
                         for p in cols)
              + ' {:>14} {:>18}'.format(
                  _fmt(r['intel64_over_numpy']['fwdbwd'], '{:.2f}x'),
                  _fmt(r['intel64_over_best_torch']['fwdbwd'], '{:.2f}x'))
              + ''.join(' {:>16}'.format(_fmt(r[k]['fwdbwd'], '{:.2f}x'))
                        for k, _ in bf16_cols),
              file=out)
    print(file=out)


def blas_info():
    """Which BLAS NumPy runs and on which kernel: a dict and a one-line summary."""
    import numpy
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        blas = [i for i in threadpoolctl.threadpool_info()
                if i.get('user_api') == 'blas']
        if blas:
            b = blas[0]
            line = '{} {} ({}), kernel {}, {} threads [threadpoolctl]'.format(
                b.get('internal_api'), b.get('version'),
                Path(b.get('filepath', '?')).name, b.get('architecture'),
                b.get('num_threads'))
            return {'source': 'threadpoolctl', **b}, line
    info = {'source': 'numpy.show_config'}
    try:
        cfg = numpy.show_config(mode='dicts')
        blas = cfg.get('Build Dependencies', {}).get('blas', {})
        info.update({k: blas.get(k)
                     for k in ('name', 'version', 'openblas configuration')})
    except Exception as e:  # noqa: BLE001 - informational only
        info['error'] = bf16h.one_line(e)
    info['architecture'] = _openblas_corename()
    line = '{} {}, kernel {} [numpy.show_config; pip install threadpoolctl ' \
        'for more]'.format(info.get('name'), info.get('version'),
                           info.get('architecture'))
    return info, line


def _openblas_corename():
    """OpenBLAS's kernel name ("SkylakeX", "Haswell"), read from the loaded library."""
    import ctypes
    try:
        with open('/proc/self/maps') as f:
            libs = {line.split()[-1] for line in f if 'openblas' in line.lower()}
    except OSError:
        return None
    for lib in sorted(libs):
        try:
            handle = ctypes.CDLL(lib)
        except OSError:
            continue
        for symbol in ('scipy_openblas_get_corename64_', 'openblas_get_corename64_',
                       'scipy_openblas_get_corename', 'openblas_get_corename'):
            fn = getattr(handle, symbol, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return None


def _environment(args):
    _ensure_cpuframe_importable()
    import numpy

    import cpuframe
    from cpuframe import _native
    blas, blas_line = blas_info()
    env = {
        'python': sys.version.split()[0],
        'executable': sys.executable,
        'numpy': numpy.__version__,
        'blas': blas,
        'cpuframe': str(Path(cpuframe.__file__).parent),
        'native_module': _native.load_error() or 'loaded',
        'torch': _torch_version(),
        'cpu_count': os.cpu_count(),
        'thread_vars': {v: str(args.threads) for v in THREAD_VARS},
        'unfair_blas_vars': {v: os.environ[v] for v in UNFAIR_BLAS_VARS
                             if v in os.environ},
    }
    mod = _native.load()
    if mod is not None:
        env.update(_native_info(mod))
    if any(p in BF16_PATHS for p in args.paths):
        from cpuframe.backends import intel64
        env['bf16_support'] = bf16h.bf16_support(intel64)
        env['has_mixed_bf16'] = getattr(cpuframe, 'mixed_bf16', None) is not None
    env['dtype_vars_removed'] = {v: os.environ[v] for v in DTYPE_VARS
                                 if v in os.environ}
    return env, blas_line


def _print_header(env, blas_line, args, out):
    print('cpuframe convnet benchmarks', file=out)
    print('  cpuframe  {} (native oneDNN module: {})'.format(
        env['cpuframe'], env['native_module']), file=out)
    if env.get('onednn_version'):
        print('  oneDNN    {} isa {}'.format(env['onednn_version'],
                                             env.get('onednn_isa')), file=out)
    print('  numpy     {}; BLAS: {}'.format(env['numpy'], blas_line), file=out)
    print('  torch     {}'.format(env['torch'] or 'not installed: torch paths '
                                  'skipped'), file=out)
    print('  threads   {} ({}=' .format(args.threads, '='.join(THREAD_VARS))
          + '{}, torch.set_num_threads({}))'.format(args.threads, args.threads),
          file=out)
    if 'bf16_support' in env:
        support = env['bf16_support']
        print('  bfloat16  cpuframe.mixed_bf16 {}; intel64 bf16_support(): {}'.format(
            'present' if env['has_mixed_bf16'] else 'MISSING (intel64_bf16 fails)',
            _fmt_dict(support) if support else 'not reported by this cpuframe'),
            file=out)
    if env['dtype_vars_removed']:
        print('  note: {} removed from the workers\' environment (each path '
              'sets its own dtype; use --paths intel64_bf16 for bfloat16)'.format(
                  ', '.join(env['dtype_vars_removed'])), file=out)
    print('  batch {}, {} timed iterations after {} warm-up, {}'.format(
        args.batch, args.iters, args.warmup,
        'paths one after another (--sequential)' if args.sequential else
        'paths interleaved iteration by iteration'), file=out)
    if env['unfair_blas_vars']:
        print('WARNING: {} set: OpenBLAS runs a slower kernel, the NumPy '
              'baseline is 35-40 % slow. For a fair baseline run:\n'
              '  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python '
              'benchmarks/convnet/run.py ...'.format(
                  ' '.join('{}={}'.format(k, v)
                           for k, v in env['unfair_blas_vars'].items())),
              file=out)
    print(file=out)


def validate_result(result):
    """Raise ``ValueError`` unless ``result`` has the documented JSON shape."""
    if not isinstance(result, dict) or not isinstance(result.get('models'), dict):
        raise ValueError('expected {"models": {...}} at the top level')
    for model, paths in result['models'].items():
        if not isinstance(paths, dict) or not paths:
            raise ValueError('models.{}: expected a dict of paths'.format(model))
        for path, entry in paths.items():
            if path not in ALL_PATHS:
                raise ValueError('models.{}: unknown path {!r}'.format(model, path))
            for key in REQUIRED_KEYS:
                if key not in entry:
                    raise ValueError('models.{}.{}: missing {!r}'.format(
                        model, path, key))
                v = entry[key]
                if v is not None and not isinstance(v, (int, float)):
                    raise ValueError('models.{}.{}.{}: expected a number or '
                                     'null, got {!r}'.format(model, path, key, v))


def _parse_list(text, allowed, what):
    items = [s.strip() for s in text.split(',') if s.strip()]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        raise argparse.ArgumentTypeError('unknown {} {}; expected some of {}'.format(
            what, ', '.join(bad) or '(none)', ','.join(allowed)))
    return items


def _default_threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--models', default=','.join(ALL_MODELS),
                   type=lambda s: _parse_list(s, ALL_MODELS, 'model'),
                   help='comma-separated, of ' + ','.join(ALL_MODELS))
    p.add_argument('--paths', default=','.join(DEFAULT_PATHS),
                   type=lambda s: _parse_list(s, ALL_PATHS, 'path'),
                   help='comma-separated, of ' + ','.join(ALL_PATHS)
                   + ' (default: ' + ','.join(DEFAULT_PATHS) + ')')
    p.add_argument('--batch', type=int, default=16)
    p.add_argument('--iters', type=int, default=10, help='timed iterations')
    p.add_argument('--warmup', type=int, default=2, help='untimed iterations first')
    p.add_argument('--threads', type=int, default=_default_threads(),
                   help='threads for every path (OMP/OpenBLAS/MKL/torch); '
                   'default: the CPUs this process may use')
    p.add_argument('--json', metavar='FILE', help='write the results as JSON')
    size = p.add_mutually_exclusive_group()
    size.add_argument('--small', action='store_true',
                      help="each model's smallest input size (smoke test)")
    size.add_argument('--insize', type=int, help='input height/width for every model')
    p.add_argument('--sequential', action='store_true',
                   help='run the paths one after another instead of interleaved '
                   '(only one model in memory at a time)')
    p.add_argument('--settle', type=float, default=0.2,
                   help='seconds of pause before each interleaved step (default 0.2)')
    p.add_argument('--timeout', type=float, default=1800.0,
                   help='seconds a worker may take for one step (default 1800)')
    p.add_argument('--roofline', action='store_true',
                   help='measure the peaks, profile one step of each cpuframe '
                        'path and print each model against its roofline '
                        '(roofline.py)')
    p.add_argument('--roofline-scale', type=int, default=1,
                   help=argparse.SUPPRESS)  # smaller peak problems (tests)
    p.add_argument('--log-dir', help='keep the workers\' stderr logs here')
    p.add_argument('--worker', help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker is None:
        for name in ('batch', 'iters', 'threads'):
            if getattr(args, name) < 1:
                p.error('--{} must be at least 1'.format(name))
        if args.warmup < 0:
            p.error('--warmup must be at least 0')
    return args


def main(argv=None, out=sys.stdout):
    args = parse_args(argv)
    if args.worker is not None:
        return worker_main(json.loads(args.worker))
    for var in THREAD_VARS:
        os.environ[var] = str(args.threads)
    env, blas_line = _environment(args)
    _print_header(env, blas_line, args, out)
    models_mod = _sibling('models')
    result = {'models': {}, 'model_info': {}, 'environment': env,
              'config': {k: getattr(args, k) for k in (
                  'models', 'paths', 'batch', 'iters', 'warmup', 'threads',
                  'small', 'insize', 'sequential', 'settle', 'roofline')}}
    if args.roofline:
        result['roofline_peaks'] = _measure_peaks(args)
        print('roofline peaks ({} threads): {}'.format(
            args.threads, _sibling('roofline').format_peaks(
                result['roofline_peaks'])), file=out)
        print(file=out)
    log_dir = args.log_dir or tempfile.mkdtemp(prefix='convnet_bench_')
    Path(log_dir).mkdir(parents=True, exist_ok=True)
    failed = False
    for model in args.models:
        if args.insize:
            insize = args.insize
        elif args.small:
            insize = models_mod.SMALL_INSIZE[model]
        else:
            insize = models_mod.INSIZE[model]
        results = {}
        groups = [[p] for p in args.paths] if args.sequential else [args.paths]
        for group in groups:
            _run_group(model, group, args, insize, log_dir, results)
        paths = {p: results[p] for p in args.paths}
        failed = failed or any(e.get('status') == 'error' for e in paths.values())
        counts = {p: e['flops_fwd_per_image'] for p, e in paths.items()
                  if e.get('flops_fwd_per_image')}
        info = {'insize': insize, 'batch': args.batch, 'warnings': []}
        if counts:
            per_image = next(iter(counts.values()))
            if len(set(counts.values())) > 1:
                info['warnings'].append('FLOP counts differ between paths: '
                                        '{}'.format(counts))
            info['flops_fwd'] = per_image * args.batch
            info['gflop_fwd'] = info['flops_fwd'] / 1e9
            info['gflop_fwdbwd'] = (_sibling('flops').FWDBWD_FACTOR
                                    * info['gflop_fwd'])
            for e in paths.values():
                _fill_gflops(e, info['flops_fwd'])
        info['ratios'] = _model_ratios(paths)
        if args.roofline:
            info['roofline'] = _roofline(paths, result['roofline_peaks'])
        result['models'][model] = {p: _normalize(e) for p, e in paths.items()}
        result['model_info'][model] = info
        _print_model(model, insize, args.batch, paths, info, out)
        out.flush()
        if args.json:
            _write_json(args.json, result)
    if len(args.models) > 1:
        _print_summary(result, args.paths, args, out)
    if args.log_dir is None and not failed:
        _remove_logs(log_dir)
    else:
        print('worker logs (stderr of each path) in {}'.format(log_dir), file=out)
    if args.json:
        _write_json(args.json, result)
        print('JSON written to {}'.format(args.json), file=out)
    return 0


def _write_json(path, result):
    validate_result(result)
    tmp = '{}.tmp'.format(path)
    with open(tmp, 'w') as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, path)


def _remove_logs(log_dir):
    for f in Path(log_dir).glob('*.log'):
        f.unlink()
    try:
        Path(log_dir).rmdir()
    except OSError:
        pass


if __name__ == '__main__':
    sys.exit(main())
