"""Layer normalization layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.normalization.layer_normalization import (
    layer_normalization,
)


class LayerNormalization(link.Link):
    """Normalizes each row of a (batch, size) input, then scales and shifts."""

    def __init__(self, size=None, eps=1e-6, initial_gamma=None,
                 initial_beta=None):
        super().__init__()
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
            self._initialize_params(x.size // x.shape[0])
        return layer_normalization(x, self.gamma, self.beta, self.eps)
