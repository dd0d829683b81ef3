"""VGG-16 and VGG-19 (Simonyan and Zisserman, 2014), with Chainer's layer
names and its pre-trained weights when converted to ``.npz``."""
import collections

from cpuframe.functions.activation.relu import relu
from cpuframe.functions.activation.softmax import softmax
from cpuframe.functions.noise.dropout import dropout
from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
from cpuframe.initializers.constant import Zero
from cpuframe.initializers.normal import Normal
from cpuframe.links.connection.convolution_2d import Convolution2D
from cpuframe.links.connection.linear import Linear
from cpuframe.links.model.vision import _pretrained

__all__ = ['VGGLayers', 'VGG16Layers', 'VGG19Layers', 'prepare']

# Mean pixel of the VGG training images, BGR.
_MEAN_BGR = (103.939, 116.779, 123.68)

_CAFFEMODELS = {
    16: 'https://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/'
        'VGG_ILSVRC_16_layers.caffemodel',
    19: 'http://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/'
        'VGG_ILSVRC_19_layers.caffemodel',
}

# Convolutions per block (the blocks have 64, 128, 256, 512, 512 channels).
_BLOCKS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_CHANNELS = (64, 128, 256, 512, 512)


def __getattr__(name):
    # Chainer's flag: whether Pillow (used by prepare) can be imported.
    if name == 'available':
        return _pretrained.pillow_available()
    raise AttributeError(
        'module {!r} has no attribute {!r}'.format(__name__, name))


def _pool(x):
    return max_pooling_2d(x, ksize=2)


class VGGLayers(_pretrained.PretrainedModel):
    """VGG network of ``n_layers`` (16 or 19) weight layers.

    Children ``conv1_1`` ... ``conv5_3`` (``conv5_4`` for 19 layers; 3x3,
    pad 1), ``fc6`` (25088 -> 4096), ``fc7``, ``fc8`` (-> 1000).  The layers
    ``forward`` can return are ``available_layers``: every convolution
    (after relu), ``pool1`` ... ``pool5`` (2x2 max pooling), ``fc6``,
    ``fc7`` (after relu and dropout), ``fc8`` and ``prob`` (softmax).
    ``fc6`` expects 7x7 maps, i.e. 224x224 images.

    Args:
        pretrained_model (str or None): ``'auto'`` loads
            ``<dataset root>/pfnet/chainer/models/VGG_ILSVRC_{16,19}_layers.npz``
            (the file Chainer converts the published caffemodel to; cpuframe
            cannot convert it, and says where to put the file when it is
            missing); a path loads that ``.npz``; ``None`` initializes the
            weights with ``Normal(0.01)`` and the biases with zeros (the
            paper's initialization).
        n_layers (int): 16 or 19.
    """

    _default_extract = 'fc7'

    def __init__(self, pretrained_model='auto', n_layers=16):
        if n_layers not in _BLOCKS:
            raise ValueError(
                'The n_layers argument should be either 16 or 19, but {!r} '
                'was given.'.format(n_layers))
        weights = _pretrained.weights_file(
            pretrained_model, 'VGG_ILSVRC_{}_layers.npz'.format(n_layers),
            _CAFFEMODELS[n_layers], type(self).__name__)
        super().__init__()
        if pretrained_model:
            # Overwritten by the loaded weights: zeros are quickest to make.
            kwargs = {'initialW': Zero(), 'initial_bias': Zero()}
        else:
            kwargs = {'initialW': Normal(0.01), 'initial_bias': Zero()}
        self._n_layers = n_layers
        with self.init_scope():
            # Registered in Chainer's order: VGG-16's layers, then the
            # fourth convolutions of blocks 3-5 that VGG-19 adds.
            for block, count in enumerate(_BLOCKS[16], 1):
                for i in range(1, count + 1):
                    self._add_conv(block, i, kwargs)
            self.fc6 = Linear(512 * 7 * 7, 4096, **kwargs)
            self.fc7 = Linear(4096, 4096, **kwargs)
            self.fc8 = Linear(4096, 1000, **kwargs)
            if n_layers == 19:
                for block in (3, 4, 5):
                    self._add_conv(block, 4, kwargs)
        _pretrained.load(self, weights)

    def _add_conv(self, block, i, kwargs):
        out_channels = _CHANNELS[block - 1]
        if i > 1:
            in_channels = out_channels
        else:
            in_channels = 3 if block == 1 else _CHANNELS[block - 2]
        setattr(self, 'conv{}_{}'.format(block, i), Convolution2D(
            in_channels, out_channels, 3, 1, 1, **kwargs))

    @property
    def functions(self):
        blocks = _BLOCKS[self._n_layers]
        layers = []
        for block, count in enumerate(blocks, 1):
            for i in range(1, count + 1):
                name = 'conv{}_{}'.format(block, i)
                layers.append((name, [getattr(self, name), relu]))
            layers.append(('pool{}'.format(block), [_pool]))
        layers += [
            ('fc6', [self.fc6, relu, dropout]),
            ('fc7', [self.fc7, relu, dropout]),
            ('fc8', [self.fc8]),
            ('prob', [softmax]),
        ]
        return collections.OrderedDict(layers)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Not available: cpuframe has no Caffe reader (raises
        NotImplementedError saying how to get the ``.npz``)."""
        _pretrained.no_caffe(cls)

    @staticmethod
    def _prepare(image, size):
        return prepare(image, size)


class VGG16Layers(VGGLayers):
    """VGG-16 (13 convolutions and 3 fully connected layers; 138,357,544
    parameters).  See :class:`VGGLayers`."""

    def __init__(self, pretrained_model='auto'):
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """VGG-19 (16 convolutions and 3 fully connected layers; 143,667,240
    parameters).  See :class:`VGGLayers`."""

    def __init__(self, pretrained_model='auto'):
        super().__init__(pretrained_model, 19)


def prepare(image, size=(224, 224)):
    """An image as the VGG models take it: a ``(3, H, W)`` BGR array of
    ``config.dtype`` minus the VGG mean pixel.

    Args:
        image (PIL.Image or numpy.ndarray): an RGB (or greyscale) image; an
            array is ``(H, W)``, ``(H, W, 3)``, ``(H, W, 4)`` (alpha
            dropped), ``(1, H, W)`` or ``(3, H, W)`` and converted to uint8
            as Chainer does.
        size (pair of ints or None): ``(width, height)`` to resize to
            (Pillow's default filter); ``None`` keeps the size.  Resizing
            and PIL images need Pillow; an array of the requested size does
            not.
    """
    return _pretrained.prepare_image(image, size, _MEAN_BGR, 'vgg.prepare')
