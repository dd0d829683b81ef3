"""Normalization links."""
from cpuframe.links.normalization.batch_normalization import BatchNormalization
from cpuframe.links.normalization.batch_renormalization import BatchRenormalization
from cpuframe.links.normalization.decorrelated_batch_normalization import (
    DecorrelatedBatchNormalization,
)
from cpuframe.links.normalization.group_normalization import GroupNormalization
from cpuframe.links.normalization.layer_normalization import LayerNormalization

__all__ = ['BatchNormalization', 'BatchRenormalization',
           'DecorrelatedBatchNormalization', 'GroupNormalization',
           'LayerNormalization']
