"""Loss functions: classification, regression, metric learning and VAE."""
from cpuframe.functions.loss.absolute_error import absolute_error
from cpuframe.functions.loss.contrastive import contrastive
from cpuframe.functions.loss.crf1d import argmax_crf1d, crf1d
from cpuframe.functions.loss.cross_covariance import cross_covariance
from cpuframe.functions.loss.decov import decov
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

__all__ = ['absolute_error', 'bernoulli_nll', 'contrastive',
           'gaussian_kl_divergence', 'gaussian_nll', 'hinge', 'huber_loss',
           'mean_absolute_error', 'mean_squared_error',
           'sigmoid_cross_entropy', 'softmax_cross_entropy', 'squared_error',
           'triplet', 'decov',
           'negative_sampling', 'binary_hierarchical_softmax',
           'cross_covariance', 'crf1d', 'argmax_crf1d']
