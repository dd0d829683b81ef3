"""BlackOut loss layer (Chainer's ``L.BlackOut``)."""
import numpy

from cpuframe import link, variable
from cpuframe.functions.loss.black_out import black_out
from cpuframe.utils.walker_alias import WalkerAlias


class BlackOut(link.Link):
    """Holds the weights of :func:`~cpuframe.functions.black_out` and draws
    its negative samples.

    A call ``forward(x, t)`` draws ``(batch, sample_size)`` negatives from
    the unigram distribution ``counts`` (normalized; no power is applied,
    as in Chainer) with a :class:`~cpuframe.utils.WalkerAlias` sampler and
    returns the mean BlackOut loss.

    Args:
        in_size (int): dimension of the input vectors.
        counts (sequence of int): frequency of each label.
        sample_size (int): number of negatives per example.

    Attributes:
        W (~cpuframe.Parameter): ``(len(counts), in_size)``, of
            ``config.dtype``.  As in Chainer it has no initializer, so it
            starts as NaN: set ``W.array`` (or copy trained weights in)
            before use.
        sampler (WalkerAlias): the negative sampler.
        sample_data: None, or a fixed ``(batch, sample_size)`` int array
            used instead of drawing (Chainer's hook for tests).

    >>> bo = L.BlackOut(3, [5, 2, 1, 1], sample_size=2)
    >>> bo.W.array[...] = 0.1
    >>> bo(np.ones((4, 3), np.float32), np.array([0, 1, 2, 3])).shape
    ()
    """

    sample_data = None

    def __init__(self, in_size, counts, sample_size):
        super().__init__()
        if not isinstance(sample_size, (int, numpy.integer)) or \
                isinstance(sample_size, bool) or sample_size < 1:
            raise ValueError('BlackOut: expected sample_size as an int >= 1, '
                             'got {!r}'.format(sample_size))
        self.sampler = WalkerAlias(numpy.asarray(counts, numpy.float32))
        self.sample_size = int(sample_size)
        with self.init_scope():
            self.W = variable.Parameter(shape=(len(counts), in_size))

    def printable_specs(self):
        return (('in_size', self.W.shape[1]), ('vocab_size', self.W.shape[0]),
                ('sample_size', self.sample_size))

    def forward(self, x, t):
        """The mean loss of ``x`` ``(batch, in_size)`` for labels ``t``."""
        if self.sample_data is not None:
            samples = self.sample_data
        else:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
            samples = self.xp.asarray(samples)
        samples = variable.Variable(samples, requires_grad=False)
        return black_out(x, t, self.W, samples)
