"""Batch normalization with the statistics of the batch of every rank.

The batch is the concatenation of every rank's local batch (local batches
may differ in size).  Forward reduces, in one ``allreduce`` (in float64),
the per-channel element count, sum and sum of squares; backward reduces
the per-channel ``sum(gy)`` and ``sum(gy * x_hat)`` in one more.
"""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.functions.normalization import _standardize
from cpuframe.functions.normalization.batch_normalization import (
    _check_param_types,
    _keep_shape,
    _normalize_axis,
)
from cpuframe.utils import type_check


def _allreduce(comm, array):
    return comm.allreduce(numpy.ascontiguousarray(array, numpy.float64))


def _global_moments(comm, x, axes, dtype):
    """``(mean, var, count)`` over ``axes`` of the batch of every rank
    (mean and var keepdims, in ``dtype``; var is the biased variance)."""
    keep = _keep_shape(x.shape, axes)
    m = _standardize.reduced_size(x.shape, axes)
    xc = x.astype(dtype, copy=False)
    if m:
        local_mean = xc.mean(axis=axes, keepdims=True)
        centered = xc - local_mean
        # sum(x^2) = M2 + m * mean^2, with M2 taken around the local mean
        # (no cancellation locally); the sums travel in float64.
        m2 = numpy.square(centered).sum(axis=axes, keepdims=True,
                                        dtype=numpy.float64)
        mean64 = local_mean.astype(numpy.float64)
        sums = mean64 * m
        sqsums = m2 + m * numpy.square(mean64)
    else:
        sums = numpy.zeros(keep, numpy.float64)
        sqsums = numpy.zeros(keep, numpy.float64)
    c = sums.size
    buf = numpy.concatenate([sums.ravel(), sqsums.ravel(), [float(m)]])
    total = _allreduce(comm, buf)
    n = total[-1]
    if n < 1:
        raise ValueError('multi_node_batch_normalization: the batch of every '
                         'rank together is empty')
    mean = total[:c] / n
    var = numpy.maximum(total[c:2 * c] / n - numpy.square(mean), 0.0)
    return (mean.reshape(keep).astype(dtype), var.reshape(keep).astype(dtype),
            int(n))


class MultiNodeBatchNormalizationFunction(FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with the mean and
    variance of the batch of every rank; updates the running statistics
    (given as arrays) in place as batch normalization over that batch."""

    def __init__(self, comm, eps=2e-5, mean=None, var=None, decay=0.9,
                 axis=None):
        self.comm = comm
        self.eps = eps
        self.running_mean = mean
        self.running_var = var
        self.decay = decay
        self.axis = axis
        self.mean = None
        self.inv_std = None

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'beta'))
        _check_param_types(in_types, self.axis, self.label, ('gamma', 'beta'))

    def forward(self, inputs):
        x, gamma, beta = inputs
        axes = _normalize_axis(self.axis, x.ndim, gamma.ndim, self.label)
        self._axes = axes
        keep = _keep_shape(x.shape, axes)
        dtype = _standardize.compute_dtype(x.dtype, gamma.dtype)
        mean, var, n = _global_moments(self.comm, x, axes, dtype)
        inv_std = (1.0 / numpy.sqrt(var + dtype.type(self.eps))).astype(
            dtype, copy=False)
        self.mean, self.inv_std, self.count = mean, inv_std, n
        scale = gamma.reshape(keep).astype(dtype, copy=False) * inv_std
        y = (x.astype(dtype, copy=False) - mean) * scale + \
            beta.reshape(keep).astype(dtype, copy=False)
        self.retain_inputs((0, 1))
        decay = self.decay
        if self.running_mean is not None:
            self.running_mean *= decay
            self.running_mean += (1 - decay) * mean.reshape(gamma.shape)
        if self.running_var is not None:
            adjust = n / max(n - 1.0, 1.0)   # unbiased, over the whole batch
            self.running_var *= decay
            self.running_var += (1 - decay) * adjust * var.reshape(gamma.shape)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        return _MultiNodeBatchNormalizationGrad(self).apply(
            (x, gamma, grad_outputs[0]))


class _MultiNodeBatchNormalizationGrad(FunctionNode):
    """``(gx, ggamma, gbeta)``: ``gx`` is the gradient of the sum of every
    rank's loss w.r.t. this rank's ``x``; ``ggamma``/``gbeta`` are that
    sum's gradients divided by the number of ranks (ChainerMN's convention:
    averaged over the ranks by the multi-node optimizer, they give the
    gradient of the mean of the ranks' losses)."""

    def __init__(self, forward_node):
        f = forward_node
        self.comm = f.comm
        self.axes = f._axes
        self.mean = f.mean
        self.inv_std = f.inv_std
        self.count = f.count

    def forward(self, inputs):
        x, gamma, gy = inputs
        axes = self.axes
        keep = _keep_shape(x.shape, axes)
        dtype = self.inv_std.dtype
        x_hat = (x.astype(dtype, copy=False) - self.mean) * self.inv_std
        gy_c = gy.astype(dtype, copy=False)
        gbeta = gy_c.sum(axis=axes, keepdims=True, dtype=numpy.float64)
        ggamma = (gy_c * x_hat).sum(axis=axes, keepdims=True,
                                    dtype=numpy.float64)
        c = gbeta.size
        total = _allreduce(self.comm, numpy.concatenate(
            [gbeta.ravel(), ggamma.ravel()]))
        gbeta = total[:c].reshape(keep).astype(dtype)
        ggamma = total[c:].reshape(keep).astype(dtype)
        scale = gamma.reshape(keep).astype(dtype, copy=False) * self.inv_std
        gx = scale * (gy_c - (x_hat * ggamma + gbeta) *
                      dtype.type(1.0 / self.count))
        size = dtype.type(self.comm.size)
        return (gx.astype(x.dtype, copy=False),
                (ggamma / size).reshape(gamma.shape).astype(gamma.dtype),
                (gbeta / size).reshape(gamma.shape).astype(gamma.dtype))

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'multi-node batch normalization does not support double '
            'backpropagation')


def multi_node_batch_normalization(x, gamma, beta, comm, eps=2e-5,
                                   running_mean=None, running_var=None,
                                   decay=0.9, axis=None):
    """Batch normalization over the batch of every rank of ``comm``.

    Every rank must call it (it is a collective, and so is its backward).
    """
    return MultiNodeBatchNormalizationFunction(
        comm, eps, running_mean, running_var, decay, axis).apply(
            (x, gamma, beta))[0]
