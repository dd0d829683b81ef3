"""Stacked LSTM links over lists of sequences: NStepLSTM and NStepBiLSTM."""
from cpuframe.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from cpuframe.links.rnn.n_step_rnn import NStepRNNBase


class NStepLSTMBase(NStepRNNBase):
    """The LSTM variant of :class:`NStepRNNBase`: eight matrices per child.

    ``w0 .. w3`` act on the layer input and ``w4 .. w7`` on the hidden
    state, for the input gate, the forget gate, the cell input and the
    output gate in this order (:func:`~cpuframe.functions.n_step_lstm`).
    """

    n_weights = 8

    @property
    def n_cells(self):
        return 2

    def forward(self, hx, cx, xs, **kwargs):
        """Run the stack over the sequences ``xs``; ``(hy, cy, ys)``.

        Args:
            hx, cx: initial hidden and cell states ``(S * D, B, N)`` (``S``
                layers, ``D`` directions, ``B = len(xs)``, ``N =
                out_size``), or None for zeros.  Row ``i`` belongs to
                ``xs[i]``.
            xs (list): ``B`` sequences, Variables or arrays of shape
                ``(len_i, in_size)``, in any order.

        Returns:
            tuple: ``hy`` and ``cy``, the final states shaped like ``hx``,
            and ``ys``, a list whose ``ys[i]`` holds the last layer's
            outputs for ``xs[i]``, ``(len_i, N * D)``.
        """
        (hy, cy), ys = self._call([hx, cx], xs, **kwargs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked unidirectional LSTM over sequences.

    ``NStepLSTM(n_layers, in_size, out_size, dropout, initialW=None,
    initial_bias=None)``; ``forward(hx, cx, xs)`` returns ``(hy, cy, ys)``.
    The sequences ``xs`` may come in any order; ``ys[i]`` belongs to
    ``xs[i]``.  See :class:`~cpuframe.links.rnn.n_step_rnn.NStepRNNBase`.

    >>> lstm = L.NStepLSTM(1, 3, 4, 0.0)
    >>> xs = [np.ones((n, 3), np.float32) for n in (2, 5)]
    >>> hy, cy, ys = lstm(None, None, xs)
    >>> hy.shape, cy.shape, [y.shape for y in ys]
    ((1, 2, 4), (1, 2, 4), [(2, 4), (5, 4)])
    """

    use_bi_direction = False

    def rnn(self, *args):
        return n_step_lstm(*args)


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bidirectional LSTM over sequences.

    Children ``2k`` and ``2k + 1`` are the forward and backward direction
    of layer ``k`` (:func:`~cpuframe.functions.n_step_bilstm`); ``hx`` and
    ``cx`` are ``(2 * n_layers, B, out_size)`` and ``ys[i]`` is ``(len_i,
    2 * out_size)``.  See :class:`NStepLSTM`.
    """

    use_bi_direction = True

    def rnn(self, *args):
        return n_step_bilstm(*args)
