"""Fully connected LSTM layer with peephole connections."""
from cpuframe import backend, link, variable
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.array.split_axis import split_axis
from cpuframe.links.connection.linear import Linear
from cpuframe.links.rnn._state import CellState


def _gates(lstm_in, size):
    """The interleaved ``(a, i, f, o)`` pre-activations, each ``(B, size)``.

    Channel ``4 * k + g`` is gate ``g`` of unit ``k``, as in
    :func:`~cpuframe.functions.lstm`.
    """
    batch = lstm_in.shape[0]
    parts = split_axis(reshape(lstm_in, (batch, size, 4)), 4, axis=2)
    return [reshape(p, (batch, size)) for p in parts]


class StatefulPeepholeLSTM(CellState, link.Chain):
    """Fully connected LSTM layer with peephole connections.

    Children ``upward`` (``Linear(in_size, 4 * out_size)``), ``lateral``
    (``Linear(out_size, 4 * out_size, nobias=True)``) and the peepholes
    ``peep_i``, ``peep_f``, ``peep_o`` (``Linear(out_size, out_size,
    nobias=True)``), with Chainer's names.  One step is::

        a, i, f, o = upward(x) + lateral(h)   (interleaved gates)
        i = sigmoid(i + peep_i(c));  f = sigmoid(f + peep_f(c))
        c = tanh(a) * i + f * c
        o = sigmoid(o + peep_o(c))            (the new c)
        h = o * tanh(c)

    The state starts at zero (``reset_state()``).

    Args:
        in_size (int or None): Input size (None: inferred).
        out_size (int): Number of units.

    Attributes:
        c: the cell state (a Variable, or None).
        h: the last output (a Variable, or None).

    >>> lstm = L.StatefulPeepholeLSTM(3, 2)
    >>> lstm(np.zeros((4, 3), np.float32)).shape
    (4, 2)
    """

    def __init__(self, in_size, out_size):
        super().__init__()
        self.state_size = out_size
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = Linear(out_size, out_size, nobias=True)
            self.peep_f = Linear(out_size, out_size, nobias=True)
            self.peep_o = Linear(out_size, out_size, nobias=True)

    def forward(self, x):
        """One time step: ``x`` ``(B, in_size)`` to ``h`` ``(B, out_size)``."""
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            xp = backend.get_array_module(x)
            self.c = variable.Variable(
                xp.zeros((x.shape[0], self.state_size), dtype=lstm_in.dtype))
        a, i, f, o = _gates(lstm_in, self.state_size)
        i = sigmoid(i + self.peep_i(self.c))
        f = sigmoid(f + self.peep_f(self.c))
        self.c = tanh(a) * i + f * self.c
        o = sigmoid(o + self.peep_o(self.c))
        self.h = o * tanh(self.c)
        return self.h
