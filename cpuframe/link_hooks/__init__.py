"""Link hooks (Chainer's ``chainer.link_hooks``).

Register one for every link called in a block with ``with hook:``, or for
one link with ``link.add_hook(hook)``.
"""
from cpuframe.link_hooks.spectral_normalization import SpectralNormalization
from cpuframe.link_hooks.timer import TimerHook
from cpuframe.link_hooks.weight_standardization import WeightStandardization

__all__ = ['SpectralNormalization', 'TimerHook', 'WeightStandardization']
