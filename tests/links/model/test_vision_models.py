"""VGG, GoogLeNet and what the pre-trained models share (prepare, forward,
extract, predict).  ResNet has its own file."""
import collections
import importlib.util
import os
import sys

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import initializers, serializers
from cpuframe.dataset import download
from cpuframe.links.model.vision import _pretrained, googlenet, resnet, vgg

_spec = importlib.util.spec_from_file_location(
    '_vision_reference',
    os.path.join(os.path.dirname(__file__), '_vision_reference.py'))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)


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


def _constant_normal(monkeypatch):
    """Replace VGG's Normal by a Constant of its scale (a VGG of random
    samples takes seconds to build); returns the scales asked for."""
    scales = []

    def fake(scale):
        scales.append(scale)
        return initializers.Constant(scale)

    monkeypatch.setattr(vgg, 'Normal', fake)
    return scales


@pytest.fixture(scope='module')
def vgg16():
    patch = pytest.MonkeyPatch()
    scales = _constant_normal(patch)
    try:
        model = L.VGG16Layers(pretrained_model=None)
    finally:
        patch.undo()
    rng = numpy.random.RandomState(0)
    for name, link in model.namedlinks(skipself=True):
        if name.startswith('/conv'):  # He-scaled weights keep activations
            fan_in = link.W.shape[1] * 9
            link.W.array[...] = rng.normal(0, numpy.sqrt(2. / fan_in),
                                           link.W.shape)
            link.b.array[...] = rng.uniform(-0.1, 0.1, link.b.shape)
    return model, scales


def _vgg_layers(counts):
    names = []
    for block, count in enumerate(counts, 1):
        names += ['conv{}_{}'.format(block, i) for i in range(1, count + 1)]
        names.append('pool{}'.format(block))
    return names + ['fc6', 'fc7', 'fc8', 'prob']


# -- VGG -------------------------------------------------------------------
def test_vgg16_structure(vgg16):
    model, scales = vgg16
    assert sum(p.size for p in model.params()) == 138357544  # published
    assert model.available_layers == _vgg_layers((2, 2, 3, 3, 3))
    assert scales and set(scales) == {0.01}  # Normal(0.01), as the paper
    assert (model.fc7.b.array == 0).all() and (model.fc7.W.array == 0.01).all()
    assert model.conv3_1.W.shape == (256, 128, 3, 3)
    assert model.conv3_1.pad == (1, 1) and model.conv3_1.stride == (1, 1)
    assert model.fc6.W.shape == (4096, 512 * 7 * 7)
    assert model.fc8.W.shape == (1000, 4096)
    assert not hasattr(model, 'conv3_4')


def test_vgg19_structure(monkeypatch):
    scales = _constant_normal(monkeypatch)
    model = L.VGG19Layers(pretrained_model=None)
    assert set(scales) == {0.01}
    assert sum(p.size for p in model.params()) == 143667240  # published
    assert model.available_layers == _vgg_layers((2, 2, 4, 4, 4))
    children = [name for name, _ in model.namedlinks(skipself=True)]
    # Chainer 7 visits a chain's children sorted by name
    assert children == sorted(children)
    assert children[-6:] == ['/conv5_2', '/conv5_3', '/conv5_4', '/fc6',
                             '/fc7', '/fc8']
    assert model.conv4_4.W.shape == (512, 512, 3, 3)


def test_vgg_forward_matches_reference(vgg16):
    model, _ = vgg16
    x = numpy.random.RandomState(1).uniform(-1, 1, (2, 3, 32, 32)).astype(
        numpy.float32)
    layers = _vgg_layers((2, 2, 3, 3, 3))[:-4]
    y = model(x, layers=layers)
    expect = R.vgg(model, x.astype(numpy.float64), 16)
    for name in layers:
        assert y[name].shape == expect[name].shape, name
        scale = numpy.abs(expect[name]).max()
        numpy.testing.assert_allclose(y[name].array, expect[name],
                                      atol=1e-5 * scale, rtol=1e-4,
                                      err_msg=name)
    assert y['pool5'].shape == (2, 512, 1, 1)


def test_vgg_classifier_layers(vgg16):
    # fc6 needs 7x7 maps (224x224 images); run the layers after pool5 on a
    # pool5-shaped input
    model, _ = vgg16
    rng = numpy.random.RandomState(2)
    h0 = rng.uniform(0, 1, (2, 512, 7, 7)).astype(numpy.float32)
    with cpuframe.using_config('train', False):
        h = h0
        out = {}
        for name in ('fc6', 'fc7', 'fc8', 'prob'):
            for f in model.functions[name]:
                h = f(h)
            out[name] = h.array
    fc6 = R.relu(R.linear_link(model.fc6, h0.astype(numpy.float64)))
    numpy.testing.assert_allclose(out['fc6'], fc6, rtol=1e-4)
    fc8 = R.linear_link(model.fc8, R.relu(R.linear_link(model.fc7, fc6)))
    numpy.testing.assert_allclose(out['fc8'], fc8, rtol=1e-4)
    numpy.testing.assert_allclose(out['prob'], R.softmax(fc8), rtol=1e-4)
    with cpuframe.using_config('train', True):  # dropout after fc6
        dropped = model.functions['fc6'][-1](numpy.ones((1, 4096),
                                                        numpy.float32))
    assert set(numpy.unique(dropped.array)) <= {0., 2.}


def test_vgg_errors(dataset_root, tmp_path):
    with pytest.raises(ValueError, match='either 16 or 19, but 11'):
        vgg.VGGLayers(None, n_layers=11)
    expected = os.path.join(str(dataset_root), 'pfnet/chainer/models',
                            'VGG_ILSVRC_16_layers.npz')
    with pytest.raises(FileNotFoundError) as e:
        L.VGG16Layers()
    assert str(e.value).startswith('VGG16Layers: ')
    assert expected in str(e.value)
    assert 'VGG_ILSVRC_16_layers.caffemodel' in str(e.value)
    with pytest.raises(FileNotFoundError, match='VGG19_LAYERS|VGG19Layers:'):
        L.VGG19Layers(str(tmp_path / 'missing.npz'))
    with pytest.raises(NotImplementedError, match='VGG16Layers.convert_'
                                                  'caffemodel_to_npz'):
        L.VGG16Layers.convert_caffemodel_to_npz('a', 'b')


@pytest.mark.slow
def test_vgg16_npz_round_trip(vgg16, dataset_root):
    model, _ = vgg16
    models = dataset_root / 'pfnet' / 'chainer' / 'models'
    models.mkdir(parents=True)
    serializers.save_npz(str(models / 'VGG_ILSVRC_16_layers.npz'), model,
                         compression=False)
    loaded = L.VGG16Layers()  # 'auto'
    for name in ('conv1_1', 'conv5_3', 'fc8'):
        numpy.testing.assert_array_equal(getattr(loaded, name).W.array,
                                         getattr(model, name).W.array)


# -- GoogLeNet -------------------------------------------------------------
GOOGLENET_LAYERS = [
    'conv1', 'pool1', 'conv2_reduce', 'conv2', 'pool2', 'inception_3a',
    'inception_3b', 'pool3', 'inception_4a', 'inception_4b', 'inception_4c',
    'inception_4d', 'inception_4e', 'pool4', 'inception_5a', 'inception_5b',
    'pool5', 'loss3_fc', 'prob', 'loss1_fc2', 'loss2_fc2']


@pytest.fixture(scope='module')
def net():
    return L.GoogLeNet(pretrained_model=None)


def test_googlenet_structure(net):
    assert net.available_layers == GOOGLENET_LAYERS
    assert isinstance(net.inc4e, L.Inception)
    # (in, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool proj) of table 1
    assert net.inc4e.conv1.W.shape == (256, 528, 1, 1)
    assert net.inc4e.proj3.W.shape == (160, 528, 1, 1)
    assert net.inc4e.conv3.W.shape == (320, 160, 3, 3)
    assert net.inc4e.proj5.W.shape == (32, 528, 1, 1)
    assert net.inc4e.conv5.W.shape == (128, 32, 5, 5)
    assert net.inc4e.projp.W.shape == (128, 528, 1, 1)
    assert net.inc5b.conv1.W.shape == (384, 832, 1, 1)
    assert net.conv1.W.shape == (64, 3, 7, 7) and net.conv1.stride == (2, 2)
    assert net.loss1_conv.W.shape == (128, 512, 1, 1)
    assert net.loss2_conv.W.shape == (128, 528, 1, 1)
    assert net.loss1_fc1.W.shape == (1024, 2048)
    assert net.loss3_fc.W.shape == (1000, 1024)
    # LeCunUniform(1.0): uniform on +-sqrt(3 / fan_in)
    bound = numpy.sqrt(3. / (64 * 9))
    w = net.conv2.W.array
    assert numpy.abs(w).max() <= bound
    numpy.testing.assert_allclose(w.std(), bound / numpy.sqrt(3.), rtol=0.02)


def test_googlenet_forward_matches_reference(net):
    x = numpy.random.RandomState(3).uniform(-20, 20, (1, 3, 224, 224)).astype(
        numpy.float32)
    with cpuframe.using_config('train', False):
        y = net(x, layers=GOOGLENET_LAYERS)
    expect = R.googlenet(net, x.astype(numpy.float64))
    assert set(expect) == set(GOOGLENET_LAYERS)
    for name in GOOGLENET_LAYERS:
        assert y[name].shape == expect[name].shape, name
        scale = numpy.abs(expect[name]).max()
        numpy.testing.assert_allclose(y[name].array, expect[name],
                                      atol=1e-5 * scale, rtol=1e-3,
                                      err_msg=name)
    assert y['pool5'].shape == (1, 1024, 1, 1)


def test_googlenet_side_heads_only(net, monkeypatch):
    x = numpy.random.RandomState(4).uniform(-20, 20, (1, 3, 224, 224)).astype(
        numpy.float32)
    with cpuframe.using_config('train', False):
        both = net(x, layers=['loss1_fc2', 'loss2_fc2'])
        # the first head starts from inception_4a, whatever ran after it
        h = net(x, layers=['inception_4a'])['inception_4a']
        h = F.average_pooling_2d(h, 5, 3)
        h = F.relu(net.loss1_fc1(F.relu(net.loss1_conv(h))))
        numpy.testing.assert_allclose(both['loss1_fc2'].array,
                                      net.loss1_fc2(h).array, rtol=1e-5)

        def fail(*args):
            raise AssertionError('inception_5a ran for inception_4a')

        monkeypatch.setattr(net.inc5a, 'forward', fail)
        assert list(net(x, layers=['inception_4a'])) == ['inception_4a']


def test_googlenet_npz_round_trip_and_auto(net, dataset_root, tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        L.GoogLeNet()
    assert os.path.join(str(dataset_root), 'pfnet/chainer/models',
                        'bvlc_googlenet.npz') in str(e.value)
    assert 'bvlc_googlenet.caffemodel' in str(e.value)
    models = dataset_root / 'pfnet' / 'chainer' / 'models'
    models.mkdir(parents=True, exist_ok=True)
    path = str(models / 'bvlc_googlenet.npz')
    serializers.save_npz(path, net, compression=False)
    x = numpy.random.RandomState(5).uniform(-1, 1, (1, 3, 64, 64)).astype(
        numpy.float32)
    for loaded in (L.GoogLeNet(), L.GoogLeNet(path)):
        for (n1, p1), (n2, p2) in zip(sorted(net.namedparams()),
                                      sorted(loaded.namedparams())):
            assert n1 == n2
            numpy.testing.assert_array_equal(p1.array, p2.array)
        numpy.testing.assert_array_equal(
            loaded(x, layers=['inception_3b'])['inception_3b'].array,
            net(x, layers=['inception_3b'])['inception_3b'].array)


# -- prepare -----------------------------------------------------------------
MEANS = [(vgg.prepare, (103.939, 116.779, 123.68)),
         (resnet.prepare, (103.063, 115.903, 123.152)),
         (googlenet.prepare, (104.0, 117.0, 123.0))]


def _expected(rgb, mean, dtype=numpy.float32):
    bgr = rgb[:, :, ::-1].astype(numpy.float64) - numpy.asarray(mean)
    return bgr.transpose(2, 0, 1).astype(dtype)


@pytest.mark.parametrize('prepare, mean', MEANS)
def test_prepare_array_forms(prepare, mean):
    rng = numpy.random.RandomState(0)
    rgb = rng.randint(0, 256, (5, 6, 3)).astype(numpy.uint8)
    expect = _expected(rgb, mean)
    numpy.testing.assert_allclose(prepare(rgb, size=None), expect, rtol=1e-6, atol=1e-4)
    chw = rgb.transpose(2, 0, 1)  # (3, H, W)
    numpy.testing.assert_allclose(prepare(chw, size=None), expect, rtol=1e-6, atol=1e-4)
    rgba = numpy.concatenate([rgb, rng.randint(0, 256, (5, 6, 1))], axis=2)
    numpy.testing.assert_allclose(prepare(rgba, size=(6, 5)), expect,
                                  rtol=1e-6, atol=1e-4)
    grey = rgb[:, :, 0]
    g = _expected(numpy.stack([grey] * 3, axis=2), mean)
    numpy.testing.assert_allclose(prepare(grey, size=None), g, rtol=1e-6, atol=1e-4)
    numpy.testing.assert_allclose(prepare(grey[None], size=None), g,
                                  rtol=1e-6, atol=1e-4)
    # floats are truncated to uint8 as Chainer converts them
    numpy.testing.assert_allclose(
        prepare(rgb.astype(numpy.float64) + 0.7, size=None), expect,
        rtol=1e-6, atol=1e-4)


def test_prepare_dtype_follows_config():
    rgb = numpy.full((4, 4, 3), 200, numpy.uint8)
    for dtype in (numpy.float16, numpy.float64):
        with cpuframe.using_config('dtype', dtype):
            out = vgg.prepare(rgb, size=None)
        assert out.dtype == dtype
        numpy.testing.assert_allclose(out.astype(numpy.float64),
                                      _expected(rgb, MEANS[0][1], dtype),
                                      rtol=1e-3)


def test_prepare_errors(monkeypatch):
    with pytest.raises(ValueError, match=r'vgg.prepare: expected an image '
                                         r'array of shape .*got shape '
                                         r'\(4, 4, 2\)'):
        vgg.prepare(numpy.zeros((4, 4, 2), numpy.uint8))
    with pytest.raises(ValueError, match='resnet.prepare: size must be None '
                                         'or a pair of positive ints'):
        resnet.prepare(numpy.zeros((4, 4, 3)), size=(4, -1))
    with pytest.raises(TypeError, match='googlenet.prepare: expected a PIL '
                                        'image or a numpy.ndarray, got list'):
        googlenet.prepare([[0]])
    # resizing needs Pillow: without it, a clear ImportError
    monkeypatch.setitem(sys.modules, 'PIL', None)
    with pytest.raises(ImportError, match='vgg.prepare needs Pillow to resize '
                                          'an image to \\(8, 8\\)'):
        vgg.prepare(numpy.zeros((4, 4, 3), numpy.uint8), size=(8, 8))
    assert vgg.available is False and googlenet.available is False


def test_prepare_with_pillow():
    Image = pytest.importorskip('PIL.Image', reason='Pillow is not installed '
                                '(the test extra provides it)')
    rgb = numpy.random.RandomState(1).randint(0, 256, (5, 7, 3)).astype(
        numpy.uint8)
    image = Image.fromarray(rgb)
    # float32 mean subtraction: a few ulp of the pixel scale (atol)
    numpy.testing.assert_allclose(vgg.prepare(image, size=None),
                                  _expected(rgb, MEANS[0][1]), rtol=1e-6,
                                  atol=1e-4)
    # size is (width, height), Pillow's order; arrays resize as images do
    out = vgg.prepare(rgb, size=(9, 4))
    assert out.shape == (3, 4, 9)
    resized = numpy.asarray(image.resize((9, 4)))
    numpy.testing.assert_allclose(out, _expected(resized, MEANS[0][1]),
                                  rtol=1e-6, atol=1e-4)
    numpy.testing.assert_allclose(vgg.prepare(image.convert('L')),
                                  vgg.prepare(numpy.asarray(
                                      image.convert('L'))), rtol=1e-6)
    assert vgg.available is True


# -- forward / extract / predict, on a tiny model ----------------------------
class Tiny(_pretrained.PretrainedModel):
    """conv -> global average -> linear -> softmax, any input size."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, 3, pad=1)
            self.fc = L.Linear(4, 5)

    @property
    def functions(self):
        return collections.OrderedDict([
            ('conv', [self.conv, F.relu]),
            ('pool5', [lambda h: F.mean(h, axis=(2, 3))]),
            ('fc', [self.fc]),
            ('prob', [F.softmax]),
        ])

    @staticmethod
    def _prepare(image, size):
        return resnet.prepare(image, size)


def _tiny_reference(model, x):
    h = R.relu(R.conv_link(model.conv, x)).mean(axis=(2, 3))
    return R.softmax(R.linear_link(model.fc, h) / 1.)


def test_extract_prepares_and_forwards():
    model = Tiny()
    model.fc.W.array *= 0.01
    rng = numpy.random.RandomState(0)
    images = [rng.randint(0, 256, (8, 8, 3)).astype(numpy.uint8)
              for _ in range(2)]
    out = model.extract(images, layers=['pool5', 'prob'], size=(8, 8))
    x = numpy.stack([_expected(im, MEANS[1][1]) for im in images])
    numpy.testing.assert_allclose(out['prob'].array,
                                  _tiny_reference(model, x.astype('d')),
                                  rtol=1e-4)
    assert out['pool5'].shape == (2, 4)
    assert list(model.extract(images, size=None)) == ['pool5']  # default


@pytest.mark.parametrize('oversample', [True, False])
def test_predict(oversample):
    model = Tiny()
    model.fc.W.array *= 0.01
    rng = numpy.random.RandomState(1)
    images = [rng.randint(0, 256, (256, 256, 3)).astype(numpy.uint8)
              for _ in range(2)]
    y = model.predict(images, oversample=oversample)
    # no graph kept (requires_grad follows the parameters, as in Chainer 7)
    assert y.shape == (2, 5) and y.creator is None
    expect = []
    for im in images:
        full = _expected(im, MEANS[1][1]).astype(numpy.float64)
        if oversample:
            # four corners and the centre, and their mirrors
            crops = [full[:, i:i + 224, j:j + 224]
                     for i, j in [(0, 0), (0, 32), (32, 0), (32, 32),
                                  (16, 16)]]
            crops += [c[:, :, ::-1] for c in crops]
        else:
            crops = [full[:, 16:240, 16:240]]
        expect.append(_tiny_reference(model, numpy.stack(crops)).mean(0))
    numpy.testing.assert_allclose(y.array, numpy.stack(expect), rtol=1e-4)


def test_forward_argument_errors(net):
    model = Tiny()
    x = numpy.zeros((1, 3, 4, 4), numpy.float32)
    with pytest.raises(ValueError, match=r"Tiny.forward: unknown layer\(s\) "
                                         r"\['fc7'\]; the available layers "
                                         r"are \['conv'"):
        model(x, layers=['conv', 'fc7'])
    with pytest.raises(TypeError, match="layers must be a list of layer "
                                        "names, got the string 'prob'"):
        model(x, layers='prob')
    with pytest.raises(ValueError, match='test argument is not supported'):
        model(x, test=True)
    with pytest.raises(ValueError, match='train argument is not supported'):
        net(x, train=False)
    with pytest.raises(ValueError, match='volatile argument is not supported'):
        model.extract([], volatile=True)
    with pytest.raises(TypeError, match='unexpected keyword.*bogus'):
        model(x, bogus=1)
    with pytest.raises(ValueError, match=r"Tiny.extract: unknown layer"):
        model.extract([numpy.zeros((4, 4, 3), numpy.uint8)], layers=['x'],
                      size=None)
