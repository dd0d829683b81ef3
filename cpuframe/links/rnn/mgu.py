"""Minimal gated unit layers: ``StatelessMGU`` and ``StatefulMGU``.

The MGU (Zhou et al., 2016, "Minimal Gated Unit for Recurrent Neural
Networks") is a GRU with one gate.  The two children are Chainer's
(``W_f`` and ``W_h``, each a :class:`~cpuframe.links.Linear` with a bias
taking the concatenation ``[h, x]``), so parameter paths and snapshot keys
match Chainer's.
"""
import cpuframe
from cpuframe import link, variable
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh
from cpuframe.functions.array.concat import concat
from cpuframe.links.connection.linear import Linear
from cpuframe.links.rnn._state import HiddenState


class MGUBase(link.Chain):
    """The parameters of the MGU links.

    Args:
        n_inputs (int): the input size.
        n_units (int): the number of units (the size of the state).

    Attributes:
        W_f: ``Linear(n_units + n_inputs, n_units)``, the forget gate.
        W_h: ``Linear(n_units + n_inputs, n_units)``, the candidate state.

    In both weights the first ``n_units`` columns act on the state and the
    rest on the input.
    """

    def __init__(self, n_inputs, n_units):
        super().__init__()
        with self.init_scope():
            self.W_f = Linear(n_inputs + n_units, n_units)
            self.W_h = Linear(n_inputs + n_units, n_units)
        self.state_size = n_units

    def _check(self, h, x):
        name = type(self).__name__
        if h.ndim != 2 or h.shape[1] != self.state_size:
            raise ValueError('{}: expected h of shape (batch, {}), got '
                             '{}'.format(name, self.state_size,
                                         tuple(h.shape)))
        if x.ndim != 2 or x.shape[0] != h.shape[0]:
            raise ValueError('{}: expected x of shape ({}, n_inputs), got '
                             '{}'.format(name, h.shape[0], tuple(x.shape)))

    def _call_mgu(self, h, x):
        self._check(h, x)
        f = sigmoid(self.W_f(concat((h, x), axis=1)))
        h_bar = tanh(self.W_h(concat((f * h, x), axis=1)))
        # f * h_bar + (1 - f) * h, with one multiplication fewer
        return h + f * (h_bar - h)

    def printable_specs(self):
        return (('n_units', self.state_size),)


class StatelessMGU(MGUBase):
    """An MGU layer that takes its state as an argument.

    ``forward(h, x)`` returns the next state (:math:`\\sigma` the logistic
    sigmoid, :math:`[\\cdot, \\cdot]` concatenation along axis 1):

    .. math::
        f &= \\sigma(W_f [h, x] + b_f), \\\\
        \\bar h &= \\tanh(W_h [f \\odot h, x] + b_h), \\\\
        h' &= f \\odot \\bar h + (1 - f) \\odot h.

    ``h`` and the result are ``(B, n_units)``, ``x`` is ``(B, n_inputs)``.
    See :class:`MGUBase` for the constructor.

    >>> mgu = L.StatelessMGU(3, 2)
    >>> mgu(np.zeros((4, 2), np.float32), np.zeros((4, 3), np.float32)).shape
    (4, 2)
    """

    def forward(self, h, x):
        """The next state from the state ``h`` and the input ``x``."""
        return self._call_mgu(h, x)


class StatefulMGU(HiddenState, MGUBase):
    """An MGU layer that keeps its state ``h`` between calls.

    ``forward(x)`` computes the next state as :class:`StatelessMGU` does
    from ``self.h`` and stores it; before the first step (or after
    ``reset_state()``) the state is zeros of
    ``cpuframe.get_dtype()`` (``config.dtype``), as in Chainer.

    Args:
        in_size (int): the input size.
        out_size (int): the number of units.

    Attributes:
        h: the current state (a Variable), or None.

    >>> mgu = L.StatefulMGU(3, 2)
    >>> mgu(np.zeros((4, 3), np.float32)).shape
    (4, 2)
    """

    def __init__(self, in_size, out_size):
        super().__init__(in_size, out_size)
        self.reset_state()

    def forward(self, x):
        """One time step: ``x`` ``(B, in_size)`` to ``h`` ``(B, out_size)``."""
        h = self.h
        if h is None:
            h = variable.Variable(self.xp.zeros(
                (x.shape[0], self.state_size),
                dtype=cpuframe.get_dtype()))
        self.h = self._call_mgu(h, x)
        return self.h
