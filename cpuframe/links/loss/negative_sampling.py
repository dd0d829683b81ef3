"""Negative sampling loss layer."""
import numpy

import cpuframe
from cpuframe import initializers, link, variable
from cpuframe.functions.loss.negative_sampling import negative_sampling
from cpuframe.utils.walker_alias import WalkerAlias


class NegativeSampling(link.Link):
    """Holds the weights of :func:`~cpuframe.functions.negative_sampling`.

    The negatives are drawn from ``counts ** power`` (normalized) with a
    :class:`~cpuframe.utils.WalkerAlias` sampler built here.

    Args:
        in_size (int): dimension of the input vectors.
        counts (sequence of int): frequency of each word id.
        sample_size (int): number of negatives per example.
        power (float): the exponent ``alpha`` applied to the counts.
        dtype: parameter dtype (default ``cpuframe.config.dtype``).

    Attributes:
        W (~cpuframe.Parameter): ``(len(counts), in_size)``, zeros at first.
        sampler (WalkerAlias): the negative sampler.
    """

    def __init__(self, in_size, counts, sample_size, power=0.75, dtype=None):
        super().__init__()
        dtype = numpy.dtype(cpuframe.get_dtype(dtype))
        vocab_size = len(counts)
        self.sample_size = sample_size
        p = numpy.power(numpy.asarray(counts, dtype), dtype.type(power))
        self.sampler = WalkerAlias(p)
        with self.init_scope():
            self.W = variable.Parameter(initializers.Constant(0, dtype),
                                        (vocab_size, in_size))

    def printable_specs(self):
        return (('in_size', self.W.shape[1]), ('vocab_size', self.W.shape[0]),
                ('sample_size', self.sample_size))

    def forward(self, x, t, reduce='sum', **kwargs):
        """Loss of ``x`` (batch, in_size) for the labels ``t`` (batch,).

        ``reduce`` is ``'sum'`` or ``'no'``; the keyword ``return_samples``
        (default False) makes it return ``(loss, samples)`` too.
        """
        return_samples = kwargs.pop('return_samples', False)
        if kwargs:
            raise TypeError('NegativeSampling.forward: unexpected keyword '
                            'arguments {}'.format(sorted(kwargs)))
        return negative_sampling(x, t, self.W, self.sampler.sample,
                                 self.sample_size, reduce=reduce,
                                 return_samples=return_samples)
