"""Fully connected LSTM layer with zoneout on its cell and output."""
from cpuframe import backend, link, variable
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh
from cpuframe.functions.noise.zoneout import zoneout
from cpuframe.links.connection.linear import Linear
from cpuframe.links.rnn._state import CellState
from cpuframe.links.rnn.peephole import _gates


class StatefulZoneoutLSTM(CellState, link.Chain):
    """Stateful LSTM layer regularized by zoneout.

    Children ``upward`` (``Linear(in_size, 4 * out_size)``) and
    ``lateral`` (``Linear(out_size, 4 * out_size, nobias=True)``), as in
    Chainer.  One step is::

        a, i, f, o = upward(x) + lateral(h)   (interleaved gates)
        c_new = tanh(a) * sigmoid(i) + sigmoid(f) * c
        c = zoneout(c, c_new, c_ratio)
        h = zoneout(h, sigmoid(o) * tanh(c_new), h_ratio)

    so in training mode each unit keeps its previous cell (output) with
    probability ``c_ratio`` (``h_ratio``); in test mode it is a plain LSTM
    step.  The state starts at zero (``reset_state()``).

    See: `Zoneout: Regularizing RNNs by Randomly Preserving Hidden
    Activations <https://arxiv.org/abs/1606.01305>`_

    Args:
        in_size (int or None): Input size (None: inferred).
        out_size (int): Number of units.
        c_ratio (float): Zoneout ratio of the cell state.
        h_ratio (float): Zoneout ratio of the output.

    >>> lstm = L.StatefulZoneoutLSTM(3, 2)
    >>> lstm(np.zeros((4, 3), np.float32)).shape
    (4, 2)
    """

    def __init__(self, in_size, out_size, c_ratio=0.5, h_ratio=0.5,
                 **kwargs):
        if 'train' in kwargs:
            raise ValueError('StatefulZoneoutLSTM: the train argument is not '
                             'supported anymore; use '
                             'cpuframe.using_config(\'train\', ...)')
        if kwargs:
            raise TypeError('StatefulZoneoutLSTM() got unexpected keyword '
                            'argument(s) {}'.format(', '.join(sorted(kwargs))))
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)

    def forward(self, x):
        """One time step: ``x`` ``(B, in_size)`` to ``h`` ``(B, out_size)``."""
        lstm_in = self.upward(x)
        xp = backend.get_array_module(x)
        zeros = xp.zeros((x.shape[0], self.state_size), dtype=lstm_in.dtype)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        else:
            self.h = variable.Variable(zeros)
        if self.c is None:
            self.c = variable.Variable(zeros.copy())
        a, i, f, o = _gates(lstm_in, self.state_size)
        c_new = tanh(a) * sigmoid(i) + sigmoid(f) * self.c
        self.c = zoneout(self.c, c_new, self.c_ratio)
        self.h = zoneout(self.h, sigmoid(o) * tanh(c_new), self.h_ratio)
        return self.h
