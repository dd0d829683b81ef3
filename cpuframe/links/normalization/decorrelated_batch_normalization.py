"""Decorrelated batch normalization layer (Chainer's
``L.DecorrelatedBatchNormalization``)."""
import warnings

import numpy

from cpuframe import backend, configuration, link
from cpuframe import serializer as serializer_module
from cpuframe.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)


def _warn_old_model():
    warnings.warn('DecorrelatedBatchNormalization: the moving statistics come '
                  'from an old version whose algorithm differed from the '
                  'paper (one statistic shared by all groups)', stacklevel=4)


def fix_avg_mean(avg_mean, groups):
    """``avg_mean`` as ``(groups, C)``: a ``(C,)`` one, saved by Chainer
    before v7 (one mean for all groups), is repeated for every group."""
    if avg_mean.ndim == 2:
        return avg_mean
    if avg_mean.ndim == 1:
        if groups != 1:
            _warn_old_model()
        return numpy.broadcast_to(avg_mean, (groups,) + avg_mean.shape)
    raise ValueError('fix_avg_mean: expected avg_mean of 1 or 2 dimensions, '
                     'got shape {}'.format(avg_mean.shape))


def fix_avg_projection(avg_projection, groups):
    """``avg_projection`` as ``(groups, C, C)``: a ``(C, C)`` one (saved
    before Chainer v7) is repeated for every group."""
    if avg_projection.ndim == 3:
        return avg_projection
    if avg_projection.ndim == 2:
        if groups != 1:
            _warn_old_model()
        return numpy.broadcast_to(avg_projection,
                                  (groups,) + avg_projection.shape)
    raise ValueError('fix_avg_projection: expected avg_projection of 2 or 3 '
                     'dimensions, got shape {}'.format(avg_projection.shape))


class _FixingDeserializer(serializer_module.Deserializer):
    """Reads through ``base``, passing the named values through a fix."""

    def __init__(self, base, fixes):
        self.base = base
        self.fixes = fixes

    def __getitem__(self, key):
        return self.base[key]

    def __call__(self, key, value):
        if key not in self.fixes:
            return self.base(key, value)
        raw = self.base(key, None)
        if raw is None:   # absent, or a dry run that only checks the keys
            return value
        loaded = self.fixes[key](raw)
        if value is None:
            return loaded
        if tuple(loaded.shape) != tuple(value.shape):
            raise ValueError(
                'DecorrelatedBatchNormalization: cannot load {} of shape {} '
                'into one of shape {}'.format(key, tuple(raw.shape),
                                              tuple(value.shape)))
        backend.copyto(value, loaded)
        return value


class DecorrelatedBatchNormalization(link.Link):
    """Decorrelated batch normalization layer (Huang et al., 2018).

    In training mode (``config.train``) it whitens its input with batch
    statistics (:func:`~cpuframe.functions.decorrelated_batch_normalization`)
    and keeps running averages of the per-group mean and whitening
    projection; ``forward(x, finetune=True)`` averages over all batches
    since :meth:`start_finetuning` instead of decaying.  In test mode it
    applies the averages
    (:func:`~cpuframe.functions.fixed_decorrelated_batch_normalization`).
    It has no parameters.

    Args:
        size (int): the number of channels.
        groups (int): the number of channel groups (``size`` divisible by
            it).
        decay (float): the decay of the running averages.
        eps (float): added to the covariance's diagonal.
        dtype: the dtype of the statistics (default float32).

    Attributes:
        avg_mean: ``(groups, C)`` running mean (persistent), zeros at first.
        avg_projection: ``(groups, C, C)`` running projection
            (persistent), identities at first.
        N (int): batches seen in fine-tuning (persistent).

    Loading a snapshot with ``(C,)`` and ``(C, C)`` statistics (Chainer
    before v7) repeats them for every group, with a warning when
    ``groups > 1``.

    >>> dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    >>> dbn(np.random.RandomState(0).randn(8, 4).astype(np.float32)).shape
    (8, 4)
    """

    def __init__(self, size, groups=16, decay=0.9, eps=2e-5,
                 dtype=numpy.float32):
        super().__init__()
        if not isinstance(size, (int, numpy.integer)) or \
                not isinstance(groups, (int, numpy.integer)) or \
                groups < 1 or size % groups:
            raise ValueError(
                'DecorrelatedBatchNormalization: expected size divisible by '
                'groups (ints), got size={!r} and groups={!r}'.format(
                    size, groups))
        C = size // groups
        self.avg_mean = numpy.zeros((groups, C), dtype=dtype)
        self.register_persistent('avg_mean')
        self.avg_projection = numpy.broadcast_to(
            numpy.eye(C, dtype=dtype), (groups, C, C)).copy()
        self.register_persistent('avg_projection')
        self.N = 0
        self.register_persistent('N')
        self.decay = decay
        self.eps = eps
        self.groups = groups

    def printable_specs(self):
        return (('size', self.avg_mean.size), ('groups', self.groups),
                ('decay', self.decay), ('eps', self.eps))

    def serialize(self, serializer):
        if isinstance(serializer, serializer_module.Deserializer):
            groups = self.groups
            serializer = _FixingDeserializer(serializer, {
                'avg_mean': lambda a: fix_avg_mean(a, groups),
                'avg_projection': lambda a: fix_avg_projection(a, groups),
            })
        super().serialize(serializer)

    def forward(self, x, **kwargs):
        """forward(self, x, *, finetune=False)

        Whiten ``x`` ``(b, size, ...)``: with batch statistics in training
        mode (``finetune=True``: the running averages become the plain
        average over the fine-tuning batches), with the running ones in
        test mode.
        """
        finetune = kwargs.pop('finetune', False)
        if kwargs:
            raise TypeError('DecorrelatedBatchNormalization.forward: '
                            'unexpected keyword arguments {}'.format(
                                sorted(kwargs)))
        if not configuration.config.train:
            return fixed_decorrelated_batch_normalization(
                x, self.avg_mean, self.avg_projection, groups=self.groups)
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        else:
            decay = self.decay
        avg_mean, avg_projection = self.avg_mean, self.avg_projection
        if configuration.config.in_recomputing:
            # a recomputation leaves the statistics and the count alone
            if finetune:
                self.N -= 1
            avg_mean = avg_projection = None
        return decorrelated_batch_normalization(
            x, groups=self.groups, eps=self.eps, running_mean=avg_mean,
            running_projection=avg_projection, decay=decay)

    def start_finetuning(self):
        """Reset the count of fine-tuning batches."""
        self.N = 0
