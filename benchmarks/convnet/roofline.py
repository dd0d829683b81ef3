"""The roofline of a training step: how far each op is from its limit.

For every op of one forward + backward (a ``FunctionHook`` on a profiled
step) this gives its time, its FLOPs and the bytes it moves, and its bound:
``max(FLOPs / peak of its kind and dtype, bytes / memory bandwidth)``, with
the peaks measured on the machine the harness runs on (``measure_peaks``).
The sum of the bounds is the step's limit; ``step / limit`` says how far the
whole step is from it, and the ops furthest above their bound say where the
rest goes.

The model of an op (``op_cost``):

- convolutions and deconvolutions: 2 FLOPs per multiply-add, the forward
  ``out elements x filter elements / out channels``; the backward computes
  the input gradient and the filter gradient, each the forward's FLOPs, for
  the inputs that want one (the first layer's data does not);
- fully connected layers likewise (``N x in x out``);
- everything else is element-wise or a reduction: a few FLOPs per element
  (``ELEMENTWISE_FLOPS``), bound by memory in practice;
- bytes: every input and output once (weights included) in its storage
  dtype (2 bytes for bfloat16 activations), the backward reading the
  output gradients and the inputs and writing one gradient per input that
  wants one; reshapes move nothing. Workspaces and re-reads are not
  counted: the bound is a lower bound of the time.

On the device a convolution's output is computed when first read (fused
with the relu that reads it, ``_temporaries``): an op that reads such a
pending array (``is_pending`` when it starts) is merged with the latest
deferrable forward before it (``Convolution2DFunction+ReLU``), so the pair
is measured against the sum of both bounds.

The profiled step runs with a function hook, so its backward takes the
Variable-level ``backward`` (not ``backward_arrays``); gradients are
donated as without it (the hook holds no array:
``holds_backward_arrays = False``). The ratio uses the timed iterations'
step time, the op table the profiled step's times.

    python benchmarks/convnet/roofline.py --peaks [--threads 2]

prints the peaks as JSON.
"""
import argparse
import collections
import json
import sys
import threading
import time
import weakref

import numpy

#: FLOPs per output element of element-wise ops (forward, backward); the
#: rest count ``DEFAULT_ELEMENTWISE``. Memory-bound either way.
ELEMENTWISE_FLOPS = {
    'BatchNormalization': (8, 12),
    'FixedBatchNormalization': (4, 8),
    'LocalResponseNormalization': (12, 18),
    'SoftmaxCrossEntropy': (6, 4),
    'MaxPoolingND': (1, 1),
    'MaxPooling2D': (1, 1),
    'AveragePoolingND': (1, 1),
    'AveragePooling2D': (1, 1),
}
DEFAULT_ELEMENTWISE = (1, 2)
CONV_OPS = ('Convolution2DFunction', 'ConvolutionND', 'ConvolutionNDGradW',
            'DepthwiseConvolution2D')
DECONV_OPS = ('Deconvolution2DFunction', 'DeconvolutionND')
MATMUL_OPS = ('LinearFunction',)
FREE_OPS = ('Reshape', 'Identity', 'ExpandDims', 'Squeeze')
#: Ops whose output on the device may be computed when first read.
DEFERRABLE_OPS = ('Convolution2DFunction', 'ConvolutionND',
                  'FixedBatchNormalization')


# -- peaks ---------------------------------------------------------------------

def _best_rate(fn, work, min_time=0.2, samples=3):
    """The best ``work / seconds`` of ``samples`` runs of ``fn``, each
    repeated until it lasts ``min_time``."""
    fn()
    best = 0.0
    for _ in range(samples):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            t = time.perf_counter() - t0
            if t >= min_time:
                break
        best = max(best, work * n / t)
    return best


def _threaded(fn, parts):
    """Run ``fn(i)`` for each part in threads (NumPy's loops drop the GIL)."""
    if parts == 1:
        fn(0)
        return
    ts = [threading.Thread(target=fn, args=(i,)) for i in range(parts)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def memory_bandwidth(threads, n=1 << 25, min_time=0.2):
    """STREAM-like bandwidth in bytes/s with ``threads`` threads: the best of
    copy (``a = b``, 8 bytes per element) and add (``a = b + c``, 12), on
    arrays of ``n`` float32 (128 MB each by default: past the caches)."""
    a, b, c = (numpy.ones(n, numpy.float32) for _ in range(3))
    bounds = numpy.linspace(0, n, threads + 1).astype(int)
    chunks = [slice(bounds[i], bounds[i + 1]) for i in range(threads)]

    def copy(i):
        numpy.copyto(a[chunks[i]], b[chunks[i]])

    def add(i):
        numpy.add(b[chunks[i]], c[chunks[i]], out=a[chunks[i]])
    return max(_best_rate(lambda: _threaded(copy, threads), 8.0 * n,
                          min_time),
               _best_rate(lambda: _threaded(add, threads), 12.0 * n,
                          min_time))


def _native():
    from cpuframe.backends import intel64
    return intel64.native() if intel64.is_ideep_available() else None


def compute_peaks(native, bf16, scale=1, min_time=0.2):
    """FLOP/s of a large convolution and matrix product: oneDNN's (float32,
    and bfloat16 where ``bf16``) and NumPy's BLAS for the float32 product;
    ``scale`` shrinks the problems (tests)."""
    peaks = {}
    m = 2048 // scale
    A = numpy.random.RandomState(0).standard_normal((m, m)).astype(
        numpy.float32)
    peaks['f32_matmul'] = _best_rate(lambda: numpy.matmul(A, A), 2.0 * m ** 3,
                                     min_time)
    if native is None:
        return peaks
    n, c, hw = 16 // scale or 1, 128, 28 // scale
    x = numpy.random.RandomState(1).standard_normal((n, c, hw, hw)).astype(
        numpy.float32)
    W = numpy.random.RandomState(2).standard_normal((c, c, 3, 3)).astype(
        numpy.float32)
    conv_flops = 2.0 * n * c * hw * hw * c * 9
    for dtype in ('f32', 'bf16') if bf16 else ('f32',):
        xs = native.to_bfloat16(x) if dtype == 'bf16' else x
        As = native.to_bfloat16(A) if dtype == 'bf16' else A

        def conv(xs=xs):
            native.convolution_forward(xs, W, None, [1, 1], [1, 1], [1, 1],
                                       [1, 1])

        def mm(As=As):
            native.linear_forward(As, A, None)
        peaks[dtype + '_conv'] = _best_rate(conv, conv_flops, min_time)
        rate = _best_rate(mm, 2.0 * m ** 3, min_time)
        peaks[dtype + '_matmul'] = max(rate, peaks.get(dtype + '_matmul', 0))
    return peaks


def measure_peaks(threads, scale=1, min_time=0.2):
    """{'bandwidth': bytes/s, 'f32_conv', 'f32_matmul', ['bf16_conv',
    'bf16_matmul']: FLOP/s} on this machine with ``threads`` threads."""
    native = _native()
    bf16 = False
    if native is not None:
        from cpuframe import _bf16
        bf16 = _bf16.support()['mode'] != 'float32 fallback'
    peaks = compute_peaks(native, bf16, scale, min_time)
    peaks['bandwidth'] = memory_bandwidth(threads, (1 << 25) // scale,
                                          min_time)
    return peaks


# -- the per-op profile --------------------------------------------------------

def _spec(a):
    """(shape, bytes per element) of an array or mdarray; None for None."""
    if a is None:
        return None
    storage = getattr(a, 'storage_dtype', None)
    if storage is not None:
        itemsize = 2 if storage == 'bfloat16' else numpy.dtype(
            storage).itemsize
    else:
        itemsize = numpy.dtype(a.dtype).itemsize
    return tuple(int(s) for s in a.shape), itemsize


def _reads_pending(in_data):
    """How many inputs are device arrays not computed yet (the output of a
    deferred convolution or batch normalization this op will compute)."""
    from cpuframe.backends import intel64
    return sum(1 for a in in_data if intel64.is_native_array(a) and
               intel64.native().is_pending(a))


def _make_hook_class():
    from cpuframe import function_hook

    class RooflineHook(function_hook.FunctionHook):
        """Records each op's forward and each node's backward: time, input
        and output specs. Ops a backward applies count as that backward."""

        name = 'RooflineHook'
        # Reads shapes only: the backward donates gradients as without it.
        holds_backward_arrays = False

        def __init__(self):
            self.records = []
            self._fwd = {}
            self._starts = []
            self._pending = []
            self._in_backward = 0

        def forward_preprocess(self, function, in_data):
            self._pending.append(_reads_pending(in_data))
            self._starts.append(time.perf_counter())

        def forward_postprocess(self, function, in_data):
            t = time.perf_counter() - self._starts.pop()
            absorbs = self._pending.pop()
            if self._in_backward or self._starts:
                return  # part of a backward, or of an enclosing op
            rec = {'op': type(function).__name__, 'phase': 'fwd', 'time': t,
                   'ins': [_spec(a) for a in in_data], 'outs': None,
                   'wants': None, 'absorbs': absorbs}
            self.records.append(rec)
            self._fwd[id(function)] = (weakref.ref(function), rec)

        def backward_preprocess(self, function, in_data, out_grad):
            self._in_backward += 1
            self._pending.append(0)
            self._starts.append(time.perf_counter())

        def backward_postprocess(self, function, in_data, out_grad):
            t = time.perf_counter() - self._starts.pop()
            self._pending.pop()
            self._in_backward -= 1
            outs = [_spec(g) for g in out_grad]
            wants = [bool(n.requires_grad) for n in function.inputs]
            ins = [_spec(a) for a in in_data]
            pair = self._fwd.pop(id(function), None)
            if pair is not None and pair[0]() is function:
                pair[1]['outs'] = outs
                pair[1]['wants'] = wants
                # An input the node did not retain (relu keeps its output):
                # its size from the forward.
                ins = [s if s is not None else f
                       for s, f in zip(ins, pair[1]['ins'])]
            self.records.append({
                'op': type(function).__name__, 'phase': 'bwd', 'time': t,
                'ins': ins, 'outs': outs, 'wants': wants})
    return RooflineHook


def profile_step(step, iterations=1):
    """Run ``step()`` (forward + backward) under the hook; the records of
    the last of ``iterations`` runs."""
    hook_class = _make_hook_class()
    hook = None
    for _ in range(iterations):
        hook = hook_class()
        with hook:
            step()
    return hook.records


# -- the cost model ------------------------------------------------------------

def _elements(spec):
    return int(numpy.prod(spec[0])) if spec else 0


def _nbytes(spec):
    return _elements(spec) * spec[1] if spec else 0


def op_cost(rec):
    """(kind, dtype, FLOPs, bytes) of one record: kind 'conv', 'matmul' or
    'eltwise'; dtype 'bf16' when an array is stored in bfloat16."""
    op, phase = rec['op'], rec['phase']
    ins = rec['ins']
    outs = rec['outs']
    if outs is None:  # no backward reached it: its output is like its input
        big = max((s for s in ins if s), key=_elements, default=None)
        outs = [big]
    outs = [s for s in outs if s]
    wants = rec['wants'] or [True] * len(ins)
    specs = [s for s in ins if s] + outs
    dtype = 'bf16' if any(s[1] == 2 for s in specs) else 'f32'
    if op in FREE_OPS:
        return 'eltwise', dtype, 0.0, 0.0
    in_bytes = sum(_nbytes(s) for s in ins)
    out_bytes = sum(_nbytes(s) for s in outs)
    grad_bytes = sum(_nbytes(s) for s, w in zip(ins, wants) if w)
    nbytes = in_bytes + out_bytes + (grad_bytes if phase == 'bwd' else 0)
    y = outs[0] if outs else None
    if op in CONV_OPS + DECONV_OPS + MATMUL_OPS and len(ins) >= 2 and \
            ins[1] and y:
        W = ins[1][0]
        if op in DECONV_OPS:  # x (N, C_in, ...) by W (C_in, C_out / g, ...)
            macs = _elements(ins[0]) * int(numpy.prod(W[1:]))
        else:  # every output element: one filter's worth of multiply-adds
            macs = _elements(y) * int(numpy.prod(W[1:]))
        kind = 'matmul' if op in MATMUL_OPS else 'conv'
        if phase == 'fwd':
            return kind, dtype, 2.0 * macs, float(nbytes)
        n_grads = sum(1 for w in wants[:2] if w)
        return kind, dtype, 2.0 * macs * n_grads, float(nbytes)
    per = ELEMENTWISE_FLOPS.get(op, DEFAULT_ELEMENTWISE)
    n = max((_elements(s) for s in specs), default=0)
    flops = per[0 if phase == 'fwd' else 1] * n
    return 'eltwise', dtype, float(flops), float(nbytes)


def bound_of(kind, dtype, flops, nbytes, peaks):
    """(seconds, 'compute' or 'memory') of the op's roofline bound."""
    if kind == 'eltwise':
        peak = max(v for k, v in peaks.items() if k != 'bandwidth')
    else:
        peak = peaks.get('{}_{}'.format(dtype, kind)) or \
            peaks.get('f32_' + kind) or peaks['f32_matmul']
    t_flops = flops / peak
    t_bytes = nbytes / peaks['bandwidth']
    return (t_flops, 'compute') if t_flops >= t_bytes else (t_bytes,
                                                             'memory')


def _shape_text(rec):
    first = next((s for s in rec['ins'] + (rec['outs'] or []) if s), None)
    return 'x'.join(str(d) for d in first[0]) if first else '-'


def costed(records, peaks):
    """The records with their cost and bound, deferred ops merged into the
    op that ran them (see the module's docstring)."""
    out = []
    deferrable = []  # indexes in out of forwards that may still be pending
    for rec in records:
        kind, dtype, flops, nbytes = op_cost(rec)
        bound, by = bound_of(kind, dtype, flops, nbytes, peaks)
        item = {'op': rec['op'], 'phase': rec['phase'],
                'shape': _shape_text(rec), 'time': rec['time'],
                'flops': flops, 'bytes': nbytes, 'bound': bound, 'by': by,
                'dtype': dtype}
        for _ in range(rec.get('absorbs') or 0):
            if not deferrable:
                break
            # (the latest: the others stand before it in out)
            before = out.pop(deferrable.pop())
            item = {
                'op': before['op'] + '+' + item['op'], 'phase': item['phase'],
                'shape': before['shape'],
                'time': before['time'] + item['time'],
                'flops': before['flops'] + item['flops'],
                'bytes': before['bytes'] + item['bytes'],
                'bound': before['bound'] + item['bound'],
                'by': before['by'] if before['bound'] >= item['bound']
                else item['by'], 'dtype': before['dtype']}
        if rec['phase'] == 'fwd' and rec['op'] in DEFERRABLE_OPS:
            deferrable.append(len(out))
        out.append(item)
    return out


def summarize(records, peaks, step_s, top=10):
    """Per model and path: the limit (sum of bounds), ``step / limit`` and
    the ``top`` op groups (op, phase, input shape) furthest above their
    bound, by time over it."""
    items = costed(records, peaks)
    groups = collections.OrderedDict()
    for it in items:
        key = (it['op'], it['phase'], it['shape'])
        g = groups.setdefault(key, {
            'op': it['op'], 'phase': it['phase'], 'shape': it['shape'],
            'calls': 0, 'ms': 0.0, 'bound_ms': 0.0, 'gflop': 0.0, 'mb': 0.0,
            'bound_by': it['by'], 'dtype': it['dtype']})
        g['calls'] += 1
        g['ms'] += 1e3 * it['time']
        g['bound_ms'] += 1e3 * it['bound']
        g['gflop'] += it['flops'] / 1e9
        g['mb'] += it['bytes'] / 1e6
    for g in groups.values():
        g['over_ms'] = g['ms'] - g['bound_ms']
        g['ratio'] = g['ms'] / g['bound_ms'] if g['bound_ms'] > 0 else None
    limit_ms = 1e3 * sum(it['bound'] for it in items)
    profiled_ms = 1e3 * sum(it['time'] for it in items)
    worst = sorted(groups.values(), key=lambda g: -g['over_ms'])[:top]
    step_ms = 1e3 * step_s if step_s else None
    return {
        'step_ms': step_ms, 'limit_ms': limit_ms,
        'ratio': step_ms / limit_ms if step_ms and limit_ms else None,
        'profiled_ops_ms': profiled_ms, 'ops': len(items),
        'compute_bound_ms': 1e3 * sum(it['bound'] for it in items
                                      if it['by'] == 'compute'),
        'memory_bound_ms': 1e3 * sum(it['bound'] for it in items
                                     if it['by'] == 'memory'),
        'gflop': sum(it['flops'] for it in items) / 1e9,
        'gbyte': sum(it['bytes'] for it in items) / 1e9,
        'top': worst}


def format_peaks(peaks):
    parts = ['{} {:.0f} GFLOP/s'.format(k.replace('_', ' '), v / 1e9)
             for k, v in sorted(peaks.items()) if k != 'bandwidth']
    parts.append('memory {:.1f} GB/s'.format(peaks['bandwidth'] / 1e9))
    return ', '.join(parts)


def print_roofline(model_rl, out):
    """The roofline lines of one model (``model_info[model]['roofline']``)."""
    paths = model_rl.get('paths') or {}
    if not paths:
        return
    print('  roofline (limit: sum of the ops\' bounds; see roofline.py):',
          file=out)
    print('  {:<20} {:>9} {:>9} {:>10} {:>12} {:>12}  {}'.format(
        'path', 'step ms', 'limit ms', 'step/limit', 'compute ms',
        'memory ms', 'limit from'), file=out)
    for path, s in paths.items():
        print('  {:<20} {:>9} {:>9.1f} {:>10} {:>12.1f} {:>12.1f}  {}'.format(
            path, '-' if s['step_ms'] is None else '{:.1f}'.format(
                s['step_ms']),
            s['limit_ms'], '-' if s['ratio'] is None else '{:.2f}x'.format(
                s['ratio']), s['compute_bound_ms'], s['memory_bound_ms'],
            s.get('limit_from', path)), file=out)
    for path, s in paths.items():
        if not s.get('top'):
            continue
        print('  {}: the ops furthest above their bound (profiled step, {:.1f}'
              ' ms in {} ops):'.format(path, s['profiled_ops_ms'], s['ops']),
              file=out)
        print('    {:<44} {:>5} {:>16} {:>6} {:>9} {:>9} {:>7}  {}'.format(
            'op', 'phase', 'input', 'calls', 'ms', 'bound ms', 'x', 'by'),
            file=out)
        for g in s['top']:
            print('    {:<44} {:>5} {:>16} {:>6} {:>9.2f} {:>9.2f} {:>7}  '
                  '{}'.format(g['op'][:44], g['phase'], g['shape'][:16],
                              g['calls'], g['ms'], g['bound_ms'],
                              '-' if g['ratio'] is None else '{:.1f}x'.format(
                                  g['ratio']), g['bound_by']), file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--peaks', action='store_true', required=True,
                   help='measure the peaks and print them as JSON')
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--scale', type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    min_time = 0.2 if args.scale == 1 else 0.01
    print(json.dumps(measure_peaks(args.threads, args.scale, min_time)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
