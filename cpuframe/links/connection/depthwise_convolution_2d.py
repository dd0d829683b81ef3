"""2-D depthwise convolution layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from cpuframe.links.connection.linear import _init_bias
from cpuframe.utils.conv import pair


class DepthwiseConvolution2D(link.Link):
    """Each input channel convolved with ``channel_multiplier`` filters.

    Weight (channel_multiplier, in_channels, kh, kw); the output has
    ``in_channels * channel_multiplier`` channels.
    """

    def __init__(self, in_channels, channel_multiplier, ksize, stride=1, pad=0,
                 nobias=False, initialW=None, initial_bias=None):
        super().__init__()
        self.in_channels = in_channels
        self.channel_multiplier = channel_multiplier
        self.ksize = pair(ksize, 'DepthwiseConvolution2D ksize')
        self.stride = stride
        self.pad = pad
        with self.init_scope():
            W_init = initializers._get_initializer(initialW) or \
                initializers.LeCunNormal()
            self.W = variable.Parameter(W_init)
            self.b = None if nobias else variable.Parameter(
                _init_bias(initial_bias))
            if in_channels is not None:
                self._initialize_params(in_channels)

    def _initialize_params(self, in_channels):
        self.in_channels = in_channels
        self.W.initialize((self.channel_multiplier, in_channels) + self.ksize)
        if self.b is not None:
            self.b.initialize(self.channel_multiplier * in_channels)

    def forward(self, x):
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return depthwise_convolution_2d(x, self.W, self.b, self.stride,
                                        self.pad)
