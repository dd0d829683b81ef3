"""Normalization functions: batch, layer, group, local response, L2."""
from cpuframe.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from cpuframe.functions.normalization.batch_renormalization import (
    batch_renormalization,
    fixed_batch_renormalization,
)
from cpuframe.functions.normalization.group_normalization import group_normalization
from cpuframe.functions.normalization.l2_normalization import normalize
from cpuframe.functions.normalization.layer_normalization import layer_normalization
from cpuframe.functions.normalization.local_response_normalization import (
    local_response_normalization,
)

__all__ = ['batch_normalization', 'fixed_batch_normalization',
           'batch_renormalization', 'fixed_batch_renormalization',
           'group_normalization', 'layer_normalization',
           'local_response_normalization', 'normalize']
