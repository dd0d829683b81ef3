"""Maxout layer."""
from cpuframe import link
from cpuframe.functions.activation.maxout import maxout
from cpuframe.links.connection.linear import Linear


class Maxout(link.Chain):
    """A Linear layer to ``out_size * pool_size`` units, then the max of each
    group of ``pool_size``."""

    def __init__(self, in_size, out_size, pool_size, initialW=None,
                 initial_bias=0):
        super().__init__()
        self.out_size = out_size
        self.pool_size = pool_size
        with self.init_scope():
            self.linear = Linear(in_size, out_size * pool_size,
                                 initialW=initialW, initial_bias=initial_bias)

    def forward(self, x):
        y = self.linear(x)
        return maxout(y, self.pool_size)
