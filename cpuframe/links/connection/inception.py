"""GoogLeNet's inception module."""
from cpuframe import link
from cpuframe.functions.activation.relu import relu
from cpuframe.functions.array.concat import concat
from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
from cpuframe.links.connection.convolution_2d import Convolution2D


class Inception(link.Chain):
    """Inception module of GoogLeNet (Szegedy et al., 2014).

    Four branches, concatenated along channels and passed through relu:
    ``conv1`` (1x1, out1), ``proj3`` (1x1) -> relu -> ``conv3`` (3x3 pad 1,
    out3), ``proj5`` (1x1) -> relu -> ``conv5`` (5x5 pad 2, out5), and a
    3x3 stride-1 pad-1 max pooling -> ``projp`` (1x1, proj_pool).  The
    output has ``out1 + out3 + out5 + proj_pool`` channels and the input's
    spatial size.

    Args:
        in_channels (int or None): input channels (None: inferred).
        out1, proj3, out3, proj5, out5, proj_pool (int): channel counts.
        conv_init, bias_init: initializers of every convolution's W and b.
    """

    def __init__(self, in_channels, out1, proj3, out3, proj5, out5,
                 proj_pool, conv_init=None, bias_init=None):
        super().__init__()
        kw = dict(initialW=conv_init, initial_bias=bias_init)
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, out1, 1, **kw)
            self.proj3 = Convolution2D(in_channels, proj3, 1, **kw)
            self.conv3 = Convolution2D(proj3, out3, 3, pad=1, **kw)
            self.proj5 = Convolution2D(in_channels, proj5, 1, **kw)
            self.conv5 = Convolution2D(proj5, out5, 5, pad=2, **kw)
            self.projp = Convolution2D(in_channels, proj_pool, 1, **kw)

    def forward(self, x):
        if len(x.shape) != 4:
            raise ValueError('Inception: expected a 4-d input (N, C, H, W), '
                             'got shape {}'.format(tuple(x.shape)))
        out1 = self.conv1(x)
        out3 = self.conv3(relu(self.proj3(x)))
        out5 = self.conv5(relu(self.proj5(x)))
        pool = self.projp(max_pooling_2d(x, 3, stride=1, pad=1))
        return relu(concat((out1, out3, out5, pool), axis=1))
