"""Stacked Elman RNNs over variable-length sequences (uni- and bidirectional)."""
from cpuframe.functions.rnn import _cells
from cpuframe.functions.rnn._n_step import check_kwargs, n_step_impl

_ACTIVATIONS = ('tanh', 'relu')


def _rnn_cell(name, activation):
    if activation not in _ACTIVATIONS:
        raise ValueError('{}: expected activation in {}, got {!r}'.format(
            name, list(_ACTIVATIONS), activation))
    return _cells.rnn_cell(activation)


def n_step_rnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh',
               **kwargs):
    """Stacked unidirectional RNN over sequences, ``(hy, ys)``.

    For each layer, with ``f`` the activation (``'tanh'`` or ``'relu'``):

    .. math::
       h_t = f(W_0 x_t + b_0 + W_1 h_{t-1} + b_1)

    The input of layer ``k > 0`` is the hidden state ``h_t`` of layer
    ``k - 1``; during training (``config.train``) it goes through dropout
    with ``dropout_ratio`` first (the input of the first layer does not).

    On the intel64 backend (``config.use_ideep`` ``'always'``/``'auto'``,
    or arrays on the Intel64 device) the whole stack runs on oneDNN's RNN
    primitives, with the same results up to float32 rounding (and the same
    dropout masks for the same ``numpy.random`` state); gradients of second
    order are then not available.

    Args:
        n_layers (int): the number of layers ``S``.
        dropout_ratio (float): dropout ratio in ``[0, 1)``.
        hx: initial hidden states, ``(S, B, N)``.
        ws (list of lists): ``ws[k] = [W_0, W_1]`` for layer ``k``; ``W_0``
            is ``(N, I)`` for the first layer and ``(N, N)`` elsewhere,
            ``W_1`` is ``(N, N)``.
        bs (list of lists): ``bs[k] = [b_0, b_1]``, each ``(N,)``.
        xs (list): time-major inputs: ``xs[t]`` is ``(B_t, I)``, the inputs
            at time ``t`` of the ``B_t`` sequences still running, with
            ``B_0 >= B_1 >= ...`` (sort the sequences by length, longest
            first, and transpose them with
            :func:`~cpuframe.functions.transpose_sequence`).  A sequence
            that has ended keeps its last state, which goes to ``hy``.
        activation (str): ``'tanh'`` or ``'relu'``.

    Returns:
        tuple: ``hy`` of shape ``(S, B, N)`` and ``ys``, a tuple whose
        ``ys[t]`` is the last layer's ``h_t``, ``(B_t, N)``.

    >>> xs = [np.ones((b, 3), np.float32) for b in (3, 2, 1)]
    >>> hx = np.zeros((1, 3, 2), np.float32)
    >>> ws = [[np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]]
    >>> bs = [[np.zeros(2, np.float32), np.zeros(2, np.float32)]]
    >>> hy, ys = F.n_step_rnn(1, 0.0, hx, ws, bs, xs)
    >>> hy.shape, [y.shape for y in ys]
    ((1, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    check_kwargs('n_step_rnn', kwargs)
    cell = _rnn_cell('n_step_rnn', activation)
    hy, _, ys = n_step_impl('n_step_rnn', cell, n_layers, dropout_ratio, hx,
                            None, ws, bs, xs, use_bi_direction=False)
    return hy, ys


def n_step_birnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh',
                 **kwargs):
    """Stacked bidirectional RNN over sequences, ``(hy, ys)``.

    Each layer runs a forward RNN over ``t = 0 .. T-1`` and a backward one
    over ``t = T-1 .. 0`` (as in :func:`n_step_rnn`), and its output is
    :math:`h_t = [h^f_t; h^b_t]`, the input of the next layer.

    Args:
        n_layers (int): the number of layers ``S``.
        dropout_ratio (float): dropout ratio in ``[0, 1)``, applied to the
            input of every layer but the first while ``config.train``.
        hx: initial hidden states, ``(2S, B, N)``: ``hx[2k]`` forward and
            ``hx[2k + 1]`` backward of layer ``k``.
        ws (list of lists): ``ws[2k + d] = [W_0, W_1]`` for layer ``k`` and
            direction ``d`` (0 forward, 1 backward); ``W_0`` is ``(N, I)``
            for the first layer and ``(N, 2N)`` elsewhere.
        bs (list of lists): ``bs[2k + d] = [b_0, b_1]``, each ``(N,)``.
        xs (list): time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with
            ``B_0 >= B_1 >= ...`` (see :func:`n_step_rnn`).
        activation (str): ``'tanh'`` or ``'relu'``.

    Returns:
        tuple: ``hy`` of shape ``(2S, B, N)`` and ``ys`` with ``ys[t]`` of
        shape ``(B_t, 2N)``.

    >>> xs = [np.ones((b, 3), np.float32) for b in (2, 1)]
    >>> hx = np.zeros((2, 2, 4), np.float32)
    >>> ws = [[np.ones((4, 3), np.float32), np.ones((4, 4), np.float32)]
    ...       for _ in range(2)]
    >>> bs = [[np.zeros(4, np.float32)] * 2 for _ in range(2)]
    >>> hy, ys = F.n_step_birnn(1, 0.0, hx, ws, bs, xs)
    >>> [y.shape for y in ys]
    [(2, 8), (1, 8)]
    """
    check_kwargs('n_step_birnn', kwargs)
    cell = _rnn_cell('n_step_birnn', activation)
    hy, _, ys = n_step_impl('n_step_birnn', cell, n_layers, dropout_ratio,
                            hx, None, ws, bs, xs, use_bi_direction=True)
    return hy, ys
