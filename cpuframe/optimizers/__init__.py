"""Optimizers (Chainer's ``chainer.optimizers``).

Each optimizer is a :class:`~cpuframe.optimizer.GradientMethod`; its
update rule class (``SGDRule``, ``AdamRule``, ...) sits beside it.
"""
from cpuframe.optimizers.ada_delta import AdaDelta, AdaDeltaRule
from cpuframe.optimizers.ada_grad import AdaGrad, AdaGradRule
from cpuframe.optimizers.adam import (
    AdaBound,
    Adam,
    AdamRule,
    AdamW,
    AMSBound,
    AMSGrad,
)
from cpuframe.optimizers.corrected_momentum_sgd import (
    CorrectedMomentumSGD,
    CorrectedMomentumSGDRule,
)
from cpuframe.optimizers.momentum_sgd import MomentumSGD, MomentumSGDRule
from cpuframe.optimizers.msvag import MSVAG, MSVAGRule
from cpuframe.optimizers.nesterov_ag import NesterovAG, NesterovAGRule
from cpuframe.optimizers.rmsprop import RMSprop, RMSpropRule
from cpuframe.optimizers.rmsprop_graves import RMSpropGraves, RMSpropGravesRule
from cpuframe.optimizers.sgd import SGD, SGDRule
from cpuframe.optimizers.smorms3 import SMORMS3, SMORMS3Rule

__all__ = [
    'AdaBound', 'AdaDelta', 'AdaDeltaRule', 'AdaGrad', 'AdaGradRule', 'Adam',
    'AdamRule', 'AdamW', 'AMSBound', 'AMSGrad', 'CorrectedMomentumSGD',
    'CorrectedMomentumSGDRule', 'MomentumSGD', 'MomentumSGDRule', 'MSVAG',
    'MSVAGRule', 'NesterovAG', 'NesterovAGRule', 'RMSprop', 'RMSpropGraves',
    'RMSpropGravesRule', 'RMSpropRule', 'SGD', 'SGDRule', 'SMORMS3',
    'SMORMS3Rule',
]
