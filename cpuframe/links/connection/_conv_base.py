"""What convolution and deconvolution links share: their parameters."""
from cpuframe import initializers, link, variable
from cpuframe.links.connection.linear import _init_bias
from cpuframe.utils.conv import as_tuple


class ConvolutionLinkBase(link.Link):
    """Weight and bias of an N-d (de)convolution, with lazy in_channels.

    Convolution weights are (out, in/groups, *k); deconvolution weights
    (``transposed``) are (in, out/groups, *k), as in Chainer.
    """

    _transposed = False

    def __init__(self, ndim, in_channels, out_channels, ksize, stride, pad,
                 nobias, initialW, initial_bias, dilate, groups):
        super().__init__()
        name = type(self).__name__
        self.ndim = ndim
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.ksize = as_tuple(ksize, ndim, name + ' ksize')
        self.stride = as_tuple(stride, ndim, name + ' stride')
        self.pad = as_tuple(pad, ndim, name + ' pad')
        self.dilate = as_tuple(dilate, ndim, name + ' dilate')
        self.groups = int(groups)
        if out_channels % self.groups:
            raise ValueError('{}: out_channels ({}) must be divisible by groups '
                             '({})'.format(name, out_channels, self.groups))
        with self.init_scope():
            W_init = initializers._get_initializer(initialW) or \
                initializers.LeCunNormal()
            self.W = variable.Parameter(W_init)
            if in_channels is not None:
                self._initialize_params(in_channels)
            self.b = None if nobias else variable.Parameter(
                _init_bias(initial_bias), out_channels)

    def _initialize_params(self, in_channels):
        if in_channels % self.groups:
            raise ValueError('{}: in_channels ({}) must be divisible by groups '
                             '({})'.format(type(self).__name__, in_channels,
                                           self.groups))
        self.in_channels = in_channels
        if self._transposed:
            shape = (in_channels, self.out_channels // self.groups)
        else:
            shape = (self.out_channels, in_channels // self.groups)
        self.W.initialize(shape + self.ksize)

    def _lazy_init(self, x):
        if self.W.array is None:
            self._initialize_params(x.shape[1])

    def printable_specs(self):
        return (('in_channels', self.in_channels),
                ('out_channels', self.out_channels), ('ksize', self.ksize),
                ('stride', self.stride), ('pad', self.pad),
                ('nobias', self.b is None), ('dilate', self.dilate),
                ('groups', self.groups))


def split_channels_args(in_channels, out_channels, ksize):
    """Chainer's short form ``(out_channels, ksize)``: in_channels omitted."""
    if ksize is None:
        return None, in_channels, out_channels
    return in_channels, out_channels, ksize
