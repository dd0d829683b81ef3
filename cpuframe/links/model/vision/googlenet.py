"""GoogLeNet (Inception-v1; Szegedy et al., 2014) as BVLC trained it, with
Chainer's layer names and its pre-trained weights when converted to
``.npz``."""
import collections

from cpuframe.functions.activation.relu import relu
from cpuframe.functions.activation.softmax import softmax
from cpuframe.functions.noise.dropout import dropout
from cpuframe.functions.normalization.local_response_normalization import (
    local_response_normalization,
)
from cpuframe.functions.pooling.average_pooling_2d import average_pooling_2d
from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
from cpuframe.initializers.constant import Zero
from cpuframe.initializers.uniform import LeCunUniform
from cpuframe.links.connection.convolution_2d import Convolution2D
from cpuframe.links.connection.inception import Inception
from cpuframe.links.connection.linear import Linear
from cpuframe.links.model.vision import _pretrained

__all__ = ['GoogLeNet', 'prepare']

# Mean pixel of BVLC's GoogLeNet, BGR.
_MEAN_BGR = (104.0, 117.0, 123.0)

_CAFFEMODEL = 'http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel'

# Inception modules: (name, in_channels, out1, proj3, out3, proj5, out5,
# proj_pool), from the paper's table 1.
_INCEPTIONS = (
    ('3a', 192, 64, 96, 128, 16, 32, 32),
    ('3b', 256, 128, 128, 192, 32, 96, 64),
    ('4a', 480, 192, 96, 208, 16, 48, 64),
    ('4b', 512, 160, 112, 224, 24, 64, 64),
    ('4c', 512, 128, 128, 256, 24, 64, 64),
    ('4d', 512, 112, 144, 288, 32, 64, 64),
    ('4e', 528, 256, 160, 320, 32, 128, 128),
    ('5a', 832, 256, 160, 320, 32, 128, 128),
    ('5b', 832, 384, 192, 384, 48, 128, 128),
)


def __getattr__(name):
    # Chainer's flag: whether Pillow (used by prepare) can be imported.
    if name == 'available':
        return _pretrained.pillow_available()
    raise AttributeError(
        'module {!r} has no attribute {!r}'.format(__name__, name))


def _max_pool(x):
    return max_pooling_2d(x, ksize=3, stride=2)


def _lrn(x):
    return local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pool_k5(x):
    return average_pooling_2d(x, ksize=5, stride=3)


def _average_pool_k7(x):
    return average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x):
    return dropout(x, ratio=0.4)


class GoogLeNet(_pretrained.PretrainedModel):
    """GoogLeNet with its two auxiliary classifiers.

    Children ``conv1`` (7x7 stride 2), ``conv2_reduce``, ``conv2``,
    :class:`~cpuframe.links.Inception` modules ``inc3a`` ... ``inc5b``,
    ``loss3_fc`` (the classifier) and the auxiliary heads ``loss1_conv``,
    ``loss1_fc1``, ``loss1_fc2`` (on ``inception_4a``) and ``loss2_*`` (on
    ``inception_4d``).  ``available_layers``: ``conv1``, ``pool1``,
    ``conv2_reduce``, ``conv2``, ``pool2``, ``inception_3a`` ...
    ``inception_5b``, ``pool3``, ``pool4``, ``pool5``, ``loss3_fc``,
    ``prob``, ``loss1_fc2``, ``loss2_fc2``.  ``pool5`` (7x7 average
    pooling) expects 224x224 images.

    Args:
        pretrained_model (str or None): ``'auto'`` loads
            ``<dataset root>/pfnet/chainer/models/bvlc_googlenet.npz`` (the
            file Chainer converts BVLC's caffemodel to; cpuframe cannot
            convert it, and says where to put the file when it is
            missing); a path loads that ``.npz``; ``None`` initializes the
            weights of the non-Inception layers with
            ``LeCunUniform(scale=1.0)`` (Caffe's "xavier" filler) and the
            Inception modules with their defaults.
    """

    _branch_inputs = {'loss1_fc2': 'inception_4a',
                      'loss2_fc2': 'inception_4d'}
    _removed_argument = 'train'

    def __init__(self, pretrained_model='auto'):
        weights = _pretrained.weights_file(
            pretrained_model, 'bvlc_googlenet.npz', _CAFFEMODEL,
            type(self).__name__)
        super().__init__()
        if pretrained_model:
            # Overwritten by the loaded weights: zeros are quickest to make.
            kwargs = {'initialW': Zero()}
        else:
            kwargs = {'initialW': LeCunUniform(scale=1.0)}
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, stride=2, pad=3, **kwargs)
            self.conv2_reduce = Convolution2D(64, 64, 1, **kwargs)
            self.conv2 = Convolution2D(64, 192, 3, stride=1, pad=1, **kwargs)
            for name, *channels in _INCEPTIONS:
                setattr(self, 'inc' + name, Inception(*channels))
            self.loss3_fc = Linear(1024, 1000, **kwargs)
            self.loss1_conv = Convolution2D(512, 128, 1, **kwargs)
            self.loss1_fc1 = Linear(2048, 1024, **kwargs)
            self.loss1_fc2 = Linear(1024, 1000, **kwargs)
            self.loss2_conv = Convolution2D(528, 128, 1, **kwargs)
            self.loss2_fc1 = Linear(2048, 1024, **kwargs)
            self.loss2_fc2 = Linear(1024, 1000, **kwargs)
        _pretrained.load(self, weights)

    @property
    def functions(self):
        return collections.OrderedDict([
            ('conv1', [self.conv1, relu]),
            ('pool1', [_max_pool, _lrn]),
            ('conv2_reduce', [self.conv2_reduce, relu]),
            ('conv2', [self.conv2, relu, _lrn]),
            ('pool2', [_max_pool]),
            ('inception_3a', [self.inc3a]),
            ('inception_3b', [self.inc3b]),
            ('pool3', [_max_pool]),
            ('inception_4a', [self.inc4a]),
            ('inception_4b', [self.inc4b]),
            ('inception_4c', [self.inc4c]),
            ('inception_4d', [self.inc4d]),
            ('inception_4e', [self.inc4e]),
            ('pool4', [_max_pool]),
            ('inception_5a', [self.inc5a]),
            ('inception_5b', [self.inc5b]),
            ('pool5', [_average_pool_k7]),
            ('loss3_fc', [_dropout, self.loss3_fc]),
            ('prob', [softmax]),
            # The auxiliary heads come last, so a forward that stops at
            # 'prob' skips them; each starts from its inception output.
            ('loss1_fc2', [_average_pool_k5, self.loss1_conv, relu,
                           self.loss1_fc1, relu, self.loss1_fc2]),
            ('loss2_fc2', [_average_pool_k5, self.loss2_conv, relu,
                           self.loss2_fc1, relu, self.loss2_fc2]),
        ])

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Not available: cpuframe has no Caffe reader (raises
        NotImplementedError saying how to get the ``.npz``)."""
        _pretrained.no_caffe(cls)

    @staticmethod
    def _prepare(image, size):
        return prepare(image, size)


def prepare(image, size=(224, 224)):
    """An image as GoogLeNet takes it: a ``(3, H, W)`` BGR array of
    ``config.dtype`` minus BVLC's mean pixel.  Same arguments as
    :func:`cpuframe.links.model.vision.vgg.prepare`."""
    return _pretrained.prepare_image(image, size, _MEAN_BGR,
                                     'googlenet.prepare')
