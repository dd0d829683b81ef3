"""Stacked GRUs over variable-length sequences (uni- and bidirectional)."""
from cpuframe.functions.rnn import _cells
from cpuframe.functions.rnn._n_step import check_kwargs, n_step_impl


def n_step_gru(n_layers, dropout_ratio, hx, ws, bs, xs, **kwargs):
    """Stacked unidirectional GRU over sequences, ``(hy, ys)``.

    For each layer (:math:`\\sigma` the logistic sigmoid):

    .. math::
       r_t &= \\sigma(W_0 x_t + b_0 + W_3 h_{t-1} + b_3) \\\\
       z_t &= \\sigma(W_1 x_t + b_1 + W_4 h_{t-1} + b_4) \\\\
       \\bar h_t &= \\tanh(W_2 x_t + b_2 + r_t (W_5 h_{t-1} + b_5)) \\\\
       h_t &= (1 - z_t) \\bar h_t + z_t h_{t-1}

    The input of layer ``k > 0`` is ``h_t`` of layer ``k - 1``; during
    training (``config.train``) it goes through dropout with
    ``dropout_ratio`` first (the input of the first layer does not).

    On the intel64 backend (``config.use_ideep`` ``'always'``/``'auto'``,
    or arrays on the Intel64 device) the whole stack runs on oneDNN's RNN
    primitives, with the same results up to float32 rounding (and the same
    dropout masks for the same ``numpy.random`` state); gradients of second
    order are then not available.

    Args:
        n_layers (int): the number of layers ``S``.
        dropout_ratio (float): dropout ratio in ``[0, 1)``.
        hx: initial hidden states, ``(S, B, N)``.
        ws (list of lists): ``ws[k]`` holds the six matrices ``W_0 .. W_5``
            of layer ``k``; ``W_0 .. W_2`` are ``(N, I)`` for the first layer
            and ``(N, N)`` elsewhere, ``W_3 .. W_5`` are ``(N, N)``.
        bs (list of lists): ``bs[k]`` holds ``b_0 .. b_5``, each ``(N,)``.
        xs (list): time-major inputs: ``xs[t]`` is ``(B_t, I)``, the inputs
            at time ``t`` of the ``B_t`` sequences still running, with
            ``B_0 >= B_1 >= ...`` (sort the sequences by length, longest
            first, and transpose them with
            :func:`~cpuframe.functions.transpose_sequence`).  A sequence
            that has ended keeps its last state, which goes to ``hy``.

    Returns:
        tuple: ``hy`` of shape ``(S, B, N)`` and ``ys``, a tuple whose
        ``ys[t]`` is the last layer's ``h_t``, ``(B_t, N)``.

    >>> xs = [np.ones((b, 3), np.float32) for b in (3, 2, 1)]
    >>> hx = np.zeros((1, 3, 2), np.float32)
    >>> ws = [[np.ones((2, 3 if j < 3 else 2), np.float32) for j in range(6)]]
    >>> bs = [[np.zeros(2, np.float32)] * 6]
    >>> hy, ys = F.n_step_gru(1, 0.0, hx, ws, bs, xs)
    >>> hy.shape, [y.shape for y in ys]
    ((1, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    check_kwargs('n_step_gru', kwargs)
    hy, _, ys = n_step_impl('n_step_gru', _cells.gru_cell(), n_layers,
                            dropout_ratio, hx, None, ws, bs, xs,
                            use_bi_direction=False)
    return hy, ys


def n_step_bigru(n_layers, dropout_ratio, hx, ws, bs, xs, **kwargs):
    """Stacked bidirectional GRU over sequences, ``(hy, ys)``.

    Each layer runs a forward GRU over ``t = 0 .. T-1`` and a backward one
    over ``t = T-1 .. 0`` (the cell of :func:`n_step_gru`), and its output
    is :math:`h_t = [h^f_t; h^b_t]`, the input of the next layer.

    Args:
        n_layers (int): the number of layers ``S``.
        dropout_ratio (float): dropout ratio in ``[0, 1)``, applied to the
            input of every layer but the first while ``config.train``.
        hx: initial hidden states, ``(2S, B, N)``: ``hx[2k]`` forward and
            ``hx[2k + 1]`` backward of layer ``k``.
        ws (list of lists): ``ws[2k + d]`` holds ``W_0 .. W_5`` of layer
            ``k``, direction ``d`` (0 forward, 1 backward); ``W_0 .. W_2``
            are ``(N, I)`` for the first layer and ``(N, 2N)`` elsewhere.
        bs (list of lists): ``bs[2k + d]`` holds ``b_0 .. b_5``, ``(N,)``.
        xs (list): time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with
            ``B_0 >= B_1 >= ...`` (see :func:`n_step_gru`).

    Returns:
        tuple: ``hy`` of shape ``(2S, B, N)`` and ``ys`` with ``ys[t]`` of
        shape ``(B_t, 2N)``.

    >>> xs = [np.ones((b, 3), np.float32) for b in (2, 1)]
    >>> hx = np.zeros((2, 2, 4), np.float32)
    >>> ws = [[np.ones((4, 3 if j < 3 else 4), np.float32) for j in range(6)]
    ...       for d in range(2)]
    >>> bs = [[np.zeros(4, np.float32)] * 6 for d in range(2)]
    >>> hy, ys = F.n_step_bigru(1, 0.0, hx, ws, bs, xs)
    >>> [y.shape for y in ys]
    [(2, 8), (1, 8)]
    """
    check_kwargs('n_step_bigru', kwargs)
    hy, _, ys = n_step_impl('n_step_bigru', _cells.gru_cell(), n_layers,
                            dropout_ratio, hx, None, ws, bs, xs,
                            use_bi_direction=True)
    return hy, ys
