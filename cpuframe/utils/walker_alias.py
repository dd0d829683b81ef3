"""Walker's alias method: O(1) sampling from a fixed discrete distribution."""
import numpy

from cpuframe import backend


def _to_numpy(a):
    return numpy.asarray(a.get() if hasattr(a, 'get') else a)


class WalkerAlias:
    """Samples integers ``0 .. len(probs) - 1`` with probability ``probs``.

    The table is built once in O(n) (Vose's variant of Walker's alias
    method); each draw then costs one uniform number and one comparison:
    pick a column ``i`` uniformly, keep ``i`` when the uniform's fractional
    part is below ``threshold[i]``, else return its alias.

    Args:
        probs: 1-D array of non-negative weights (not necessarily
            normalized), at least one of them positive.

    >>> sampler = cpuframe.utils.WalkerAlias([0., 1., 3.])
    >>> s = sampler.sample((1000,))
    >>> s.dtype, bool((s != 0).all())
    (dtype('int32'), True)
    """

    def __init__(self, probs):
        probs = numpy.asarray(probs, dtype=numpy.float64)
        if probs.ndim != 1 or probs.size == 0:
            raise ValueError('WalkerAlias: probs must be a non-empty 1-D '
                             'array, got shape {}'.format(probs.shape))
        if not numpy.isfinite(probs).all() or (probs < 0).any():
            raise ValueError('WalkerAlias: probs must be finite and '
                             'non-negative')
        total = probs.sum()
        if total <= 0:
            raise ValueError('WalkerAlias: probs must have a positive sum, '
                             'got {}'.format(total))
        n = probs.size
        scaled = probs * (n / total)
        threshold = numpy.ones(n, numpy.float64)
        alias = numpy.arange(n, dtype=numpy.int32)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        while small and large:
            s = small.pop()
            g = large[-1]
            threshold[s] = scaled[s]
            alias[s] = g
            scaled[g] -= 1.0 - scaled[s]
            if scaled[g] < 1.0:
                large.pop()
                small.append(g)
        # what is left is 1 up to rounding: those columns never alias
        self.threshold = threshold.astype(numpy.float32)
        self.values = alias
        self.use_gpu = False

    def to_gpu(self):
        """Move the tables to the GPU (needs CuPy)."""
        import cupy
        self.threshold = cupy.asarray(self.threshold)
        self.values = cupy.asarray(self.values)
        self.use_gpu = True
        return self

    def to_cpu(self):
        """Move the tables back to NumPy arrays."""
        self.threshold = _to_numpy(self.threshold)
        self.values = _to_numpy(self.values)
        self.use_gpu = False
        return self

    def sample(self, shape):
        """Draw an ``int32`` array of ``shape`` from the distribution."""
        xp = backend.get_array_module(self.threshold)
        n = len(self.threshold)
        u = xp.random.random_sample(shape) * n
        index = xp.minimum(u.astype(numpy.int32), n - 1)
        frac = (u - index).astype(numpy.float32)
        keep = frac < self.threshold[index]
        return xp.where(keep, index, self.values[index]).astype(numpy.int32)
