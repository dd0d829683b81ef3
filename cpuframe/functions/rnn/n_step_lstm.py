"""Stacked LSTMs over variable-length sequences (uni- and bidirectional)."""
from cpuframe.functions.rnn import _cells
from cpuframe.functions.rnn._n_step import check_kwargs, n_step_impl


def n_step_lstm(n_layers, dropout_ratio, hx, cx, ws, bs, xs, **kwargs):
    """Stacked unidirectional LSTM over sequences, ``(hy, cy, ys)``.

    For each layer (:math:`\\sigma` the logistic sigmoid):

    .. math::
       i_t &= \\sigma(W_0 x_t + W_4 h_{t-1} + b_0 + b_4) \\\\
       f_t &= \\sigma(W_1 x_t + W_5 h_{t-1} + b_1 + b_5) \\\\
       a_t &= \\tanh(W_2 x_t + W_6 h_{t-1} + b_2 + b_6) \\\\
       o_t &= \\sigma(W_3 x_t + W_7 h_{t-1} + b_3 + b_7) \\\\
       c_t &= f_t c_{t-1} + i_t a_t \\\\
       h_t &= o_t \\tanh(c_t)

    This is the assignment Chainer computes (and cuDNN's weight layout);
    Chainer's docstring swaps the names of ``a`` and ``o``.  The input of
    layer ``k > 0`` is ``h_t`` of layer ``k - 1``; during training
    (``config.train``) it goes through dropout with ``dropout_ratio`` first
    (the input of the first layer does not).

    On the intel64 backend (``config.use_ideep`` ``'always'``/``'auto'``,
    or arrays on the Intel64 device) the whole stack runs on oneDNN's RNN
    primitives, with the same results up to float32 rounding (and the same
    dropout masks for the same ``numpy.random`` state); gradients of second
    order are then not available.

    Args:
        n_layers (int): the number of layers ``S``.
        dropout_ratio (float): dropout ratio in ``[0, 1)``.
        hx: initial hidden states, ``(S, B, N)``.
        cx: initial cell states, ``(S, B, N)``.
        ws (list of lists): ``ws[k]`` holds the eight matrices ``W_0 ..
            W_7`` of layer ``k``; ``W_0 .. W_3`` are ``(N, I)`` for the first
            layer and ``(N, N)`` elsewhere, ``W_4 .. W_7`` are ``(N, N)``.
        bs (list of lists): ``bs[k]`` holds ``b_0 .. b_7``, each ``(N,)``.
        xs (list): time-major inputs: ``xs[t]`` is ``(B_t, I)``, the inputs
            at time ``t`` of the ``B_t`` sequences still running, with
            ``B_0 >= B_1 >= ...`` (sort the sequences by length, longest
            first, and transpose them with
            :func:`~cpuframe.functions.transpose_sequence`).  A sequence
            that has ended keeps its last states, which go to ``hy``/``cy``.

    Returns:
        tuple: ``hy`` and ``cy`` of shape ``(S, B, N)``, and ``ys``, a tuple
        whose ``ys[t]`` is the last layer's ``h_t``, ``(B_t, N)``.

    >>> xs = [np.ones((b, 3), np.float32) for b in (3, 2, 1)]
    >>> hx = np.zeros((2, 3, 2), np.float32); cx = hx.copy()
    >>> ws = [[np.ones((2, 3 if k == 0 and j < 4 else 2), np.float32)
    ...        for j in range(8)] for k in range(2)]
    >>> bs = [[np.zeros(2, np.float32)] * 8 for k in range(2)]
    >>> hy, cy, ys = F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
    >>> hy.shape, cy.shape, [y.shape for y in ys]
    ((2, 3, 2), (2, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    check_kwargs('n_step_lstm', kwargs)
    return n_step_impl('n_step_lstm', _cells.lstm_cell(), n_layers,
                       dropout_ratio, hx, cx, ws, bs, xs,
                       use_bi_direction=False)


def n_step_bilstm(n_layers, dropout_ratio, hx, cx, ws, bs, xs, **kwargs):
    """Stacked bidirectional LSTM over sequences, ``(hy, cy, ys)``.

    Each layer runs a forward LSTM over ``t = 0 .. T-1`` and a backward one
    over ``t = T-1 .. 0`` (the cell of :func:`n_step_lstm`), and its output
    is :math:`h_t = [h^f_t; h^b_t]`, the input of the next layer.

    Args:
        n_layers (int): the number of layers ``S``.
        dropout_ratio (float): dropout ratio in ``[0, 1)``, applied to the
            input of every layer but the first while ``config.train``.
        hx, cx: initial hidden and cell states, ``(2S, B, N)``: index
            ``2k`` is the forward and ``2k + 1`` the backward direction of
            layer ``k``.
        ws (list of lists): ``ws[2k + d]`` holds ``W_0 .. W_7`` of layer
            ``k``, direction ``d`` (0 forward, 1 backward); ``W_0 .. W_3``
            are ``(N, I)`` for the first layer and ``(N, 2N)`` elsewhere.
        bs (list of lists): ``bs[2k + d]`` holds ``b_0 .. b_7``, ``(N,)``.
        xs (list): time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with
            ``B_0 >= B_1 >= ...`` (see :func:`n_step_lstm`).

    Returns:
        tuple: ``hy`` and ``cy`` of shape ``(2S, B, N)``, and ``ys`` with
        ``ys[t]`` of shape ``(B_t, 2N)``.

    >>> xs = [np.ones((b, 3), np.float32) for b in (2, 1)]
    >>> hx = np.zeros((2, 2, 4), np.float32); cx = hx.copy()
    >>> ws = [[np.ones((4, 3 if j < 4 else 4), np.float32) for j in range(8)]
    ...       for d in range(2)]
    >>> bs = [[np.zeros(4, np.float32)] * 8 for d in range(2)]
    >>> hy, cy, ys = F.n_step_bilstm(1, 0.0, hx, cx, ws, bs, xs)
    >>> [y.shape for y in ys]
    [(2, 8), (1, 8)]
    """
    check_kwargs('n_step_bilstm', kwargs)
    return n_step_impl('n_step_bilstm', _cells.lstm_cell(), n_layers,
                       dropout_ratio, hx, cx, ws, bs, xs,
                       use_bi_direction=True)
