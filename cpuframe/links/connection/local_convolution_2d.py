"""Two-dimensional local convolution layer (unshared weights)."""
from cpuframe import initializers, link, variable
from cpuframe.functions.connection.local_convolution_2d import (
    local_convolution_2d,
)
from cpuframe.utils.conv import pair


class LocalConvolution2D(link.Link):
    """Two-dimensional local convolutional layer.

    Holds the filters ``W`` of shape
    ``(out_channels, out_h, out_w, in_channels, kh, kw)`` and the bias
    ``b`` of shape ``(out_channels, out_h, out_w)`` of
    :func:`~cpuframe.functions.local_convolution_2d`, where
    ``out_h = (in_h - kh) // sy + 1`` (and likewise ``out_w``).

    Args:
        in_channels (int or None): Input channels; None (or ``in_size``
            None) defers the parameters' shape to the first input.
        out_channels (int): Output channels.
        in_size (int, pair of ints or None): Spatial size of the input.
        ksize (int or pair of ints): Filter size.
        stride (int or pair of ints): Stride of filter applications.
        nobias (bool): No bias.
        initialW: Initializer of ``W`` (default LeCunNormal).
        initial_bias: Initializer of ``b`` (default zero).

    >>> l = L.LocalConvolution2D(3, 2, in_size=4, ksize=3)
    >>> l.W.shape, l(np.ones((1, 3, 4, 4), np.float32)).shape
    ((2, 2, 2, 3, 3, 3), (1, 2, 2, 2))
    """

    def __init__(self, in_channels, out_channels, in_size=None, ksize=None,
                 stride=1, nobias=False, initialW=None, initial_bias=None):
        super().__init__()
        if ksize is None:
            raise TypeError('LocalConvolution2D: ksize is required')
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.ksize = pair(ksize, 'LocalConvolution2D: ksize')
        self.stride = pair(stride, 'LocalConvolution2D: stride')
        self.nobias = nobias
        with self.init_scope():
            self.W = variable.Parameter(
                initializers._get_initializer(initialW) or
                initializers.LeCunNormal())
            if nobias:
                self.b = None
            else:
                self.b = variable.Parameter(
                    initializers.Zero() if initial_bias is None else
                    initializers._get_initializer(initial_bias))
        if in_channels is not None and in_size is not None:
            self._initialize_params(in_channels, pair(in_size, 'in_size'))

    def _initialize_params(self, in_channels, in_size):
        out = tuple((s - k) // st + 1 for s, k, st in
                    zip(in_size, self.ksize, self.stride))
        if min(out) < 1:
            raise ValueError(
                'LocalConvolution2D: input size {} is smaller than ksize '
                '{}'.format(in_size, self.ksize))
        self.in_channels = in_channels
        self.W.initialize((self.out_channels,) + out + (in_channels,) +
                          self.ksize)
        if self.b is not None:
            self.b.initialize((self.out_channels,) + out)

    def printable_specs(self):
        return (('in_channels', self.in_channels),
                ('out_channels', self.out_channels), ('ksize', self.ksize),
                ('stride', self.stride), ('nobias', self.nobias))

    def forward(self, x):
        """Applies the local convolution to ``x`` of ``(n, c, h, w)``."""
        if self.W.array is None:
            self._initialize_params(x.shape[1], x.shape[2:])
        return local_convolution_2d(x, self.W, self.b, self.stride)
