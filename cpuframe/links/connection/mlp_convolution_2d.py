"""Network-in-network MLP convolution."""
from cpuframe import link
from cpuframe.functions.activation.relu import relu
from cpuframe.links.connection.convolution_2d import Convolution2D


class MLPConvolution2D(link.ChainList):
    """A stack of 2-D convolutions (Lin et al., Network in Network).

    The first child is ``Convolution2D(in_channels, out_channels[0], ksize,
    stride, pad)``, the following ones are 1x1 convolutions
    ``out_channels[i-1] -> out_channels[i]``.  ``activation`` is applied
    between the convolutions, not to the output of the link.

    ``MLPConvolution2D(out_channels, ksize)`` (``ksize`` omitted from its
    place) infers ``in_channels`` from the first input.

    Args:
        in_channels (int or None): input channels.
        out_channels (tuple of ints): output channels of each convolution.
        ksize, stride, pad: of the first convolution.
        activation (callable): the activation between convolutions (relu).
        conv_init, bias_init: initializers of every convolution's W and b.
    """

    def __init__(self, in_channels, out_channels, ksize=None, stride=1,
                 pad=0, activation=relu, conv_init=None, bias_init=None):
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        try:
            out_channels = tuple(out_channels)
        except TypeError:
            raise TypeError('MLPConvolution2D: out_channels must be a '
                            'sequence of ints, got {!r}'.format(out_channels)
                            ) from None
        if len(out_channels) == 0:
            raise ValueError('MLPConvolution2D: out_channels must not be '
                             'empty')
        convs = [Convolution2D(in_channels, out_channels[0], ksize, stride,
                               pad, initialW=conv_init,
                               initial_bias=bias_init)]
        for n_in, n_out in zip(out_channels, out_channels[1:]):
            convs.append(Convolution2D(n_in, n_out, 1, initialW=conv_init,
                                       initial_bias=bias_init))
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x):
        f = self.activation
        n = len(self)
        for i, conv in enumerate(self):
            x = conv(x)
            if i < n - 1:
                x = f(x)
        return x
