"""Batch renormalization (Ioffe, 2017): batch statistics corrected by r, d."""
import warnings

from cpuframe import backend, configuration
from cpuframe.function_node import FunctionNode
from cpuframe.functions.normalization import _standardize
from cpuframe.functions.normalization.batch_normalization import (
    BatchNormalizationGrad,
    _check_param_types,
    _keep_shape,
    _normalize_axis,
    fixed_batch_normalization,
)
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class BatchRenormalization(FunctionNode):
    """``y = gamma * ((x - mean) / sigma * r + d) + beta``.

    ``mean`` and ``sigma = sqrt(var + eps)`` are the batch moments; with
    ``sigma_run = sqrt(running_var + eps)``,
    ``r = clip(sigma / sigma_run, 1 / rmax, rmax)`` and
    ``d = clip((mean - running_mean) / sigma_run, -dmax, dmax)`` are
    constants for the gradient (as in the paper).  The backward is the
    batch-normalization gradient with scale ``gamma * r``, so higher orders
    work.
    """

    def __init__(self, eps, running_mean, running_var, decay, rmax, dmax,
                 update_statistics):
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.rmax = rmax
        self.dmax = dmax
        self.update_statistics = update_statistics
        self.r = None
        self.d = None

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'beta'))
        self._axes = _check_param_types(in_types, None, self.label,
                                        ('gamma', 'beta'))
        shape = type_check.eval(in_types[1].shape)
        for name, stat in (('running_mean', self.running_mean),
                           ('running_var', self.running_var)):
            if tuple(stat.shape) != shape:
                raise type_check.InvalidType(
                    '{}.shape == gamma.shape = {}'.format(name, shape),
                    '{}.shape = {}'.format(name, tuple(stat.shape)))

    def forward(self, inputs):
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        axes = _normalize_axis(None, x.ndim, gamma.ndim, self.label)
        self._axes = axes
        keep = _keep_shape(x.shape, axes)
        dtype = _standardize.compute_dtype(x.dtype, gamma.dtype)
        mean, inv_std, xc, var = _standardize.moments(
            x, axes, self.eps, dtype, return_var=True)
        eps = dtype.type(self.eps)
        sigma = xp.sqrt(var + eps)
        run_sigma = xp.sqrt(
            self.running_var.astype(dtype, copy=False).reshape(keep) + eps)
        run_mean = self.running_mean.astype(dtype, copy=False).reshape(keep)
        r = xp.clip(sigma / run_sigma, 1.0 / self.rmax, self.rmax)
        d = xp.clip((mean - run_mean) / run_sigma, -self.dmax, self.dmax)
        r, d = r.astype(dtype, copy=False), d.astype(dtype, copy=False)
        x_renorm = xc * (inv_std * r) + d
        y = x_renorm * gamma.reshape(keep).astype(dtype, copy=False) + \
            beta.reshape(keep).astype(dtype, copy=False)
        self.mean, self.inv_std = mean, inv_std
        self.r = r.reshape(gamma.shape).astype(gamma.dtype, copy=False)
        self.d = d.reshape(gamma.shape).astype(gamma.dtype, copy=False)
        self.retain_inputs((0, 1))
        if self.update_statistics:
            m = _standardize.reduced_size(x.shape, axes)
            adjust = m / max(m - 1.0, 1.0)
            decay = self.decay
            self.running_mean *= decay
            self.running_mean += ((1 - decay) * mean).reshape(gamma.shape)
            # As Chainer: the Bessel-corrected variance (not the std).
            self.running_var *= decay
            self.running_var += ((1 - decay) * adjust * var).reshape(
                gamma.shape)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        gx, ggamma, gbeta = BatchNormalizationGrad(
            self._axes, self.eps, self.mean, self.inv_std).apply(
                (x, gamma * self.r, gy))
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gx)
            elif i == 1:
                # d y / d gamma = x_hat * r + d, so both sums are needed.
                ret.append(ggamma * self.r + gbeta * self.d)
            else:
                ret.append(gbeta)
        return tuple(ret)


def batch_renormalization(x, gamma, beta, rmax, dmax, eps=2e-5,
                          running_mean=None, running_var=None, decay=0.9,
                          update_statistics=False):
    """Batch renormalization function.

    An extension of batch normalization that makes training and inference
    outputs agree by correcting the batch statistics towards the running
    ones::

        sigma = sqrt(var + eps),  sigma_run = sqrt(running_var + eps)
        r = clip(sigma / sigma_run, 1 / rmax, rmax)
        d = clip((mean - running_mean) / sigma_run, -dmax, dmax)
        y = gamma * ((x - mean) / sigma * r + d) + beta

    ``mean`` and ``var`` are taken over the batch axis and every axis after
    those ``gamma`` covers; ``r`` and ``d`` are held constant in the
    gradient.  With ``rmax=1, dmax=0`` it is :func:`batch_normalization`.

    Unlike :func:`batch_normalization`, the running statistics are updated
    in place only with ``update_statistics=True``: ``running_mean`` to
    ``decay * running_mean + (1 - decay) * mean`` and ``running_var`` to
    ``decay * running_var + (1 - decay) * m / (m - 1) * var``
    (Chainer's convention: the moving average of the Bessel-corrected
    variance, not of the standard deviation as in the paper).

    See: `Batch Renormalization: Towards Reducing Minibatch Dependence in
    Batch-Normalized Models <https://arxiv.org/abs/1702.03275>`_

    Args:
        x (Variable or array): Input, e.g. ``(n, c)`` or ``(n, c, h, w)``.
        gamma, beta (Variable or array): Scale and shift, ``(c,)`` (or the
            shape of ``x``'s axes after the batch axis that they cover).
        rmax (float): Upper bound of ``r`` (its lower bound is ``1/rmax``).
        dmax (float): Bound of ``|d|``.
        eps (float): Added to the variances.
        running_mean, running_var (array): The running statistics
            (required), of the shape of ``gamma``.
        decay (float): Decay of the running averages.
        update_statistics (bool): Update the running statistics in place.

    Returns:
        Variable of the shape of ``x``.

    >>> x = np.array([[1., 2.], [3., 6.]], np.float32)
    >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
    >>> F.batch_renormalization(x, one, zero, 1, 0, running_mean=zero,
    ...                         running_var=one).array.round(3)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    """
    if running_mean is None or running_var is None:
        raise TypeError('batch_renormalization: running_mean and running_var '
                        'are required, got running_mean={!r}, '
                        'running_var={!r}'.format(
                            type(running_mean).__name__,
                            type(running_var).__name__))
    if rmax < 1:
        raise ValueError('batch_renormalization: rmax must be >= 1, '
                         'got {}'.format(rmax))
    if dmax < 0:
        raise ValueError('batch_renormalization: dmax must be >= 0, '
                         'got {}'.format(dmax))
    if isinstance(running_mean, Variable):
        running_mean = running_mean.array
    if isinstance(running_var, Variable):
        running_var = running_var.array
    return BatchRenormalization(eps, running_mean, running_var, decay, rmax,
                                dmax, update_statistics).apply(
                                    (x, gamma, beta))[0]


def fixed_batch_renormalization(x, gamma, beta, mean, var, eps=2e-5):
    """Batch renormalization at test time (deprecated, as in Chainer).

    At inference batch renormalization is batch normalization with the
    given statistics: this is :func:`fixed_batch_normalization` (run in
    test mode), and warns with ``DeprecationWarning`` as Chainer 7 does.

    >>> x = np.array([[1., 3.]], np.float32)
    >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter('ignore')
    ...     F.fixed_batch_renormalization(x, one, zero, one, one, 0).array
    array([[0., 2.]], dtype=float32)
    """
    warnings.warn('fixed_batch_renormalization is deprecated; use '
                  'fixed_batch_normalization instead', DeprecationWarning,
                  stacklevel=2)
    with configuration.using_config('train', False):
        return fixed_batch_normalization(x, gamma, beta, mean, var, eps)
