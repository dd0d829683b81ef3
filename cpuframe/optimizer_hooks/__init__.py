"""Optimizer hooks (Chainer's ``chainer.optimizer_hooks``).

Register with ``optimizer.add_hook(hook)``; hooks whose
``call_for_each_param`` is true can also go on one parameter's update rule
(``param.update_rule.add_hook(hook)``).
"""
from cpuframe.optimizer_hooks.gradient_clipping import GradientClipping
from cpuframe.optimizer_hooks.gradient_hard_clipping import GradientHardClipping
from cpuframe.optimizer_hooks.gradient_lars import GradientLARS
from cpuframe.optimizer_hooks.gradient_noise import (
    GradientNoise,
    exponential_decay_noise,
)
from cpuframe.optimizer_hooks.lasso import Lasso
from cpuframe.optimizer_hooks.weight_decay import WeightDecay

__all__ = [
    'GradientClipping', 'GradientHardClipping', 'GradientLARS',
    'GradientNoise', 'Lasso', 'WeightDecay', 'exponential_decay_noise',
]
