"""One time step of the RNN, GRU and LSTM cells of the ``n_step_*`` family.

A cell is described by a ``_Cell``: how many weight matrices a layer has,
which of them act on the layer input, how they stack into one input
projection and one hidden projection, and the step that turns the
precomputed input projection of one time step plus the previous state into
the next state.  Everything is written with Variable operations, so the
backward (and double backward) comes from autograd.

Conventions (Chainer's, matching cuDNN's weight layout):

- RNN, 2 matrices: ``h' = f(W0 x + b0 + W1 h + b1)``.
- GRU, 6 matrices::

      r  = sigmoid(W0 x + b0 + W3 h + b3)
      z  = sigmoid(W1 x + b1 + W4 h + b4)
      h~ = tanh(W2 x + b2 + r * (W5 h + b5))
      h' = (1 - z) * h~ + z * h

- LSTM, 8 matrices: ``W0/W4`` input gate ``i``, ``W1/W5`` forget gate
  ``f``, ``W2/W6`` cell input ``a``, ``W3/W7`` output gate ``o``::

      c' = sigmoid(f) * c + sigmoid(i) * tanh(a)
      h' = sigmoid(o) * tanh(c')

  (Chainer's docstring lists ``o`` before ``a``; its computation, on both
  the NumPy and the cuDNN path, uses ``W2`` for ``a`` and ``W3`` for ``o``,
  and weights trained there must give the same results here.)
"""
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh
from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.split_axis import split_axis
from cpuframe.functions.math.basic_math import matmul


def _relu(x):
    # max(x, 0) as x times a constant 0/1 mask: the gradient is the mask and
    # the second derivative is zero, as for Chainer's relu.
    return x * (x.array > 0).astype(x.dtype)


_ACTIVATIONS = {'tanh': tanh, 'relu': _relu}


def _stack_rows(ws):
    return ws[0] if len(ws) == 1 else concat(ws, axis=0)


def _hidden_projection(h, wh):
    return matmul(h, wh, transb=True)


class _Cell:
    """The shape of one recurrent cell type (see the module docstring)."""

    name = None
    kind = None  # the cell's name for the oneDNN route (_intel64.py)
    n_weights = None
    n_x = None  # weights (and biases) 0 .. n_x-1 act on the input
    has_cell = False

    def x_weight(self, w):
        """The input weights stacked into one ``(G * H, in)`` matrix."""
        return _stack_rows(w[:self.n_x])

    def x_bias(self, b):
        """The bias added to the input projection (hidden biases folded in)."""
        bx = _stack_rows(b[:self.n_x])
        bh = _stack_rows(b[self.n_x:])
        return bx + bh

    def h_params(self, w, b):
        """What ``step`` needs of the hidden-side parameters."""
        return _stack_rows(w[self.n_x:]),

    def step(self, xw, h, c, hp):
        """The next ``(h, c)`` from the input projection ``xw`` of one step."""
        raise NotImplementedError


class _RNNCell(_Cell):
    n_weights = 2
    n_x = 1

    def __init__(self, activation):
        self.activation = _ACTIVATIONS[activation]
        self.kind = 'rnn_' + activation

    def step(self, xw, h, c, hp):
        wh, = hp
        return self.activation(xw + _hidden_projection(h, wh)), None


class _GRUCell(_Cell):
    kind = 'gru'
    n_weights = 6
    n_x = 3

    def x_bias(self, b):
        # b3 and b4 add to the gates outright; b5 sits inside r * (...).
        return concat([b[0] + b[3], b[1] + b[4], b[2]], axis=0)

    def h_params(self, w, b):
        return _stack_rows(w[3:6]), b[5]

    def step(self, xw, h, c, hp):
        wh, b5 = hp
        n_units = h.shape[1]
        gh = _hidden_projection(h, wh)
        x_rz, x_n = split_axis(xw, [2 * n_units], axis=1)
        h_rz, h_n = split_axis(gh, [2 * n_units], axis=1)
        r, z = split_axis(sigmoid(x_rz + h_rz), 2, axis=1)
        h_bar = tanh(x_n + r * (h_n + b5))
        # (1 - z) * h_bar + z * h, with one multiplication fewer
        return h_bar + z * (h - h_bar), None


class _LSTMCell(_Cell):
    kind = 'lstm'
    n_weights = 8
    n_x = 4
    has_cell = True

    def step(self, xw, h, c, hp):
        wh, = hp
        gates = xw + _hidden_projection(h, wh)
        i, f, a, o = split_axis(gates, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * tanh(a)
        return sigmoid(o) * tanh(c), c


def rnn_cell(activation='tanh'):
    """The Elman cell with ``activation`` ``'tanh'`` or ``'relu'``."""
    return _RNNCell(activation)


def gru_cell():
    """The GRU cell of ``n_step_gru``."""
    return _GRUCell()


def lstm_cell():
    """The LSTM cell of ``n_step_lstm``."""
    return _LSTMCell()
