"""Gated recurrent unit layers: ``StatelessGRU``, ``StatefulGRU`` and ``GRU``.

The six children are Chainer's (``W_r``, ``U_r``, ``W_z``, ``U_z``, ``W``,
``U``, each a :class:`~cpuframe.links.Linear` with a bias), so parameter
paths and snapshot keys match Chainer's.
"""
from cpuframe import link
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh
from cpuframe.links.connection.linear import Linear
from cpuframe.links.rnn._state import HiddenState


def _interpolate(z, h_bar, h):
    # z * h_bar + (1 - z) * h, with one multiplication fewer
    return h + z * (h_bar - h)


class GRUBase(link.Chain):
    """The parameters of the GRU links.

    Args:
        in_size (int or None): input size (``None`` infers it from the
            first input).
        out_size (int): the number of units.
        init: initializer of ``W_r``, ``W_z`` and ``W`` (default
            LeCunNormal).
        inner_init: initializer of ``U_r``, ``U_z`` and ``U`` (default
            LeCunNormal).
        bias_init: initializer of all six biases (default 0).
    """

    def __init__(self, in_size, out_size, init=None, inner_init=None,
                 bias_init=None):
        super().__init__()
        self.state_size = out_size
        with self.init_scope():
            self.W_r = Linear(in_size, out_size, initialW=init,
                              initial_bias=bias_init)
            self.U_r = Linear(out_size, out_size, initialW=inner_init,
                              initial_bias=bias_init)
            self.W_z = Linear(in_size, out_size, initialW=init,
                              initial_bias=bias_init)
            self.U_z = Linear(out_size, out_size, initialW=inner_init,
                              initial_bias=bias_init)
            self.W = Linear(in_size, out_size, initialW=init,
                            initial_bias=bias_init)
            self.U = Linear(out_size, out_size, initialW=inner_init,
                            initial_bias=bias_init)

    def printable_specs(self):
        return (('in_size', self.W.in_size), ('out_size', self.state_size))


class StatelessGRU(GRUBase):
    """A GRU layer that takes its state as an argument.

    ``forward(h, x)`` returns the next state (:math:`\\sigma` the logistic
    sigmoid, :math:`\\odot` the elementwise product):

    .. math::
        r &= \\sigma(W_r x + U_r h), \\\\
        z &= \\sigma(W_z x + U_z h), \\\\
        \\bar h &= \\tanh(W x + U (r \\odot h)), \\\\
        h' &= (1 - z) \\odot h + z \\odot \\bar h.

    (Each linear map has its own bias.)  ``h`` and the result are
    ``(B, out_size)``, ``x`` is ``(B, in_size)``.  See :class:`GRUBase` for
    the constructor.

    >>> gru = L.StatelessGRU(3, 2)
    >>> gru(np.zeros((4, 2), np.float32), np.zeros((4, 3), np.float32)).shape
    (4, 2)
    """

    def forward(self, h, x):
        """The next state from the state ``h`` and the input ``x``."""
        r = sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh(self.W(x) + self.U(r * h))
        return _interpolate(z, h_bar, h)


class StatefulGRU(HiddenState, GRUBase):
    """A GRU layer that keeps its state ``h`` between calls.

    A call ``forward(x)`` computes the next state as
    :class:`StatelessGRU` does from ``self.h`` and stores it.  Before the
    first step (or after ``reset_state()``) there is no state, and, as in
    Chainer, the hidden-side terms are left out altogether (their biases
    too): ``h' = \\sigma(W_z x) \\odot \\tanh(W x)``.  ``set_state(h)``
    starts from a given state instead.

    Args:
        in_size, out_size, init, inner_init: see :class:`GRUBase`.
        bias_init: initializer of all six biases (default 0).

    Attributes:
        h: the current state (a Variable), or None.

    >>> gru = L.StatefulGRU(3, 2)
    >>> gru(np.zeros((4, 3), np.float32)).shape
    (4, 2)
    """

    def __init__(self, in_size, out_size, init=None, inner_init=None,
                 bias_init=0):
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.reset_state()

    def forward(self, x):
        """One time step: ``x`` ``(B, in_size)`` to ``h`` ``(B, out_size)``."""
        h = self.h
        if h is not None and h.shape[0] != x.shape[0]:
            raise ValueError(
                '{}: expected x with {} rows (the batch of the state h), got '
                'x.shape={}'.format(type(self).__name__, h.shape[0],
                                    tuple(x.shape)))
        z = self.W_z(x)
        h_bar = self.W(x)
        if h is None:
            self.h = sigmoid(z) * tanh(h_bar)
        else:
            r = sigmoid(self.W_r(x) + self.U_r(h))
            z = sigmoid(z + self.U_z(h))
            h_bar = tanh(h_bar + self.U(r * h))
            self.h = _interpolate(z, h_bar, h)
        return self.h


class GRU(StatefulGRU):
    """The stateful GRU layer (Chainer's ``L.GRU`` since v2).

    Same as :class:`StatefulGRU`; a call takes exactly one argument, the
    input ``x``.  For the stateless form ``gru(h, x)`` use
    :class:`StatelessGRU`.
    """

    def __call__(self, *args, **kwargs):
        if len(args) != 1 or kwargs:
            hint = ''
            if len(args) == 2:
                hint = (' (GRU is stateful since Chainer v2: use '
                        'StatelessGRU for gru(h, x), or set_state(h) and '
                        'then gru(x))')
            raise ValueError(
                'GRU: expected one argument x, got {} positional and {} '
                'keyword arguments{}'.format(len(args), len(kwargs), hint))
        return super().__call__(args[0])
