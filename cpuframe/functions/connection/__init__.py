"""Connection functions: linear, (de)convolutions, embeddings, bilinear."""
from cpuframe.functions.connection.bilinear import bilinear
from cpuframe.functions.connection.convolution_2d import convolution_2d
from cpuframe.functions.connection.convolution_nd import (
    convolution_1d,
    convolution_3d,
    convolution_nd,
)
from cpuframe.functions.connection.deconvolution_2d import deconvolution_2d
from cpuframe.functions.connection.deconvolution_nd import (
    deconvolution_1d,
    deconvolution_3d,
    deconvolution_nd,
)
from cpuframe.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from cpuframe.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from cpuframe.functions.connection.embed_id import embed_id
from cpuframe.functions.connection.linear import linear
from cpuframe.functions.connection.local_convolution_2d import local_convolution_2d

__all__ = ['bilinear', 'convolution_1d', 'convolution_2d', 'convolution_3d',
           'convolution_nd', 'deconvolution_1d', 'deconvolution_2d',
           'deconvolution_3d', 'deconvolution_nd', 'depthwise_convolution_2d',
           'dilated_convolution_2d', 'embed_id', 'linear',
           'local_convolution_2d']
