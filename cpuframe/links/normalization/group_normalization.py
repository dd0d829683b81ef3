"""Group normalization layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.normalization.group_normalization import (
    group_normalization,
)


class GroupNormalization(link.Link):
    """Normalizes groups of channels per sample, then scales and shifts."""

    def __init__(self, groups, size=None, eps=1e-5, initial_gamma=None,
                 initial_beta=None):
        super().__init__()
        if groups <= 0:
            raise ValueError('GroupNormalization: expected groups > 0, got '
                             '{}'.format(groups))
        self.groups = groups
        self.eps = eps
        with self.init_scope():
            self.gamma = variable.Parameter(
                initializers._get_initializer(initial_gamma) or
                initializers.One())
            self.beta = variable.Parameter(
                initializers._get_initializer(initial_beta) or
                initializers.Zero())
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size):
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x):
        if self.gamma.array is None:
            self._initialize_params(x.shape[1])
        return group_normalization(x, self.groups, self.gamma, self.beta,
                                   self.eps)
