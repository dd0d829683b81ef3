"""The convnet-benchmarks models, written once with cpuframe links.

AlexNet ("one weird trick" variant), Overfeat-fast, VGG-A, GoogLeNet v1 and
ResNet-50 (v1.5: the stride sits on the 3x3 convolution, as in torchvision),
as in the classic convnet-benchmarks suite.  ``torch_models.py`` holds the
same networks for PyTorch, layer for layer and name for name, so weights copy
across by name (``/conv1/W`` <-> ``conv1.weight``).

Every model takes ``insize`` (the input's height and width).  The real
benchmark sizes are in ``INSIZE``; ``SMALL_INSIZE`` holds the smallest sizes
each architecture accepts, for smoke tests.  Fully connected layers are sized
from ``insize``, so a small input also means small fc layers.

Pooling windows that do not tile the input exactly follow PyTorch's
``ceil_mode`` (Chainer's ``cover_all=True``) only where the reference model
uses it (GoogLeNet); elsewhere they floor (``cover_all=False``).
"""
from cpuframe import functions as F
from cpuframe import initializers
from cpuframe import links as L
from cpuframe.link import Chain, ChainList

#: The input size each model is benchmarked at.
INSIZE = {
    'alexnet': 224,
    'overfeat': 231,
    'vgg_a': 224,
    'googlenet': 224,
    'resnet50': 224,
}

#: Small input sizes for smoke tests: each architecture accepts them and
#: keeps a few pixels up to its last pooling (ResNet-50's batch
#: normalization needs more than one value per channel at batch 1).
SMALL_INSIZE = {
    'alexnet': 63,
    'overfeat': 71,
    'vgg_a': 32,
    'googlenet': 64,
    'resnet50': 64,
}

N_CLASS = 1000


def _out(size, ksize, stride=1, pad=0, cover_all=False):
    """Output size of a convolution or pooling window along one axis."""
    if cover_all:
        return (size + 2 * pad - ksize + stride - 1) // stride + 1
    return (size + 2 * pad - ksize) // stride + 1


def _check_size(name, size, insize):
    if size < 1:
        raise ValueError(
            '{}: input size {} is too small, a pooling or strided layer would '
            'have no output (a size that works: {})'.format(
                name, insize, SMALL_INSIZE[name]))


def _conv(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False):
    # He-normal keeps activations of order one through deep ReLU stacks, so
    # neither framework meets denormals; torch_models.py uses the same.
    return L.Convolution2D(in_channels, out_channels, ksize, stride=stride,
                           pad=pad, nobias=nobias,
                           initialW=initializers.HeNormal())


class AlexNet(Chain):
    """AlexNet, the "one weird trick" single-column variant (Krizhevsky 2014).

    64-11x11/4 pad 2, max pool 3/2, 192-5x5 pad 2, max pool 3/2, 384-3x3,
    256-3x3, 256-3x3 (pad 1), max pool 3/2, fc 4096, 4096, 1000, dropout 0.5
    before fc6 and fc7.  ``(N, 3, insize, insize)`` -> ``(N, 1000)`` logits.
    """

    def __init__(self, insize=INSIZE['alexnet'], n_class=N_CLASS):
        super().__init__()
        s = _out(insize, 11, 4, 2)
        s = _out(s, 3, 2)
        s = _out(s, 3, 2)
        s = _out(s, 3, 2)
        _check_size('alexnet', s, insize)
        self.insize = insize
        with self.init_scope():
            self.conv1 = _conv(3, 64, 11, stride=4, pad=2)
            self.conv2 = _conv(64, 192, 5, pad=2)
            self.conv3 = _conv(192, 384, 3, pad=1)
            self.conv4 = _conv(384, 256, 3, pad=1)
            self.conv5 = _conv(256, 256, 3, pad=1)
            self.fc6 = L.Linear(256 * s * s, 4096)
            self.fc7 = L.Linear(4096, 4096)
            self.fc8 = L.Linear(4096, n_class)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 3, 2, cover_all=False)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 3, 2, cover_all=False)
        h = F.relu(self.conv3(h))
        h = F.relu(self.conv4(h))
        h = F.max_pooling_2d(F.relu(self.conv5(h)), 3, 2, cover_all=False)
        h = F.relu(self.fc6(F.dropout(h, 0.5)))
        h = F.relu(self.fc7(F.dropout(h, 0.5)))
        return self.fc8(h)


class Overfeat(Chain):
    """Overfeat "fast" (Sermanet et al. 2013), input 231.

    96-11x11/4, max pool 2/2, 256-5x5, max pool 2/2, 512-3x3, 1024-3x3,
    1024-3x3 (pad 1), max pool 2/2, fc 3072, 4096, 1000, dropout 0.5 before
    fc6 and fc7.
    """

    def __init__(self, insize=INSIZE['overfeat'], n_class=N_CLASS):
        super().__init__()
        s = _out(insize, 11, 4)
        s = _out(s, 2, 2)
        s = _out(s, 5)
        s = _out(s, 2, 2)
        s = _out(s, 2, 2)
        _check_size('overfeat', s, insize)
        self.insize = insize
        with self.init_scope():
            self.conv1 = _conv(3, 96, 11, stride=4)
            self.conv2 = _conv(96, 256, 5)
            self.conv3 = _conv(256, 512, 3, pad=1)
            self.conv4 = _conv(512, 1024, 3, pad=1)
            self.conv5 = _conv(1024, 1024, 3, pad=1)
            self.fc6 = L.Linear(1024 * s * s, 3072)
            self.fc7 = L.Linear(3072, 4096)
            self.fc8 = L.Linear(4096, n_class)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2, 2, cover_all=False)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2, 2, cover_all=False)
        h = F.relu(self.conv3(h))
        h = F.relu(self.conv4(h))
        h = F.max_pooling_2d(F.relu(self.conv5(h)), 2, 2, cover_all=False)
        h = F.relu(self.fc6(F.dropout(h, 0.5)))
        h = F.relu(self.fc7(F.dropout(h, 0.5)))
        return self.fc8(h)


#: VGG-A's convolution widths; 'M' is a 2x2/2 max pooling.
VGG_A_CONFIG = (64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M')


class VGGA(Chain):
    """VGG-A (Simonyan & Zisserman 2014): 8 convolutions 3x3 pad 1 and 3 fc.

    Widths ``VGG_A_CONFIG``; fc 4096, 4096, 1000 with dropout 0.5 after fc6
    and fc7.  Convolutions are ``conv1`` ... ``conv8``.
    """

    def __init__(self, insize=INSIZE['vgg_a'], n_class=N_CLASS):
        super().__init__()
        s = insize
        for v in VGG_A_CONFIG:
            if v == 'M':
                s = _out(s, 2, 2)
        _check_size('vgg_a', s, insize)
        self.insize = insize
        with self.init_scope():
            in_channels, i = 3, 0
            for v in VGG_A_CONFIG:
                if v != 'M':
                    i += 1
                    setattr(self, 'conv{}'.format(i),
                            _conv(in_channels, v, 3, pad=1))
                    in_channels = v
            self.fc6 = L.Linear(512 * s * s, 4096)
            self.fc7 = L.Linear(4096, 4096)
            self.fc8 = L.Linear(4096, n_class)

    def forward(self, x):
        h, i = x, 0
        for v in VGG_A_CONFIG:
            if v == 'M':
                h = F.max_pooling_2d(h, 2, 2, cover_all=False)
            else:
                i += 1
                h = F.relu(self['conv{}'.format(i)](h))
        h = F.dropout(F.relu(self.fc6(h)), 0.5)
        h = F.dropout(F.relu(self.fc7(h)), 0.5)
        return self.fc8(h)


class Inception(Chain):
    """GoogLeNet's inception module: four branches concatenated on channels.

    1x1 (``out1``); 1x1 reduce then 3x3 (``proj3``, ``out3``); 1x1 reduce
    then 5x5 (``proj5``, ``out5``); 3x3/1 max pool then 1x1 (``proj_pool``).
    Every convolution is followed by ReLU.
    """

    def __init__(self, in_channels, out1, proj3, out3, proj5, out5, proj_pool):
        super().__init__()
        with self.init_scope():
            self.conv1 = _conv(in_channels, out1, 1)
            self.proj3 = _conv(in_channels, proj3, 1)
            self.conv3 = _conv(proj3, out3, 3, pad=1)
            self.proj5 = _conv(in_channels, proj5, 1)
            self.conv5 = _conv(proj5, out5, 5, pad=2)
            self.projp = _conv(in_channels, proj_pool, 1)

    def forward(self, x):
        out1 = F.relu(self.conv1(x))
        out3 = F.relu(self.conv3(F.relu(self.proj3(x))))
        out5 = F.relu(self.conv5(F.relu(self.proj5(x))))
        pool = F.max_pooling_2d(x, 3, 1, pad=1, cover_all=False)
        outp = F.relu(self.projp(pool))
        return F.concat((out1, out3, out5, outp), axis=1)


#: GoogLeNet's inception modules: (name, in, 1x1, 3x3 reduce, 3x3,
#: 5x5 reduce, 5x5, pool proj).
GOOGLENET_INCEPTIONS = (
    ('inc3a', 192, 64, 96, 128, 16, 32, 32),
    ('inc3b', 256, 128, 128, 192, 32, 96, 64),
    ('inc4a', 480, 192, 96, 208, 16, 48, 64),
    ('inc4b', 512, 160, 112, 224, 24, 64, 64),
    ('inc4c', 512, 128, 128, 256, 24, 64, 64),
    ('inc4d', 512, 112, 144, 288, 32, 64, 64),
    ('inc4e', 528, 256, 160, 320, 32, 128, 128),
    ('inc5a', 832, 256, 160, 320, 32, 128, 128),
    ('inc5b', 832, 384, 192, 384, 48, 128, 128),
)


def _googlenet_pool(h):
    # 3x3/2 max pooling with ceil-mode output size, as the reference model.
    return F.max_pooling_2d(h, 3, 2, cover_all=True)


class GoogLeNet(Chain):
    """GoogLeNet v1 (Szegedy et al. 2014) without the auxiliary classifiers.

    conv 7x7/2 (64), max pool, LRN, conv 1x1 (64), conv 3x3 (192), LRN,
    max pool, inception 3a-3b, max pool, 4a-4e, max pool, 5a-5b, global
    average pooling, dropout 0.4, fc 1000.  Max pooling rounds its output
    size up (PyTorch's ``ceil_mode=True``).
    """

    def __init__(self, insize=INSIZE['googlenet'], n_class=N_CLASS):
        super().__init__()
        s = _out(insize, 7, 2, 3)
        for _ in range(4):
            s = _out(s, 3, 2, cover_all=True)
        _check_size('googlenet', s, insize)
        self.insize = insize
        with self.init_scope():
            self.conv1 = _conv(3, 64, 7, stride=2, pad=3)
            self.conv2_reduce = _conv(64, 64, 1)
            self.conv2 = _conv(64, 192, 3, pad=1)
            for name, *args in GOOGLENET_INCEPTIONS:
                setattr(self, name, Inception(*args))
            self.fc = L.Linear(1024, n_class)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.local_response_normalization(_googlenet_pool(h), n=5)
        h = F.relu(self.conv2_reduce(h))
        h = F.relu(self.conv2(h))
        h = _googlenet_pool(F.local_response_normalization(h, n=5))
        h = self.inc3b(self.inc3a(h))
        h = _googlenet_pool(h)
        for name in ('inc4a', 'inc4b', 'inc4c', 'inc4d', 'inc4e'):
            h = self[name](h)
        h = _googlenet_pool(h)
        h = self.inc5b(self.inc5a(h))
        h = F.average_pooling_2d(h, h.shape[2:])
        return self.fc(F.dropout(h, 0.4))


class Bottleneck(Chain):
    """ResNet's bottleneck block: 1x1, 3x3 (stride here), 1x1 x4, each with BN.

    The shortcut is a strided 1x1 convolution with BN when the shape
    changes, the identity otherwise; ReLU after the sum.
    """

    def __init__(self, in_channels, mid_channels, out_channels, stride=1):
        super().__init__()
        with self.init_scope():
            self.conv1 = _conv(in_channels, mid_channels, 1, nobias=True)
            self.bn1 = _bn(mid_channels)
            self.conv2 = _conv(mid_channels, mid_channels, 3, stride=stride,
                               pad=1, nobias=True)
            self.bn2 = _bn(mid_channels)
            self.conv3 = _conv(mid_channels, out_channels, 1, nobias=True)
            self.bn3 = _bn(out_channels)
            if stride != 1 or in_channels != out_channels:
                self.conv_sc = _conv(in_channels, out_channels, 1,
                                     stride=stride, nobias=True)
                self.bn_sc = _bn(out_channels)
            else:
                self.conv_sc = None

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        shortcut = x if self.conv_sc is None else self.bn_sc(self.conv_sc(x))
        return F.relu(h + shortcut)


def _bn(size):
    # PyTorch's default eps, so the two models agree in inference mode.
    return L.BatchNormalization(size, eps=1e-5)


#: ResNet-50's stages: (name, blocks, mid channels, out channels, stride).
RESNET50_STAGES = (
    ('res2', 3, 64, 256, 1),
    ('res3', 4, 128, 512, 2),
    ('res4', 6, 256, 1024, 2),
    ('res5', 3, 512, 2048, 2),
)


class ResNet50(Chain):
    """ResNet-50 (He et al. 2015), v1.5 as in torchvision.

    conv 7x7/2 (64) + BN + ReLU, max pool 3x3/2 pad 1, four stages of
    bottleneck blocks (3, 4, 6, 3), global average pooling, fc 1000.
    """

    def __init__(self, insize=INSIZE['resnet50'], n_class=N_CLASS):
        super().__init__()
        s = _out(insize, 7, 2, 3)
        s = _out(s, 3, 2, 1)
        for _, _, _, _, stride in RESNET50_STAGES:
            s = _out(s, 3, stride, 1)
        _check_size('resnet50', s, insize)
        self.insize = insize
        with self.init_scope():
            self.conv1 = _conv(3, 64, 7, stride=2, pad=3, nobias=True)
            self.bn1 = _bn(64)
            in_channels = 64
            for name, n_blocks, mid, out, stride in RESNET50_STAGES:
                blocks = ChainList(*[
                    Bottleneck(in_channels if i == 0 else out, mid, out,
                               stride if i == 0 else 1)
                    for i in range(n_blocks)])
                setattr(self, name, blocks)
                in_channels = out
            self.fc = L.Linear(2048, n_class)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pooling_2d(h, 3, 2, pad=1, cover_all=False)
        for name, _, _, _, _ in RESNET50_STAGES:
            for block in self[name]:
                h = block(h)
        h = F.average_pooling_2d(h, h.shape[2:])
        return self.fc(h)


MODELS = {
    'alexnet': AlexNet,
    'overfeat': Overfeat,
    'vgg_a': VGGA,
    'googlenet': GoogLeNet,
    'resnet50': ResNet50,
}


def build(name, insize=None):
    """Build the cpuframe model ``name`` for ``insize`` (default: its real size)."""
    if name not in MODELS:
        raise ValueError('models.build: expected one of {}, got {!r}'.format(
            ', '.join(MODELS), name))
    return MODELS[name](INSIZE[name] if insize is None else insize)
