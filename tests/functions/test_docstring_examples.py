"""The examples in the docstrings of these function and link modules run."""
import doctest
import importlib

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L

MODULES = [
    'cpuframe.functions.activation.rrelu',
    'cpuframe.functions.activation.clipped_relu',
    'cpuframe.functions.array.as_strided',
    'cpuframe.functions.array.im2col',
    'cpuframe.functions.array.permutate',
    'cpuframe.functions.array.spatial_transformer_grid',
    'cpuframe.functions.array.spatial_transformer_sampler',
    'cpuframe.functions.connection.deformable_convolution_2d_sampler',
    'cpuframe.functions.connection.local_convolution_2d',
    'cpuframe.functions.connection.shift',
    'cpuframe.functions.evaluation.r2_score',
    'cpuframe.functions.loss.crf1d',
    'cpuframe.functions.loss.cross_covariance',
    'cpuframe.functions.loss.decov',
    'cpuframe.functions.loss.discriminative_loss',
    'cpuframe.functions.loss.hierarchical_softmax',
    'cpuframe.functions.loss.negative_sampling',
    'cpuframe.functions.math.arctan2',
    'cpuframe.functions.math.arctanh',
    'cpuframe.functions.math.batch_l2_norm_squared',
    'cpuframe.functions.math.cholesky',
    'cpuframe.functions.math.cumprod',
    'cpuframe.functions.math.det',
    'cpuframe.functions.math.digamma',
    'cpuframe.functions.math.einsum',
    'cpuframe.functions.math.erf',
    'cpuframe.functions.math.erfc',
    'cpuframe.functions.math.erfcinv',
    'cpuframe.functions.math.erfcx',
    'cpuframe.functions.math.erfinv',
    'cpuframe.functions.math.fft',
    'cpuframe.functions.math.inv',
    'cpuframe.functions.math.lgamma',
    'cpuframe.functions.math.log_ndtr',
    'cpuframe.functions.math.ndtr',
    'cpuframe.functions.math.ndtri',
    'cpuframe.functions.math.polygamma',
    'cpuframe.functions.math.sparse_matmul',
    'cpuframe.functions.math.zeta',
    'cpuframe.functions.noise.gumbel_softmax',
    'cpuframe.functions.noise.simplified_dropconnect',
    'cpuframe.functions.noise.zoneout',
    'cpuframe.functions.normalization.batch_renormalization',
    'cpuframe.functions.normalization.decorrelated_batch_normalization',
    'cpuframe.functions.pooling.roi_pooling_2d',
    'cpuframe.functions.pooling.roi_pooling_align_2d',
    'cpuframe.functions.rnn.tree_lstm',
    'cpuframe.functions.util.forget',
    'cpuframe.links.activation.simplified_dropconnect',
    'cpuframe.links.connection.deformable_convolution_2d',
    'cpuframe.links.connection.local_convolution_2d',
    'cpuframe.links.loss.black_out',
    'cpuframe.links.loss.crf1d',
    'cpuframe.links.loss.hierarchical_softmax',
    'cpuframe.links.normalization.batch_renormalization',
    'cpuframe.links.normalization.decorrelated_batch_normalization',
    'cpuframe.links.rnn.mgu',
    'cpuframe.links.rnn.peephole',
    'cpuframe.links.rnn.tree_lstm',
    'cpuframe.links.rnn.zoneoutlstm',
    'cpuframe.training.updaters.parallel_updater',
    'cpuframe.utils.walker_alias',
]


@pytest.mark.parametrize('name', MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    globs = {'np': numpy, 'F': F, 'L': L, 'cpuframe': cpuframe}
    result = doctest.testmod(module, globs=globs,
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
