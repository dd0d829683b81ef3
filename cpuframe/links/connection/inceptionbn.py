"""The batch-normalized inception module (Inception-v2's building block)."""
import cpuframe
from cpuframe import link
from cpuframe.functions.activation.relu import relu
from cpuframe.functions.array.concat import concat
from cpuframe.functions.pooling.average_pooling_2d import average_pooling_2d
from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
from cpuframe.links.connection.convolution_2d import Convolution2D
from cpuframe.links.normalization.batch_normalization import BatchNormalization


class InceptionBN(link.Chain):
    """Inception module with batch normalization (Ioffe and Szegedy, 2015).

    Like :class:`Inception`, but every convolution (without bias) is
    followed by batch normalization and relu, the 5x5 path is two 3x3
    convolutions, and the pooling is max or average.  Branches, concatenated
    along channels in this order:

    * ``conv1`` (1x1, ``out1``) -> ``conv1n``; only when ``out1 > 0``;
    * ``proj3`` (1x1) -> ``proj3n`` -> ``conv3`` (3x3, pad 1, ``stride``)
      -> ``conv3n``;
    * ``proj33`` (1x1) -> ``proj33n`` -> ``conv33a`` (3x3, pad 1) ->
      ``conv33an`` -> ``conv33b`` (3x3, pad 1, ``stride``) -> ``conv33bn``;
    * 3x3 pooling (pad 1, ``stride``; max pooling without ``cover_all``,
      average pooling counting the padding) -> ``poolp`` (1x1,
      ``proj_pool``) -> ``poolpn`` -> relu; without ``proj_pool`` the
      pooled input itself.

    Args:
        in_channels (int or None): input channels (None: inferred).
        out1 (int): channels of the 1x1 path (0: no such path).
        proj3, out3 (int): channels of the 3x3 path.
        proj33, out33 (int): channels of the double 3x3 path.
        pooltype (str): ``'max'`` or ``'avg'``.
        proj_pool (int or None): channels of the projection after pooling;
            None: no projection.
        stride (int): stride of the last layer of each path; must be 1 when
            ``out1 > 0``.
        conv_init: initializer of the convolution weights.
        dtype: dtype of the batch normalizations (``config.dtype`` by
            default).
    """

    def __init__(self, in_channels, out1, proj3, out3, proj33, out33,
                 pooltype, proj_pool=None, stride=1, conv_init=None,
                 dtype=None):
        if pooltype not in ('max', 'avg'):
            raise ValueError("InceptionBN: pooltype must be 'max' or 'avg', "
                             "got {!r}".format(pooltype))
        if out1 > 0 and stride != 1:
            raise ValueError('InceptionBN: the 1x1 path (out1={}) needs '
                             'stride 1, got stride={}'.format(out1, stride))
        if out1 > 0 and proj_pool is None:
            raise ValueError('InceptionBN: the 1x1 path (out1={}) needs a '
                             'pooling projection; proj_pool is None'.format(
                                 out1))
        super().__init__()
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype
        dtype = cpuframe.get_dtype(dtype)

        def conv(cin, cout, ksize, stride=1, pad=0):
            return Convolution2D(cin, cout, ksize, stride=stride, pad=pad,
                                 nobias=True, initialW=conv_init)

        def bn(size):
            return BatchNormalization(size, dtype=dtype)

        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, stride, 1)
            self.proj33 = conv(in_channels, proj33, 1)
            self.conv33a = conv(proj33, out33, 3, 1, 1)
            self.conv33b = conv(out33, out33, 3, stride, 1)
            self.proj3n = bn(proj3)
            self.conv3n = bn(out3)
            self.proj33n = bn(proj33)
            self.conv33an = bn(out33)
            self.conv33bn = bn(out33)
            if out1 > 0:
                self.conv1 = conv(in_channels, out1, 1, stride)
                self.conv1n = bn(out1)
            if proj_pool is not None:
                self.poolp = conv(in_channels, proj_pool, 1)
                self.poolpn = bn(proj_pool)

    def forward(self, x):
        if len(x.shape) != 4:
            raise ValueError('InceptionBN: expected a 4-d input (N, C, H, W), '
                             'got shape {}'.format(tuple(x.shape)))
        outs = []
        if self.out1 > 0:
            outs.append(relu(self.conv1n(self.conv1(x))))
        h3 = relu(self.proj3n(self.proj3(x)))
        outs.append(relu(self.conv3n(self.conv3(h3))))
        h33 = relu(self.proj33n(self.proj33(x)))
        h33 = relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == 'max':
            p = max_pooling_2d(x, 3, stride=self.stride, pad=1,
                               cover_all=False)
        else:
            p = average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            p = relu(self.poolpn(self.poolp(p)))
        outs.append(p)
        return concat(outs, axis=1)
