"""The convnet-benchmarks harness: models, FLOP counts, the JSON it writes.

Fast tests run every model once, forward and backward, at its smallest input
size; real sizes other than AlexNet's are ``slow``.  Tests against the PyTorch
twins run only where torch is installed (never a dependency of cpuframe).
"""
import json
import math
import subprocess
import sys

import numpy
import pytest
from testhelpers.convnet_bench import BENCH, load

import cpuframe
from cpuframe import functions as F
from cpuframe.backends import intel64

NAMES = ('alexnet', 'overfeat', 'vgg_a', 'googlenet', 'resnet50')

models = load('models')
flops = load('flops')
run = load('run')


def _batch(insize, batch=1, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.standard_normal((batch, 3, insize, insize)).astype(numpy.float32)
    t = rng.randint(0, 1000, size=batch).astype(numpy.int32)
    return x, t


def _fwd_bwd(model, x, t):
    model.cleargrads()
    y = model(x)
    loss = F.softmax_cross_entropy(y, t)
    loss.backward()
    return y, loss


def _check_fwd_bwd(model, x, t):
    y, loss = _fwd_bwd(model, x, t)
    assert y.shape == (x.shape[0], models.N_CLASS)
    assert math.isfinite(float(numpy.asarray(loss.array)))
    for name, param in model.namedparams():
        assert param.grad is not None, name
        assert numpy.isfinite(numpy.asarray(param.grad)).all(), name
    assert numpy.abs(numpy.asarray(model.conv1.W.grad)).sum() > 0


@pytest.fixture(scope='module')
def alexnet_224():
    return models.build('alexnet')


# -- the models run -----------------------------------------------------------

@pytest.mark.parametrize('name', NAMES)
def test_fwd_bwd_small_numpy(name):
    insize = models.SMALL_INSIZE[name]
    model = models.build(name, insize)
    with cpuframe.using_config('use_ideep', 'never'):
        _check_fwd_bwd(model, *_batch(insize))


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='the oneDNN native module is not built')
@pytest.mark.parametrize('name', NAMES)
def test_fwd_bwd_small_intel64(name):
    insize = models.SMALL_INSIZE[name]
    model = models.build(name, insize)
    x, t = _batch(insize)
    with cpuframe.using_config('use_ideep', 'always'):
        model.to_intel64()
        x = cpuframe.get_device('@intel64').send(x)
        _check_fwd_bwd(model, x, t)


def test_fwd_bwd_alexnet_real_size(alexnet_224):
    with cpuframe.using_config('use_ideep', 'never'):
        _check_fwd_bwd(alexnet_224, *_batch(224))


@pytest.mark.slow
@pytest.mark.parametrize('name', ('overfeat', 'vgg_a', 'googlenet', 'resnet50'))
def test_fwd_bwd_real_size(name):
    insize = models.INSIZE[name]
    with cpuframe.using_config('use_ideep', 'never'):
        _check_fwd_bwd(models.build(name), *_batch(insize))


@pytest.mark.parametrize('name', ('alexnet', 'overfeat', 'vgg_a', 'googlenet'))
def test_too_small_input_is_refused(name):
    with pytest.raises(ValueError, match=name):
        models.build(name, 8)


def test_unknown_model_is_refused():
    with pytest.raises(ValueError, match='alexnet'):
        models.build('lenet')


# -- FLOP counts ------------------------------------------------------------------

def _conv(c_out, size, c_in, k):
    # Hand count: every output element takes c_in * k * k MACs.
    return c_out * size * size * c_in * k * k


ALEXNET_224_MACS = [
    ('/conv1', 'conv', _conv(64, 55, 3, 11), (1, 64, 55, 55)),
    ('/conv2', 'conv', _conv(192, 27, 64, 5), (1, 192, 27, 27)),
    ('/conv3', 'conv', _conv(384, 13, 192, 3), (1, 384, 13, 13)),
    ('/conv4', 'conv', _conv(256, 13, 384, 3), (1, 256, 13, 13)),
    ('/conv5', 'conv', _conv(256, 13, 256, 3), (1, 256, 13, 13)),
    ('/fc6', 'linear', 256 * 6 * 6 * 4096, (1, 4096)),
    ('/fc7', 'linear', 4096 * 4096, (1, 4096)),
    ('/fc8', 'linear', 4096 * 1000, (1, 1000)),
]


def test_alexnet_flops_per_layer(alexnet_224):
    x = numpy.zeros((1, 3, 224, 224), numpy.float32)
    layers = flops.count_layers(alexnet_224, x)
    got = [(la.name, la.kind, la.macs, la.out_shape) for la in layers]
    assert got == ALEXNET_224_MACS
    assert layers[0].macs == 70276800  # conv1: 64 x 55 x 55 x 3 x 11 x 11
    assert flops.model_flops(alexnet_224, 224) == 1428376960  # 0.714 GMAC


def test_flops_scale_with_batch():
    model = models.build('alexnet', 63)
    assert flops.model_flops(model, 63, batch=3) == 3 * flops.model_flops(model, 63)


def test_count_layers_restores_the_links():
    model = models.build('alexnet', 63)
    flops.count_layers(model, numpy.zeros((1, 3, 63, 63), numpy.float32))
    assert 'forward' not in vars(model.conv1)
    assert 'forward' not in vars(model.fc6)


def test_vgg_a_small_flops():
    macs = (_conv(64, 32, 3, 3) + _conv(128, 16, 64, 3) + _conv(256, 8, 128, 3)
            + _conv(256, 8, 256, 3) + _conv(512, 4, 256, 3)
            + _conv(512, 4, 512, 3) + _conv(512, 2, 512, 3)
            + _conv(512, 2, 512, 3) + 512 * 4096 + 4096 * 4096 + 4096 * 1000)
    assert flops.model_flops(models.build('vgg_a', 32), 32) == 2 * macs


def test_mac_helpers():
    assert flops.conv2d_macs(1, 3, 64, 11, 55) == 70276800
    assert flops.conv2d_macs(2, 4, 8, (3, 1), (5, 7), groups=2) == 2 * 8 * 35 * 2 * 3
    assert flops.linear_macs(16, 9216, 4096) == 16 * 9216 * 4096


@pytest.mark.slow
@pytest.mark.parametrize('name, macs', [
    ('overfeat', _conv(96, 56, 3, 11) + _conv(256, 24, 96, 5)
     + _conv(512, 12, 256, 3) + _conv(1024, 12, 512, 3)
     + _conv(1024, 12, 1024, 3) + 1024 * 36 * 3072 + 3072 * 4096 + 4096 * 1000),
    ('vgg_a', _conv(64, 224, 3, 3) + _conv(128, 112, 64, 3)
     + _conv(256, 56, 128, 3) + _conv(256, 56, 256, 3) + _conv(512, 28, 256, 3)
     + _conv(512, 28, 512, 3) + 2 * _conv(512, 14, 512, 3)
     + 25088 * 4096 + 4096 * 4096 + 4096 * 1000),
    # Published: GoogLeNet v1 about 1.58 GMAC, ResNet-50 v1.5 4.09 GMAC.
    ('googlenet', 1582671872),
    ('resnet50', 4089184256),
])
def test_real_size_flops(name, macs):
    model = models.build(name)
    assert flops.model_flops(model, models.INSIZE[name]) == 2 * macs


# -- the JSON the harness writes -----------------------------------------------

def test_harness_json_schema(tmp_path):
    out = tmp_path / 'out.json'
    proc = subprocess.run(
        [sys.executable, str(BENCH / 'run.py'), '--models', 'alexnet', '--small',
         '--batch', '1', '--iters', '1', '--warmup', '0', '--threads', '1',
         '--settle', '0', '--paths', 'intel64,numpy', '--json', str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert 'alexnet' in proc.stdout and 'BLAS' in proc.stdout
    result = json.loads(out.read_text())
    run.validate_result(result)
    assert set(result['models']) == {'alexnet'}
    paths = result['models']['alexnet']
    assert list(paths) == ['intel64', 'numpy']
    numpy_path = paths['numpy']
    assert numpy_path['status'] == 'ok'
    assert numpy_path['path_used'] == 'numpy'
    assert 0 < numpy_path['fwd_ms'] <= numpy_path['fwdbwd_ms']
    assert numpy_path['gflops'] > 0 and numpy_path['peak_rss_mb'] > 0
    assert numpy_path['threads'] == 1
    info = result['model_info']['alexnet']
    assert info['flops_fwd'] == 122889600  # AlexNet at 63x63, batch 1
    if intel64.is_ideep_available():
        assert paths['intel64']['status'] == 'ok'
        assert paths['intel64']['path_used'] in ('onednn', 'numpy-fallback')
    else:
        assert paths['intel64']['status'] == 'skipped'
        assert paths['intel64']['fwd_ms'] is None


@pytest.mark.parametrize('bad', [
    {},
    {'models': []},
    {'models': {'alexnet': {}}},
    {'models': {'alexnet': {'cudnn': {}}}},
    {'models': {'alexnet': {'numpy': {'fwd_ms': 1.0, 'fwdbwd_ms': 2.0,
                                      'gflops': 3.0}}}},
    {'models': {'alexnet': {'numpy': {'fwd_ms': '1', 'fwdbwd_ms': 2.0,
                                      'gflops': 3.0, 'peak_rss_mb': 4.0}}}},
])
def test_validate_result_rejects(bad):
    with pytest.raises(ValueError):
        run.validate_result(bad)


def test_validate_result_accepts_skipped_paths():
    run.validate_result({'models': {'vgg_a': {
        'intel64': {'fwd_ms': None, 'fwdbwd_ms': None, 'gflops': None,
                    'peak_rss_mb': None, 'status': 'skipped'},
        'torch_nchw': {'fwd_ms': 1.0, 'fwdbwd_ms': 3.0, 'gflops': 9.5,
                       'peak_rss_mb': 812.0}}}})


def test_ratios():
    paths = {'intel64': {'fwd_ms': 10.0, 'fwdbwd_ms': 30.0},
             'numpy': {'fwd_ms': 40.0, 'fwdbwd_ms': 150.0},
             'torch_nchw': {'fwd_ms': 12.0, 'fwdbwd_ms': 45.0},
             'torch_channels_last': {'fwd_ms': 11.0, 'fwdbwd_ms': 36.0}}
    r = run._model_ratios(paths)
    assert r['intel64_over_numpy'] == {'fwd': 4.0, 'fwdbwd': 5.0}
    assert r['intel64_over_best_torch']['best_torch_path'] == 'torch_channels_last'
    assert r['intel64_over_best_torch']['fwdbwd'] == pytest.approx(1.2)
    assert r['intel64_over_best_torch']['fwd'] == pytest.approx(1.1)


# -- the PyTorch twins -----------------------------------------------------------

@pytest.fixture(scope='module')
def torch_models():
    pytest.importorskip('torch')
    return load('torch_models')


@pytest.mark.parametrize('name', NAMES)
def test_torch_twin_matches(torch_models, name):
    import torch
    insize = models.SMALL_INSIZE[name]
    model = models.build(name, insize)
    twin = torch_models.build(name, insize)
    x, _ = _batch(insize, batch=2)
    assert torch_models.count_flops(twin, torch.zeros(1, 3, insize, insize)) \
        == flops.model_flops(model, insize)
    # Same weights, inference mode (no dropout, BN on running statistics):
    # same outputs, so the twin is the same network, not just the same shapes.
    torch_models.copy_params_from_cpuframe(twin, model)
    twin.eval()
    with torch.no_grad():
        expected = twin(torch.from_numpy(x)).numpy()
    with cpuframe.using_config('use_ideep', 'never'), \
            cpuframe.using_config('train', False):
        y = numpy.asarray(model(x).array)
    assert y.shape == expected.shape == (2, models.N_CLASS)
    scale = numpy.abs(expected).max()
    numpy.testing.assert_allclose(y, expected, rtol=1e-3, atol=1e-4 * scale)


@pytest.mark.slow
@pytest.mark.parametrize('name', NAMES)
def test_torch_twin_real_size_shape(torch_models, name):
    import torch
    twin = torch_models.build(name)
    insize = models.INSIZE[name]
    twin.train()
    y = twin(torch.zeros(2, 3, insize, insize))
    assert tuple(y.shape) == (2, models.N_CLASS)
