"""Parametric ReLU layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.activation.prelu import prelu


class PReLU(link.Link):
    """``max(x, 0) + W * min(x, 0)`` with a learned slope ``W`` of ``shape``."""

    def __init__(self, shape=(), init=0.25):
        super().__init__()
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(init),
                                        tuple(shape))

    def forward(self, x):
        return prelu(x, self.W)
