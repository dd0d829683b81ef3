import importlib.util
import os

import numpy
import pytest

import cpuframe
import cpuframe.links as L
from cpuframe import gradient_check, serializers
from cpuframe.backends import intel64
from cpuframe.dataset import download
from cpuframe.links.model.vision import resnet

_spec = importlib.util.spec_from_file_location(
    '_vision_reference',
    os.path.join(os.path.dirname(__file__), '_vision_reference.py'))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)

LAYERS = ['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5', 'pool5', 'fc6',
          'prob']


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    """An empty dataset root; any network access fails the test."""
    root = tmp_path / 'dataset_root'
    monkeypatch.setenv('CPUFRAME_DATASET_ROOT', str(root))
    monkeypatch.setattr(download, '_dataset_root', None)

    def no_network(url, *args, **kwargs):
        raise AssertionError('test tried to download {}'.format(url))

    monkeypatch.setattr(download.request, 'urlopen', no_network)
    return root


def _randomize_statistics(model, seed):
    """Non-trivial batch-normalization parameters and statistics."""
    rng = numpy.random.RandomState(seed)
    for _, child in sorted(model.namedlinks(skipself=True)):
        if isinstance(child, L.BatchNormalization):
            shape = child.gamma.shape
            child.gamma.array[...] = rng.uniform(0.5, 1.5, shape)
            child.beta.array[...] = rng.uniform(-0.2, 0.2, shape)
            child.avg_mean[...] = rng.uniform(-0.2, 0.2, shape)
            child.avg_var[...] = rng.uniform(0.5, 2., shape)


@pytest.fixture(scope='module')
def resnet50():
    model = L.ResNet50Layers(pretrained_model=None)
    _randomize_statistics(model, 0)
    return model


def test_exports():
    assert L.ResNet50Layers is resnet.ResNet50Layers
    assert L.ResNet101Layers is resnet.ResNet101Layers
    assert L.ResNet152Layers is resnet.ResNet152Layers
    for name in ('ResNetLayers', 'BuildingBlock', 'BottleneckA',
                 'BottleneckB', 'prepare'):
        assert hasattr(resnet, name)
    try:
        import PIL  # noqa: F401
        has_pil = True
    except ImportError:
        has_pil = False
    assert resnet.available is has_pil


def _n_params(model):
    return sum(p.size for p in model.params())


# Published counts (Chainer's documentation of these classes).
def test_resnet50_structure(resnet50):
    assert _n_params(resnet50) == 25557096
    assert resnet50.available_layers == LAYERS
    assert [name for name, _ in resnet50.namedlinks(skipself=True)
            if name.count('/') == 1] == [  # sorted, as Chainer 7 visits
        '/bn1', '/conv1', '/fc6', '/res2', '/res3', '/res4', '/res5']
    for stage, n in zip(('res2', 'res3', 'res4', 'res5'), (3, 4, 6, 3)):
        block = getattr(resnet50, stage)
        assert isinstance(block, resnet.BuildingBlock)
        assert isinstance(block.a, resnet.BottleneckA)
        assert block._forward == ['a'] + ['b{}'.format(i) for i in range(1, n)]
        assert isinstance(getattr(block, 'b{}'.format(n - 1)),
                          resnet.BottleneckB)
        assert not hasattr(block, 'b{}'.format(n))
    assert resnet50.conv1.W.shape == (64, 3, 7, 7)
    assert resnet50.conv1.stride == (2, 2) and resnet50.conv1.pad == (3, 3)
    assert resnet50.conv1.b is not None
    a = resnet50.res3.a
    assert a.conv1.W.shape == (128, 256, 1, 1) and a.conv1.stride == (2, 2)
    assert a.conv2.W.shape == (128, 128, 3, 3) and a.conv2.stride == (1, 1)
    assert a.conv3.W.shape == (512, 128, 1, 1)
    assert a.conv4.W.shape == (512, 256, 1, 1) and a.conv4.stride == (2, 2)
    assert resnet50.res2.a.conv1.stride == (1, 1)
    # only conv1 has a bias among the convolutions
    assert all(c.b is None for name, c in resnet50.namedlinks()
               if isinstance(c, L.Convolution2D) and name != '/conv1')
    assert resnet50.fc6.W.shape == (1000, 2048)


@pytest.mark.parametrize('cls, n_params, blocks', [
    (L.ResNet101Layers, 44549224, (3, 4, 23, 3)),
    (L.ResNet152Layers, 60192872, (3, 8, 36, 3)),
])
def test_deeper_structure(monkeypatch, cls, n_params, blocks):
    # Constant weights instead of HeNormal samples: only the structure is
    # checked here (and that HeNormal gets scale 1.0).
    scales = []

    def fake_he_normal(scale):
        scales.append(scale)
        return cpuframe.initializers.Constant(0.5)

    monkeypatch.setattr(resnet, 'HeNormal', fake_he_normal)
    model = cls(pretrained_model=None)
    assert scales == [1.0]
    assert _n_params(model) == n_params
    assert model.available_layers == LAYERS
    for stage, n in zip(('res2', 'res3', 'res4', 'res5'), blocks):
        assert len(getattr(model, stage)._forward) == n
    convs = [c for c in model.links() if isinstance(c, L.Convolution2D)]
    # 1 + 3 per bottleneck + one projection per stage; + fc6 = n_layers
    # weight layers not counting the projections.
    assert len(convs) == 1 + 3 * sum(blocks) + 4
    assert 1 + 3 * sum(blocks) + 1 == int(cls.__name__[6:9])


def test_he_normal_initialization(resnet50):
    w = resnet50.res4.b1.conv2.W.array  # fan_in 256 * 3 * 3
    assert abs(w.mean()) < 1e-3
    numpy.testing.assert_allclose(w.std(), numpy.sqrt(2. / (256 * 9)),
                                  rtol=0.02)
    w = resnet50.res5.a.conv4.W.array  # fan_in 1024
    numpy.testing.assert_allclose(w.std(), numpy.sqrt(2. / 1024), rtol=0.02)
    assert (resnet50.conv1.b.array == 0).all()


def test_forward_matches_reference(resnet50):
    x = numpy.random.RandomState(1).uniform(-1, 1, (2, 3, 32, 32)).astype(
        numpy.float32)
    with cpuframe.using_config('train', False):
        y = resnet50(x, layers=LAYERS)
    assert set(y) == set(LAYERS)
    expect = R.resnet(resnet50, x.astype(numpy.float64))
    for name in LAYERS:
        assert y[name].shape == expect[name].shape, name
        assert y[name].dtype == numpy.float32
        scale = numpy.abs(expect[name]).max()
        numpy.testing.assert_allclose(y[name].array, expect[name],
                                      atol=1e-5 * scale, rtol=1e-3,
                                      err_msg=name)
    assert y['res5'].shape == (2, 2048, 1, 1)
    assert y['pool5'].shape == (2, 2048)
    numpy.testing.assert_allclose(y['prob'].array.sum(axis=1), 1., rtol=1e-5)


def test_forward_default_and_early_stop(resnet50, monkeypatch):
    x = numpy.zeros((1, 3, 16, 16), numpy.float32)
    with cpuframe.using_config('train', False):
        assert list(resnet50(x)) == ['prob']

        def fail(*args):
            raise AssertionError('res3 ran although only res2 was asked')

        monkeypatch.setattr(resnet50.res3, 'forward', fail)
        assert list(resnet50(x, layers=['pool1', 'res2'])) == [
            'pool1', 'res2']


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='oneDNN is not built')
def test_intel64_matches_numpy():
    model = L.ResNet50Layers(pretrained_model=None)
    _randomize_statistics(model, 2)
    x = numpy.random.RandomState(3).uniform(-1, 1, (2, 3, 32, 32)).astype(
        numpy.float32)
    layers = ['conv1', 'res3', 'pool5', 'fc6']
    with cpuframe.using_config('train', False):
        with cpuframe.using_config('use_ideep', 'never'):
            expect = {k: v.array for k, v in model(x, layers=layers).items()}
        model.to_device('@intel64')
        with cpuframe.using_config('use_ideep', 'always'):
            x_dev = cpuframe.get_device('@intel64').send(x)
            y = model(x_dev, layers=layers)
    for name in layers:
        got = numpy.asarray(cpuframe.backends.intel64.to_numpy(y[name].array))
        scale = numpy.abs(expect[name]).max()
        numpy.testing.assert_allclose(got, expect[name], atol=1e-4 * scale,
                                      rtol=1e-3, err_msg=name)


def test_npz_round_trip(resnet50, tmp_path):
    path = str(tmp_path / 'resnet50.npz')
    serializers.save_npz(path, resnet50, compression=False)
    loaded = L.ResNet50Layers(pretrained_model=path)
    for (n1, p1), (n2, p2) in zip(sorted(resnet50.namedparams()),
                                  sorted(loaded.namedparams())):
        assert n1 == n2
        numpy.testing.assert_array_equal(p1.array, p2.array)
    numpy.testing.assert_array_equal(loaded.res4.b2.bn1.avg_var,
                                     resnet50.res4.b2.bn1.avg_var)
    x = numpy.random.RandomState(4).uniform(-1, 1, (1, 3, 32, 32)).astype(
        numpy.float32)
    with cpuframe.using_config('train', False):
        numpy.testing.assert_array_equal(
            loaded(x, layers=['fc6'])['fc6'].array,
            resnet50(x, layers=['fc6'])['fc6'].array)


def test_auto_loads_converted_model_from_dataset_root(resnet50, dataset_root):
    models = dataset_root / 'pfnet' / 'chainer' / 'models'
    models.mkdir(parents=True)
    serializers.save_npz(str(models / 'ResNet-50-model.npz'), resnet50,
                         compression=False)
    loaded = L.ResNet50Layers()
    numpy.testing.assert_array_equal(loaded.fc6.W.array, resnet50.fc6.W.array)
    # a caffemodel path means its converted npz in the models directory
    loaded = L.ResNet50Layers('/somewhere/ResNet-50-model.caffemodel')
    numpy.testing.assert_array_equal(loaded.res5.a.conv4.W.array,
                                     resnet50.res5.a.conv4.W.array)


@pytest.mark.parametrize('cls, name', [
    (L.ResNet50Layers, 'ResNet-50-model.npz'),
    (L.ResNet152Layers, 'ResNet-152-model.npz')])
def test_auto_without_file_says_where_to_put_it(dataset_root, cls, name):
    expected = os.path.join(str(dataset_root), 'pfnet/chainer/models', name)
    with pytest.raises(FileNotFoundError) as e:
        cls()
    message = str(e.value)
    assert message.startswith(cls.__name__ + ':')
    assert expected in message
    assert 'deep-residual-networks' in message
    assert 'convert_caffemodel_to_npz' in message


def test_missing_npz_path(tmp_path):
    missing = str(tmp_path / 'nothing.npz')
    with pytest.raises(FileNotFoundError,
                       match="ResNet50Layers: pretrained_model .*nothing.npz'"
                             ' does not exist'):
        L.ResNet50Layers(missing)


def test_convert_caffemodel_is_not_available(tmp_path):
    with pytest.raises(NotImplementedError,
                       match='cannot read Caffe models.*protobuf'):
        L.ResNet50Layers.convert_caffemodel_to_npz('a.caffemodel',
                                                   str(tmp_path / 'a.npz'))


def test_bad_n_layers():
    with pytest.raises(ValueError, match='either 50, 101, or 152, but 34'):
        resnet.ResNetLayers(None, 34)


def test_downsample_fb_moves_the_stride():
    block = resnet.BuildingBlock(2, 4, 2, 8, 2, downsample_fb=True)
    assert block.a.conv1.stride == (1, 1)
    assert block.a.conv2.stride == (2, 2)
    assert block.a.conv4.stride == (2, 2)
    msra = resnet.BuildingBlock(2, 4, 2, 8, 2, downsample_fb=False)
    assert msra.a.conv1.stride == (2, 2) and msra.a.conv2.stride == (1, 1)
    x = numpy.random.RandomState(0).uniform(-1, 1, (1, 4, 5, 5)).astype(
        numpy.float32)
    for b in (block, msra):
        with cpuframe.using_config('train', False):
            y = b(x)
        assert y.shape == (1, 8, 3, 3)
        h = R._bottleneck(b.a, x.astype(numpy.float64))
        numpy.testing.assert_allclose(
            y.array, R._bottleneck(b.b1, h), rtol=1e-4, atol=1e-5)


def test_building_block_arguments():
    with pytest.warns(DeprecationWarning, match='n_layer'):
        block = resnet.BuildingBlock(in_channels=2, mid_channels=1,
                                     out_channels=3, stride=1, n_layer=3)
    assert block._forward == ['a', 'b1', 'b2']
    with pytest.raises(ValueError, match='BuildingBlock: n_layers must be a '
                                         'positive int, got 0'):
        resnet.BuildingBlock(0, 2, 1, 3, 1)
    with pytest.raises(TypeError, match='unexpected keyword.*bogus'):
        resnet.BuildingBlock(1, 2, 1, 3, 1, bogus=1)


def _condition(link, x, seed):
    """Weights far from every relu kink (see test_inceptionbn): batch
    normalizations scale by 0.1 and shift by +-(1..2), with the running
    statistics of ``x``'s batch."""
    rng = numpy.random.RandomState(seed)
    for p in link.params():
        p.array = rng.uniform(-1, 1, p.shape)
    bns = [c for _, c in sorted(link.namedlinks(skipself=True))
           if isinstance(c, L.BatchNormalization)]
    for bn in bns:
        bn.gamma.array[...] = 0.1
        sign = numpy.where(rng.uniform(size=bn.beta.shape) < 0.25, -1., 1.)
        bn.beta.array[...] = sign * rng.uniform(1., 2., bn.beta.shape)
        bn.decay = 0.
    with cpuframe.using_config('train', True):
        link(x)
    for bn in bns:
        bn.decay = 0.9
    link.cleargrads()


@pytest.mark.parametrize('train', [True, False])
@pytest.mark.parametrize('kind', ['A', 'A_fb', 'B'])
def test_bottleneck_gradient(train, kind):
    with cpuframe.using_config('dtype', numpy.float64):
        if kind == 'B':
            link = resnet.BottleneckB(3, 2)
        else:
            link = resnet.BottleneckA(2, 2, 3, stride=2,
                                      downsample_fb=(kind == 'A_fb'))
    channels = 3 if kind == 'B' else 2
    x = numpy.random.RandomState(1).uniform(-1, 1, (3, channels, 4, 4))
    _condition(link, x, 2)
    with cpuframe.using_config('train', train):
        gy = numpy.random.RandomState(3).uniform(-1, 1, link(x).shape)
        gradient_check.check_backward(link, x, gy,
                                      params=tuple(link.params()),
                                      atol=1e-6, rtol=1e-5)


def test_prepare_mean_and_layout():
    image = numpy.random.RandomState(5).randint(0, 256, (6, 7, 3)).astype(
        numpy.uint8)
    out = resnet.prepare(image, size=None)
    assert out.shape == (3, 6, 7) and out.dtype == numpy.float32
    # BGR order, minus the MSRA mean pixel (B, G, R) = (103.063, 115.903,
    # 123.152)
    for c, (src, mean) in enumerate([(2, 103.063), (1, 115.903),
                                     (0, 123.152)]):
        numpy.testing.assert_allclose(
            out[c], image[:, :, src].astype(numpy.float32) -
            numpy.float32(mean), rtol=1e-6)
    # an array already of the requested (width, height) is not resized
    numpy.testing.assert_array_equal(resnet.prepare(image, size=(7, 6)), out)
