"""Differentiable functions, Chainer's ``chainer.functions`` (import as F).

Each function lives in a module of its family package, as in Chainer:
``F.relu`` is the function, ``cpuframe.functions.activation.relu`` its
module.  The family packages bind no function names of their own, so no
submodule is hidden behind a function of the same name.
"""
# ruff: noqa: F401 - the public namespace
from cpuframe.functions.activation.clipped_relu import clipped_relu, relu6
from cpuframe.functions.activation.crelu import crelu
from cpuframe.functions.activation.elu import elu
from cpuframe.functions.activation.hard_sigmoid import hard_sigmoid
from cpuframe.functions.activation.leaky_relu import leaky_relu
from cpuframe.functions.activation.log_softmax import log_softmax
from cpuframe.functions.activation.maxout import maxout
from cpuframe.functions.activation.prelu import prelu
from cpuframe.functions.activation.relu import relu
from cpuframe.functions.activation.rrelu import rrelu
from cpuframe.functions.activation.selu import selu
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.softmax import softmax
from cpuframe.functions.activation.softplus import softplus
from cpuframe.functions.activation.swish import swish
from cpuframe.functions.activation.tanh import tanh
from cpuframe.functions.array.as_strided import as_strided
from cpuframe.functions.array.broadcast import broadcast, broadcast_to
from cpuframe.functions.array.cast import cast
from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.copy import copy
from cpuframe.functions.array.depth2space import depth2space, space2depth
from cpuframe.functions.array.diagonal import diagonal
from cpuframe.functions.array.dstack import dstack
from cpuframe.functions.array.expand_dims import expand_dims
from cpuframe.functions.array.flatten import flatten
from cpuframe.functions.array.flip import flip, fliplr, flipud
from cpuframe.functions.array.get_item import get_item
from cpuframe.functions.array.hstack import hstack
from cpuframe.functions.array.identity import identity
from cpuframe.functions.array.im2col import im2col
from cpuframe.functions.array.moveaxis import moveaxis, rollaxis
from cpuframe.functions.array.pad import pad
from cpuframe.functions.array.pad_sequence import pad_sequence
from cpuframe.functions.array.permutate import permutate
from cpuframe.functions.array.repeat import repeat
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.array.resize_images import resize_images
from cpuframe.functions.array.scatter_add import scatter_add
from cpuframe.functions.array.select_item import select_item
from cpuframe.functions.array.separate import separate
from cpuframe.functions.array.spatial_transformer_grid import (
    spatial_transformer_grid,
)
from cpuframe.functions.array.spatial_transformer_sampler import (
    spatial_transformer_sampler,
)
from cpuframe.functions.array.split_axis import split_axis
from cpuframe.functions.array.squeeze import squeeze
from cpuframe.functions.array.stack import stack
from cpuframe.functions.array.sum_to import sum_to
from cpuframe.functions.array.swapaxes import swapaxes
from cpuframe.functions.array.tile import tile
from cpuframe.functions.array.transpose import transpose
from cpuframe.functions.array.vstack import vstack
from cpuframe.functions.array.where import where
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
from cpuframe.functions.connection.deformable_convolution_2d_sampler import (  # noqa: E501
    deformable_convolution_2d_sampler,
)
from cpuframe.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from cpuframe.functions.connection.dilated_convolution_2d import (
    dilated_convolution_2d,
)
from cpuframe.functions.connection.embed_id import embed_id
from cpuframe.functions.connection.linear import linear
from cpuframe.functions.connection.local_convolution_2d import (
    local_convolution_2d,
)
from cpuframe.functions.connection.shift import shift
from cpuframe.functions.evaluation.accuracy import accuracy
from cpuframe.functions.evaluation.binary_accuracy import binary_accuracy
from cpuframe.functions.evaluation.classification_summary import (
    classification_summary,
    f1_score,
    fbeta_score,
    precision,
    recall,
)
from cpuframe.functions.evaluation.r2_score import r2_score
from cpuframe.functions.loss.absolute_error import absolute_error
from cpuframe.functions.loss.black_out import black_out
from cpuframe.functions.loss.contrastive import contrastive
from cpuframe.functions.loss.crf1d import argmax_crf1d, crf1d
from cpuframe.functions.loss.cross_covariance import cross_covariance
from cpuframe.functions.loss.ctc import connectionist_temporal_classification
from cpuframe.functions.loss.decov import decov
from cpuframe.functions.loss.discriminative_loss import (
    discriminative_margin_based_clustering_loss,
)
from cpuframe.functions.loss.hierarchical_softmax import (
    binary_hierarchical_softmax,
)
from cpuframe.functions.loss.hinge import hinge
from cpuframe.functions.loss.huber_loss import huber_loss
from cpuframe.functions.loss.mean_absolute_error import mean_absolute_error
from cpuframe.functions.loss.mean_squared_error import mean_squared_error
from cpuframe.functions.loss.negative_sampling import negative_sampling
from cpuframe.functions.loss.sigmoid_cross_entropy import sigmoid_cross_entropy
from cpuframe.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from cpuframe.functions.loss.squared_error import squared_error
from cpuframe.functions.loss.triplet import triplet
from cpuframe.functions.loss.vae import (
    bernoulli_nll,
    gaussian_kl_divergence,
    gaussian_nll,
)
from cpuframe.functions.math.arctan2 import arctan2
from cpuframe.functions.math.arctanh import arctanh
from cpuframe.functions.math.average import average
from cpuframe.functions.math.basic_math import (
    absolute,
    add,
    batch_matmul,
    matmul,
    neg,
)
from cpuframe.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from cpuframe.functions.math.bias import bias, scale
from cpuframe.functions.math.cholesky import cholesky
from cpuframe.functions.math.clip import clip
from cpuframe.functions.math.cumprod import cumprod
from cpuframe.functions.math.cumsum import cumsum
from cpuframe.functions.math.det import batch_det, det
from cpuframe.functions.math.digamma import digamma
from cpuframe.functions.math.einsum import einsum
from cpuframe.functions.math.erf import erf
from cpuframe.functions.math.erfc import erfc
from cpuframe.functions.math.erfcinv import erfcinv
from cpuframe.functions.math.erfcx import erfcx
from cpuframe.functions.math.erfinv import erfinv
from cpuframe.functions.math.exponential import (
    exp,
    expm1,
    log,
    log1p,
    log2,
    log10,
)
from cpuframe.functions.math.fft import fft, ifft
from cpuframe.functions.math.fmod import fmod
from cpuframe.functions.math.hyperbolic import cosh, sinh
from cpuframe.functions.math.inv import batch_inv, inv
from cpuframe.functions.math.inverse_trigonometric import (
    arccos,
    arcsin,
    arctan,
)
from cpuframe.functions.math.lgamma import lgamma
from cpuframe.functions.math.linear_interpolate import linear_interpolate
from cpuframe.functions.math.log_ndtr import log_ndtr
from cpuframe.functions.math.logsumexp import logsumexp
from cpuframe.functions.math.maximum import maximum, minimum
from cpuframe.functions.math.minmax import argmax, argmin, max, min
from cpuframe.functions.math.ndtr import ndtr
from cpuframe.functions.math.ndtri import ndtri
from cpuframe.functions.math.polygamma import polygamma
from cpuframe.functions.math.prod import prod
from cpuframe.functions.math.rounding import ceil, fix, floor
from cpuframe.functions.math.sign import sign
from cpuframe.functions.math.sparse_matmul import sparse_matmul
from cpuframe.functions.math.sqrt import rsqrt, sqrt
from cpuframe.functions.math.square import square
from cpuframe.functions.math.squared_difference import squared_difference
from cpuframe.functions.math.sum import mean, sum
from cpuframe.functions.math.tensordot import tensordot
from cpuframe.functions.math.trigonometric import cos, sin, tan
from cpuframe.functions.math.zeta import zeta
from cpuframe.functions.noise.dropout import dropout
from cpuframe.functions.noise.gaussian import gaussian
from cpuframe.functions.noise.gumbel_softmax import gumbel_softmax
from cpuframe.functions.noise.simplified_dropconnect import (
    simplified_dropconnect,
)
from cpuframe.functions.noise.zoneout import zoneout
from cpuframe.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from cpuframe.functions.normalization.batch_renormalization import (
    batch_renormalization,
    fixed_batch_renormalization,
)
from cpuframe.functions.normalization.decorrelated_batch_normalization import (  # noqa: E501
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from cpuframe.functions.normalization.group_normalization import (
    group_normalization,
)
from cpuframe.functions.normalization.l2_normalization import normalize
from cpuframe.functions.normalization.layer_normalization import (
    layer_normalization,
)
from cpuframe.functions.normalization.local_response_normalization import (
    local_response_normalization,
)
from cpuframe.functions.pooling.average_pooling_2d import average_pooling_2d
from cpuframe.functions.pooling.average_pooling_nd import (
    average_pooling_1d,
    average_pooling_3d,
    average_pooling_nd,
)
from cpuframe.functions.pooling.max_pooling_2d import max_pooling_2d
from cpuframe.functions.pooling.max_pooling_nd import (
    max_pooling_1d,
    max_pooling_3d,
    max_pooling_nd,
)
from cpuframe.functions.pooling.roi_pooling_2d import roi_pooling_2d
from cpuframe.functions.pooling.roi_pooling_align_2d import (
    roi_average_align_2d,
    roi_average_pooling_2d,
    roi_max_align_2d,
    roi_max_pooling_2d,
)
from cpuframe.functions.pooling.spatial_pyramid_pooling_2d import (
    spatial_pyramid_pooling_2d,
)
from cpuframe.functions.pooling.unpooling_2d import unpooling_2d
from cpuframe.functions.pooling.unpooling_nd import (
    unpooling_1d,
    unpooling_3d,
    unpooling_nd,
)
from cpuframe.functions.pooling.upsampling_2d import upsampling_2d
from cpuframe.functions.rnn.lstm import lstm
from cpuframe.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from cpuframe.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from cpuframe.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from cpuframe.functions.rnn.slstm import slstm
from cpuframe.functions.rnn.transpose_sequence import transpose_sequence
from cpuframe.functions.rnn.tree_lstm import tree_lstm
from cpuframe.functions.util.forget import forget


def _bind_thin_modules():
    # Chainer's ``import chainer`` leaves these modules bound on their
    # packages (``F.math.identity`` is the module); so does cpuframe's.
    import importlib
    for name in ('array.fliplr', 'array.flipud', 'array.rollaxis',
                 'array.space2depth', 'array.transpose_sequence',
                 'math.ceil', 'math.exponential_m1', 'math.fix', 'math.floor',
                 'math.identity', 'math.logarithm_1p', 'math.matmul',
                 'math.minimum', 'math.scale', 'pooling.pooling_2d',
                 'pooling.pooling_nd'):
        importlib.import_module('cpuframe.functions.' + name)
    # Chainer's four ROI modules are one module here (see compat._RENAMES).
    roi = importlib.import_module(
        'cpuframe.functions.pooling.roi_pooling_align_2d')
    pooling = importlib.import_module('cpuframe.functions.pooling')
    for name in ('roi_max_pooling_2d', 'roi_average_pooling_2d',
                 'roi_max_align_2d', 'roi_average_align_2d'):
        setattr(pooling, name, roi)


_bind_thin_modules()
del _bind_thin_modules
