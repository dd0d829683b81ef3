"""Connection links: Linear, convolutions, deconvolutions, embeddings."""
from cpuframe.links.connection.bias import Bias
from cpuframe.links.connection.bilinear import Bilinear
from cpuframe.links.connection.convolution_2d import Convolution2D
from cpuframe.links.connection.convolution_nd import (
    Convolution1D,
    Convolution3D,
    ConvolutionND,
)
from cpuframe.links.connection.deconvolution_2d import Deconvolution2D
from cpuframe.links.connection.deconvolution_nd import (
    Deconvolution1D,
    Deconvolution3D,
    DeconvolutionND,
)
from cpuframe.links.connection.deformable_convolution_2d import (
    DeformableConvolution2D,
)
from cpuframe.links.connection.depthwise_convolution_2d import (
    DepthwiseConvolution2D,
)
from cpuframe.links.connection.dilated_convolution_2d import DilatedConvolution2D
from cpuframe.links.connection.embed_id import EmbedID
from cpuframe.links.connection.highway import Highway
from cpuframe.links.connection.inception import Inception
from cpuframe.links.connection.inceptionbn import InceptionBN
from cpuframe.links.connection.linear import Linear
from cpuframe.links.connection.local_convolution_2d import LocalConvolution2D
from cpuframe.links.connection.mlp_convolution_2d import MLPConvolution2D
from cpuframe.links.connection.parameter import Parameter
from cpuframe.links.connection.scale import Scale
from cpuframe.links.connection.simplified_dropconnect import SimplifiedDropconnect

__all__ = ['Bias', 'Bilinear', 'Convolution1D', 'Convolution2D', 'Convolution3D',
           'ConvolutionND', 'Deconvolution2D', 'DeconvolutionND',
           'DeformableConvolution2D',
           'DepthwiseConvolution2D', 'DilatedConvolution2D', 'EmbedID', 'Highway',
           'Inception', 'InceptionBN', 'Linear', 'MLPConvolution2D',
           'Parameter', 'Scale',
           'LocalConvolution2D', 'SimplifiedDropconnect',
           'Deconvolution1D', 'Deconvolution3D']
