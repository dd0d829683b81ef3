"""The convnet harness's roofline (benchmarks/convnet/roofline.py): the cost
model of each op, the profile hook, the merging of deferred convolutions,
the summary, the peaks and the harness's ``--roofline`` output."""
import json
import subprocess
import sys

import numpy
import pytest
from testhelpers.convnet_bench import BENCH, load

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe.backends import intel64

rl = load('roofline')
flops = load('flops')

PEAKS = {'f32_conv': 100e9, 'f32_matmul': 200e9, 'bf16_conv': 400e9,
         'bandwidth': 10e9}


def _rec(op, phase, ins, outs=None, wants=None, t=1e-3, absorbs=0):
    return {'op': op, 'phase': phase, 'time': t, 'ins': ins, 'outs': outs,
            'wants': wants, 'absorbs': absorbs}


def test_convolution_cost_is_twice_its_macs():
    x, W, y = ((16, 64, 28, 28), 4), ((128, 64, 3, 3), 4), \
        ((16, 128, 28, 28), 4)
    macs = flops.conv2d_macs(16, 64, 128, 3, 28)
    kind, dtype, f, b = rl.op_cost(_rec('Convolution2DFunction', 'fwd',
                                        [x, W], [y], [True, True]))
    assert (kind, dtype, f) == ('conv', 'f32', 2.0 * macs)
    assert b == 4 * (16 * 64 * 28 * 28 + 128 * 64 * 9 + 16 * 128 * 28 * 28)
    # The backward: gx and gW, each the forward's FLOPs; the first layer's
    # data wants no gradient, so only gW.
    assert rl.op_cost(_rec('Convolution2DFunction', 'bwd', [x, W], [y],
                           [True, True]))[2] == 4.0 * macs
    assert rl.op_cost(_rec('Convolution2DFunction', 'bwd', [x, W], [y],
                           [False, True]))[2] == 2.0 * macs


def test_linear_bf16_and_free_ops():
    x, W, y = ((32, 100), 2), ((10, 100), 4), ((32, 10), 2)
    kind, dtype, f, b = rl.op_cost(_rec('LinearFunction', 'fwd', [x, W],
                                        [y], [True, True]))
    assert (kind, dtype, f) == ('matmul', 'bf16', 2.0 * 32 * 100 * 10)
    assert b == 32 * 100 * 2 + 10 * 100 * 4 + 32 * 10 * 2
    assert rl.op_cost(_rec('Reshape', 'fwd', [x]))[2:] == (0.0, 0.0)
    # An element-wise op no backward reached: its output like its input.
    kind, _, f, b = rl.op_cost(_rec('ReLU', 'fwd', [((8, 8), 4)]))
    assert (kind, f, b) == ('eltwise', 64.0, 2 * 64 * 4)


def test_bound_is_the_larger_of_compute_and_memory():
    t, by = rl.bound_of('conv', 'f32', 100e9, 1e9, PEAKS)
    assert (t, by) == (pytest.approx(1.0), 'compute')
    t, by = rl.bound_of('eltwise', 'f32', 1e6, 20e9, PEAKS)
    assert (t, by) == (pytest.approx(2.0), 'memory')
    # bf16 convolutions are held to the bf16 peak, matmuls without one to
    # float32's.
    assert rl.bound_of('conv', 'bf16', 400e9, 0, PEAKS)[0] == \
        pytest.approx(1.0)
    assert rl.bound_of('matmul', 'bf16', 200e9, 0, PEAKS)[0] == \
        pytest.approx(1.0)


def test_a_read_of_a_pending_output_merges_its_producer():
    x, W, y = ((2, 8, 8, 8), 4), ((8, 8, 3, 3), 4), ((2, 8, 8, 8), 4)
    recs = [_rec('Convolution2DFunction', 'fwd', [x, W], [y], t=1e-5),
            _rec('Convolution2DFunction', 'fwd', [x, W], [y], t=1e-5),
            _rec('ReLU', 'fwd', [y], [y], t=2e-3, absorbs=1),
            _rec('ReLU', 'fwd', [y], [y], t=3e-3, absorbs=1)]
    items = rl.costed(recs, PEAKS)
    assert [i['op'] for i in items] == ['Convolution2DFunction+ReLU'] * 2
    assert [i['time'] for i in items] == [pytest.approx(2e-3 + 1e-5),
                                          pytest.approx(3e-3 + 1e-5)]
    conv = rl.bound_of(*rl.op_cost(recs[0]), PEAKS)[0]
    relu = rl.bound_of(*rl.op_cost(recs[2]), PEAKS)[0]
    assert items[0]['bound'] == pytest.approx(conv + relu)


def test_summary_limit_ratio_and_worst_ops():
    y = ((4, 4), 4)
    recs = [_rec('ReLU', 'fwd', [y], [y], t=1e-3),
            _rec('ReLU', 'bwd', [y], [y], [True], t=5e-3),
            _rec('Tanh', 'fwd', [y], [y], t=2e-3)]
    s = rl.summarize(recs, PEAKS, step_s=0.01, top=2)
    bounds = [rl.bound_of(*rl.op_cost(r), PEAKS)[0] for r in recs]
    assert s['limit_ms'] == pytest.approx(1e3 * sum(bounds))
    assert s['ratio'] == pytest.approx(10.0 / s['limit_ms'])
    assert s['profiled_ops_ms'] == pytest.approx(8.0)
    assert [(g['op'], g['phase']) for g in s['top']] == [
        ('ReLU', 'bwd'), ('Tanh', 'fwd')]


class _Net(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 8, 3, pad=1)
            self.fc = L.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        h = F.relu(self.conv(x))
        return self.fc(F.max_pooling_2d(h, 2))


def _profile(route):
    net = _Net()
    x = numpy.random.RandomState(0).standard_normal((2, 3, 8, 8)).astype(
        numpy.float32)
    t = numpy.array([1, 3], numpy.int32)
    if route == 'always':
        net.to_device('@intel64')
        x = intel64.from_numpy(x)

    def step():
        net.cleargrads()
        F.softmax_cross_entropy(net(x), t).backward()
    with cpuframe.using_config('use_ideep', route):
        return rl.profile_step(step, iterations=2)


def test_profile_records_every_forward_and_backward():
    recs = _profile('never')
    fwd = [r['op'] for r in recs if r['phase'] == 'fwd']
    bwd = [r['op'] for r in recs if r['phase'] == 'bwd']
    assert fwd == ['Convolution2DFunction', 'ReLU', 'MaxPooling2D',
                   'Reshape', 'LinearFunction', 'SoftmaxCrossEntropy']
    assert sorted(bwd) == sorted(fwd)  # one record per node, nothing nested
    conv = recs[0]
    assert conv['outs'] == [((2, 8, 8, 8), 4)]  # from its backward
    assert conv['wants'] == [False, True, True]
    relu_bwd = next(r for r in recs if r['op'] == 'ReLU' and
                    r['phase'] == 'bwd')
    # relu keeps its output, not x: x's size from the forward
    assert relu_bwd['ins'] == [((2, 8, 8, 8), 4)]
    assert all(r['time'] > 0 for r in recs)


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='needs the native module')
def test_profile_merges_the_deferred_convolution_on_the_device():
    recs = _profile('always')
    relu = next(r for r in recs if r['op'] == 'ReLU' and r['phase'] == 'fwd')
    assert relu['absorbs'] == 1
    items = rl.costed(recs, PEAKS)
    assert 'Convolution2DFunction+ReLU' in [i['op'] for i in items]


def test_measured_peaks_are_positive():
    peaks = rl.measure_peaks(1, scale=16, min_time=0.005)
    assert peaks['bandwidth'] > 1e8 and peaks['f32_matmul'] > 1e8
    if intel64.is_ideep_available():
        assert peaks['f32_conv'] > 1e8
    assert 'GB/s' in rl.format_peaks(peaks)


def test_harness_prints_the_roofline(tmp_path):
    out = tmp_path / 'out.json'
    proc = subprocess.run(
        [sys.executable, str(BENCH / 'run.py'), '--models', 'alexnet',
         '--small', '--batch', '1', '--iters', '1', '--warmup', '0',
         '--threads', '1', '--settle', '0', '--paths', 'intel64,numpy',
         '--roofline', '--roofline-scale', '16', '--json', str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert 'roofline peaks' in proc.stdout
    assert 'step/limit' in proc.stdout
    assert 'the ops furthest above their bound' in proc.stdout
    result = json.loads(out.read_text())
    assert set(result['roofline_peaks']) >= {'bandwidth', 'f32_matmul'}
    paths = result['model_info']['alexnet']['roofline']['paths']
    ran = ['numpy'] + (['intel64'] if intel64.is_ideep_available() else [])
    assert sorted(paths) == sorted(ran)
    for s in paths.values():
        assert s['limit_ms'] > 0 and s['ratio'] > 0
        assert s['step_ms'] == pytest.approx(s['ratio'] * s['limit_ms'])
        assert s['top'] and s['top'][0]['calls'] >= 1
    assert '_records' not in result['models']['alexnet']['numpy']
