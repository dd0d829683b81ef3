"""Stacked GRU links over lists of sequences: NStepGRU and NStepBiGRU."""
from cpuframe.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from cpuframe.links.rnn.n_step_rnn import NStepRNNBase


class NStepGRUBase(NStepRNNBase):
    """The GRU variant of :class:`NStepRNNBase`: six matrices per child.

    ``w0 .. w2`` act on the layer input and ``w3 .. w5`` on the hidden
    state, for the reset gate, the update gate and the candidate state in
    this order (:func:`~cpuframe.functions.n_step_gru`).
    """

    n_weights = 6


class NStepGRU(NStepGRUBase):
    """Stacked unidirectional GRU over sequences.

    ``NStepGRU(n_layers, in_size, out_size, dropout, initialW=None,
    initial_bias=None)``; ``forward(hx, xs)`` returns ``(hy, ys)``.  The
    sequences ``xs`` may come in any order; ``ys[i]`` belongs to ``xs[i]``.
    See :class:`~cpuframe.links.rnn.n_step_rnn.NStepRNNBase`.

    >>> gru = L.NStepGRU(1, 3, 4, 0.0)
    >>> hy, ys = gru(None, [np.ones((n, 3), np.float32) for n in (2, 5)])
    >>> hy.shape, [y.shape for y in ys]
    ((1, 2, 4), [(2, 4), (5, 4)])
    """

    use_bi_direction = False

    def rnn(self, *args):
        return n_step_gru(*args)


class NStepBiGRU(NStepGRUBase):
    """Stacked bidirectional GRU over sequences.

    Children ``2k`` and ``2k + 1`` are the forward and backward direction
    of layer ``k`` (:func:`~cpuframe.functions.n_step_bigru`); ``hx`` is
    ``(2 * n_layers, B, out_size)`` and ``ys[i]`` is ``(len_i, 2 *
    out_size)``.  See :class:`NStepGRU`.
    """

    use_bi_direction = True

    def rnn(self, *args):
        return n_step_bigru(*args)
