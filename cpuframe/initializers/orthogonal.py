"""The orthogonal initializer (Saxe et al., https://arxiv.org/abs/1312.6120)."""
import numpy

from cpuframe.initializer import Initializer
from cpuframe.initializers._util import fill, rng_or_global


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix scaled by ``scale``.

    The array is viewed as (shape[0], prod(shape[1:])); its rows (or
    columns, whichever are fewer) are orthonormal.
    """

    def __init__(self, scale=1.1, dtype=None, rng=None):
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array):
        if array.ndim < 2:
            raise ValueError('Orthogonal: expected an array with at least 2 '
                             'axes, got shape {}'.format(array.shape))
        rows = array.shape[0]
        cols = int(numpy.prod(array.shape[1:]))
        a = rng_or_global(self.rng).normal(
            size=(max(rows, cols), min(rows, cols)))
        q, r = numpy.linalg.qr(a)
        q *= numpy.sign(numpy.diag(r))
        if rows < cols:
            q = q.T
        fill(array, self.scale * q.reshape(array.shape))
