"""ResNet-50/101/152 (He et al., 2015) with Chainer's layer names and its
pre-trained weights when converted to ``.npz``."""
import collections
import os
import warnings

from cpuframe import link
from cpuframe.functions.activation.relu import relu
from cpuframe.functions.activation.softmax import softmax
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.pooling.average_pooling_2d import average_pooling_2d
from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
from cpuframe.initializers.constant import Zero
from cpuframe.initializers.normal import HeNormal
from cpuframe.links.connection.convolution_2d import Convolution2D
from cpuframe.links.connection.linear import Linear
from cpuframe.links.model.vision import _pretrained
from cpuframe.links.normalization.batch_normalization import BatchNormalization

__all__ = ['ResNetLayers', 'ResNet50Layers', 'ResNet101Layers',
           'ResNet152Layers', 'BuildingBlock', 'BottleneckA', 'BottleneckB',
           'prepare']

# Mean pixel used with the MSRA models, BGR.
_MEAN_BGR = (103.063, 115.903, 123.152)

# Bottlenecks in res2 ... res5.
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}

_CAFFEMODEL_SOURCE = 'https://github.com/KaimingHe/deep-residual-networks'


def __getattr__(name):
    # Chainer's flag: whether Pillow (used by prepare) can be imported.
    if name == 'available':
        return _pretrained.pillow_available()
    raise AttributeError(
        'module {!r} has no attribute {!r}'.format(__name__, name))


def _pool1(x):
    return max_pooling_2d(x, ksize=3, stride=2)


def _global_average_pooling_2d(x):
    n, channels, rows, cols = x.shape
    return reshape(average_pooling_2d(x, (rows, cols), stride=1),
                   (n, channels))


class ResNetLayers(_pretrained.PretrainedModel):
    """ResNet of ``n_layers`` (50, 101 or 152) layers, MSRA's variant.

    Children: ``conv1`` (7x7, stride 2, 64) and ``bn1``; ``res2`` ...
    ``res5`` (:class:`BuildingBlock`\\ s of 256, 512, 1024, 2048 channels,
    the last three halving the resolution); ``fc6`` (2048 -> 1000).
    ``available_layers``: ``conv1`` (after batch normalization and relu),
    ``pool1`` (3x3 stride 2 max pooling), ``res2`` ... ``res5``, ``pool5``
    (global average pooling, any input size), ``fc6``, ``prob``.

    Args:
        pretrained_model (str or None): a path ending in ``.caffemodel``
            (``'auto'`` means ``'ResNet-{n_layers}-model.caffemodel'``)
            loads ``<dataset root>/pfnet/chainer/models/ResNet-{n_layers}-model.npz``,
            the file Chainer converts that caffemodel to (cpuframe cannot
            convert it, and says where to put the file when it is missing);
            another path loads that ``.npz``; ``None`` initializes the
            convolutions with ``HeNormal(scale=1.0)``.
        n_layers (int): 50, 101 or 152.
        downsample_fb (bool): put the stride 2 of the downsampling
            bottlenecks on their 3x3 convolutions (Facebook's ResNet)
            instead of on the 1x1 ones (MSRA's).
    """

    def __init__(self, pretrained_model, n_layers, downsample_fb=False):
        if n_layers not in _BLOCKS:
            raise ValueError(
                'The n_layers argument should be either 50, 101, or 152, but '
                '{!r} was given.'.format(n_layers))
        if isinstance(pretrained_model, str) and pretrained_model == 'auto':
            pretrained_model = 'ResNet-{}-model.caffemodel'.format(n_layers)
        if isinstance(pretrained_model, (str, os.PathLike)) and \
                os.fspath(pretrained_model).endswith('.caffemodel'):
            # Chainer's rule: a caffemodel means its converted .npz in the
            # models directory (cpuframe cannot convert the caffemodel).
            weights = _pretrained.weights_file(
                'auto', 'ResNet-{}-model.npz'.format(n_layers),
                '{} from {}'.format(os.path.basename(pretrained_model),
                                    _CAFFEMODEL_SOURCE),
                type(self).__name__)
        else:
            weights = _pretrained.weights_file(
                pretrained_model, None, None, type(self).__name__)
        super().__init__()
        if pretrained_model:
            # Overwritten by the loaded weights: zeros are quickest to make.
            initialW = Zero()
        else:
            initialW = HeNormal(scale=1.0)
        block = _BLOCKS[n_layers]
        kwargs = {'initialW': initialW, 'downsample_fb': downsample_fb}
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, 2, 3, initialW=initialW)
            self.bn1 = BatchNormalization(64)
            self.res2 = BuildingBlock(block[0], 64, 64, 256, 1, **kwargs)
            self.res3 = BuildingBlock(block[1], 256, 128, 512, 2, **kwargs)
            self.res4 = BuildingBlock(block[2], 512, 256, 1024, 2, **kwargs)
            self.res5 = BuildingBlock(block[3], 1024, 512, 2048, 2, **kwargs)
            self.fc6 = Linear(2048, 1000)
        _pretrained.load(self, weights)

    @property
    def functions(self):
        return collections.OrderedDict([
            ('conv1', [self.conv1, self.bn1, relu]),
            ('pool1', [_pool1]),
            ('res2', [self.res2]),
            ('res3', [self.res3]),
            ('res4', [self.res4]),
            ('res5', [self.res5]),
            ('pool5', [_global_average_pooling_2d]),
            ('fc6', [self.fc6]),
            ('prob', [softmax]),
        ])

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz,
                                  n_layers=50):
        """Not available: cpuframe has no Caffe reader (raises
        NotImplementedError saying how to get the ``.npz``)."""
        _pretrained.no_caffe(cls)

    @staticmethod
    def _prepare(image, size):
        return prepare(image, size)


class ResNet50Layers(ResNetLayers):
    """ResNet-50 (25,557,096 parameters).  See :class:`ResNetLayers`."""

    def __init__(self, pretrained_model='auto', downsample_fb=False):
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-50-model.caffemodel'
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """ResNet-101 (44,549,224 parameters).  See :class:`ResNetLayers`."""

    def __init__(self, pretrained_model='auto', downsample_fb=False):
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-101-model.caffemodel'
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """ResNet-152 (60,192,872 parameters).  See :class:`ResNetLayers`."""

    def __init__(self, pretrained_model='auto', downsample_fb=False):
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-152-model.caffemodel'
        super().__init__(pretrained_model, 152, downsample_fb)


def prepare(image, size=(224, 224)):
    """An image as the ResNet models take it: a ``(3, H, W)`` BGR array of
    ``config.dtype`` minus the MSRA mean pixel.  Same arguments as
    :func:`cpuframe.links.model.vision.vgg.prepare`."""
    return _pretrained.prepare_image(image, size, _MEAN_BGR,
                                     'resnet.prepare')


class BuildingBlock(link.Chain):
    """A :class:`BottleneckA` (child ``a``) followed by ``n_layers - 1``
    :class:`BottleneckB`\\ s (``b1``, ``b2``, ...).

    Args:
        n_layers (int): bottlenecks in the block (``n_layer``, the old
            name, is accepted with a DeprecationWarning).
        in_channels, mid_channels, out_channels (int): channel counts.
        stride (int or pair of ints): stride of the first bottleneck.
        initialW: initializer of the convolutions.
        downsample_fb (bool): see :class:`ResNetLayers`.
    """

    def __init__(self, n_layers=None, in_channels=None, mid_channels=None,
                 out_channels=None, stride=None, initialW=None,
                 downsample_fb=None, **kwargs):
        if 'n_layer' in kwargs:
            warnings.warn('Argument `n_layer` is deprecated. Please use '
                          '`n_layers` instead', DeprecationWarning,
                          stacklevel=2)
            n_layers = kwargs.pop('n_layer')
        if kwargs:
            raise TypeError('BuildingBlock() got unexpected keyword '
                            'argument(s) {}'.format(', '.join(sorted(kwargs))))
        if not isinstance(n_layers, int) or isinstance(n_layers, bool) or \
                n_layers < 1:
            raise ValueError('BuildingBlock: n_layers must be a positive int, '
                             'got {!r}'.format(n_layers))
        super().__init__()
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels,
                                 stride, initialW, downsample_fb)
            self._forward = ['a']
            for i in range(1, n_layers):
                name = 'b{}'.format(i)
                setattr(self, name,
                        BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(name)

    def forward(self, x):
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


class BottleneckA(link.Chain):
    """The bottleneck that changes the channels (and, with ``stride``, the
    resolution): ``relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x))))))))
    + bn4(conv4(x)))`` with 1x1 ``conv1`` (-> ``mid_channels``), 3x3
    ``conv2``, 1x1 ``conv3`` (-> ``out_channels``) and the 1x1 projection
    ``conv4``; no biases.

    Args:
        in_channels, mid_channels, out_channels (int): channel counts.
        stride (int or pair of ints): stride of ``conv4`` and of ``conv1``
            (``conv2`` with ``downsample_fb``).
        initialW: initializer of the convolutions.
        downsample_fb (bool): see :class:`ResNetLayers`.
    """

    def __init__(self, in_channels, mid_channels, out_channels, stride=2,
                 initialW=None, downsample_fb=False):
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, mid_channels, 1,
                                       stride_1x1, 0, initialW=initialW,
                                       nobias=True)
            self.bn1 = BatchNormalization(mid_channels)
            self.conv2 = Convolution2D(mid_channels, mid_channels, 3,
                                       stride_3x3, 1, initialW=initialW,
                                       nobias=True)
            self.bn2 = BatchNormalization(mid_channels)
            self.conv3 = Convolution2D(mid_channels, out_channels, 1, 1, 0,
                                       initialW=initialW, nobias=True)
            self.bn3 = BatchNormalization(out_channels)
            self.conv4 = Convolution2D(in_channels, out_channels, 1, stride,
                                       0, initialW=initialW, nobias=True)
            self.bn4 = BatchNormalization(out_channels)

    def forward(self, x):
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu(h + self.bn4(self.conv4(x)))


class BottleneckB(link.Chain):
    """The bottleneck that keeps the shape: ``relu(x + bn3(conv3(relu(
    bn2(conv2(relu(bn1(conv1(x)))))))))`` (1x1, 3x3, 1x1; no biases).

    Args:
        in_channels (int): channels of the input and the output.
        mid_channels (int): channels inside.
        initialW: initializer of the convolutions.
    """

    def __init__(self, in_channels, mid_channels, initialW=None):
        super().__init__()
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, mid_channels, 1, 1, 0,
                                       initialW=initialW, nobias=True)
            self.bn1 = BatchNormalization(mid_channels)
            self.conv2 = Convolution2D(mid_channels, mid_channels, 3, 1, 1,
                                       initialW=initialW, nobias=True)
            self.bn2 = BatchNormalization(mid_channels)
            self.conv3 = Convolution2D(mid_channels, in_channels, 1, 1, 0,
                                       initialW=initialW, nobias=True)
            self.bn3 = BatchNormalization(in_channels)

    def forward(self, x):
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu(h + x)
