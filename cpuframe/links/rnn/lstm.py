"""Fully connected LSTM layers: the stateful ``LSTM`` and ``StatelessLSTM``.

Both hold Chainer's two children, ``upward`` (``Linear(in_size,
4 * out_size)``, the input projection with the bias) and ``lateral``
(``Linear(out_size, 4 * out_size, nobias=True)``, the recurrent
projection), so parameter paths and snapshot keys (``upward/W``,
``upward/b``, ``lateral/W``) are Chainer's.  The four gate pre-activations
are interleaved along the channel axis as :func:`~cpuframe.functions.lstm`
expects: channel ``4 * k + g`` is gate ``g`` (``a``, ``i``, ``f``, ``o``)
of unit ``k``.
"""
from cpuframe import backend, initializers, link, variable
from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.split_axis import split_axis
from cpuframe.functions.rnn.lstm import lstm, lstm_step
from cpuframe.links.connection.linear import Linear
from cpuframe.links.rnn._state import CellState


def _initializer(init, default):
    """``init`` as an initializer (scalars and arrays become constants)."""
    init = initializers._get_initializer(init)
    return default if init is None else init


class _RowBlocks(initializers.Initializer):
    """Applies ``init`` to each block of ``block`` consecutive rows.

    Chainer initializes the ``(4 * out_size, n)`` LSTM weights block by
    block (this matters for e.g. Orthogonal).
    """

    def __init__(self, init, block):
        super().__init__(getattr(init, 'dtype', None))
        self.init = init
        self.block = block

    def __call__(self, array):
        for start in range(0, array.shape[0], self.block):
            self.init(array[start:start + self.block])


class _GateBias(initializers.Initializer):
    """Fills the interleaved ``(a, i, f, o)`` bias, the forget gate apart."""

    def __init__(self, bias_init, forget_bias_init):
        super().__init__()
        self.bias_init = bias_init
        self.forget_bias_init = forget_bias_init

    def __call__(self, array):
        gates = array.reshape(-1, 4)  # a view: the array is contiguous
        for g in range(4):
            init = self.forget_bias_init if g == 2 else self.bias_init
            init(gates[:, g])


class LSTMBase(link.Chain):
    """The parameters shared by :class:`LSTM` and :class:`StatelessLSTM`.

    Args:
        in_size (int or None): input size; ``None`` (or the one-argument
            form ``LSTMBase(out_size)``) infers it from the first input.
        out_size (int): the number of units.
        lateral_init: initializer of ``lateral.W`` (default LeCunNormal).
        upward_init: initializer of ``upward.W`` (default LeCunNormal).
        bias_init: initializer of the ``a``, ``i`` and ``o`` biases
            (default 0).
        forget_bias_init: initializer of the forget gate bias (default 1).

    As in Chainer, the weight initializers are applied to each block of
    ``out_size`` consecutive rows of ``W`` separately (this matters for
    e.g. :class:`~cpuframe.initializers.Orthogonal`), and the bias
    initializers to the ``(out_size,)`` slice of ``upward.b`` belonging to
    each gate.  The parameters keep these initializers, so
    ``copy('init')`` draws them the same way.
    """

    def __init__(self, in_size, out_size=None, lateral_init=None,
                 upward_init=None, bias_init=None, forget_bias_init=None):
        if out_size is None:
            in_size, out_size = None, in_size
        super().__init__()
        self.state_size = out_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else \
            forget_bias_init
        lecun = initializers.LeCunNormal()
        upward_W = _RowBlocks(_initializer(upward_init, lecun), out_size)
        lateral_W = _RowBlocks(_initializer(lateral_init, lecun), out_size)
        upward_b = _GateBias(_initializer(self.bias_init, None),
                             _initializer(self.forget_bias_init, None))
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size, initialW=upward_W,
                                 initial_bias=upward_b)
            self.lateral = Linear(out_size, 4 * out_size, initialW=lateral_W,
                                  nobias=True)

    def _zero_state(self, x, batch):
        xp = backend.get_array_module(x)
        return variable.Variable(
            xp.zeros((batch, self.state_size), dtype=x.dtype))

    def printable_specs(self):
        return (('in_size', self.upward.in_size),
                ('out_size', self.state_size))


class StatelessLSTM(LSTMBase):
    """An LSTM layer that takes its state as arguments.

    ``forward(c, h, x)`` computes ``upward(x) + lateral(h)`` (``lateral`` is
    skipped when ``h`` is None) and returns the new ``(c, h)`` of
    :func:`~cpuframe.functions.lstm`; ``c=None`` means zeros.  See
    :class:`LSTMBase` for the constructor.

    >>> lstm = L.StatelessLSTM(3, 2)
    >>> c, h = lstm(None, None, np.zeros((4, 3), np.float32))
    >>> c.shape, h.shape
    ((4, 2), (4, 2))
    """

    def forward(self, c, h, x):
        """The next ``(c, h)`` from the state ``(c, h)`` and input ``x``."""
        gates = self.upward(x)
        if h is not None:
            gates = gates + self.lateral(h)
        if c is None:
            c = self._zero_state(x, x.shape[0])
        return lstm(c, gates)


class LSTM(CellState, LSTMBase):
    """A fully connected LSTM layer that keeps its state between calls.

    Each call consumes one time step ``x`` of shape ``(B, in_size)`` and
    returns ``h`` of shape ``(B, out_size)``:

    .. math::
        (c, h) = \\mathrm{lstm}(c, W_{up} x + b + W_{lat} h)

    with :func:`~cpuframe.functions.lstm`.  The state starts at zero
    (``reset_state()``) or at ``set_state(c, h)``.  The batch may shrink
    between calls (sequences sorted by length, longest first): then only
    the first ``B`` rows of the state advance and the others keep their
    values.

    ``LSTM(out_size)`` or ``LSTM(None, out_size)`` infers ``in_size`` from
    the first input.  See :class:`LSTMBase` for the initializers.

    Attributes:
        c: the cell state (a Variable, or None before the first step).
        h: the output of the last step, with the rows kept from before
            when the batch shrank (or None).

    >>> lstm = L.LSTM(3, 2)
    >>> y = lstm(np.zeros((4, 3), np.float32))
    >>> y = lstm(np.zeros((2, 3), np.float32))  # two sequences ended
    >>> y.shape, lstm.h.shape
    ((2, 2), (4, 2))
    """

    def __init__(self, in_size, out_size=None, lateral_init=None,
                 upward_init=None, bias_init=None, forget_bias_init=None):
        super().__init__(in_size, out_size, lateral_init, upward_init,
                         bias_init, forget_bias_init)
        self.reset_state()

    def set_state(self, c, h):
        """Start the next step from the cell state ``c`` and output ``h``.

        Both are ``(B, out_size)`` Variables (arrays are wrapped).
        """
        c, h = self._checked_state('LSTM.set_state', c, h)
        c.to_device(self.device)
        h.to_device(self.device)
        self.c, self.h = c, h

    def forward(self, x):
        """One time step: ``x`` ``(B, in_size)`` to ``h`` ``(B, out_size)``."""
        batch = x.shape[0]
        h_now = h_rest = None
        if self.h is not None:
            h_batch = self.h.shape[0]
            if batch > h_batch:
                raise TypeError(
                    'LSTM: expected a batch of at most {} (the batch of the '
                    'previous state h), got x.shape={}'.format(
                        h_batch, tuple(x.shape)))
            if batch == 0:
                h_rest = self.h
            elif batch < h_batch:
                h_now, h_rest = split_axis(self.h, [batch], axis=0)
            else:
                h_now = self.h
        if self.c is None:
            self.c = self._zero_state(x, batch)
        # upward(x) + lateral(h) and the cell in one fused step when the
        # intel64 route takes it, else link by link
        fused = lstm_step(self.c, x, self.upward, h_now, self.lateral) \
            if batch > 0 else None
        if fused is not None:
            self.c, y = fused
        else:
            gates = self.upward(x)
            if h_now is not None:
                gates = gates + self.lateral(h_now)
            self.c, y = lstm(self.c, gates)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = concat([y, h_rest], axis=0)
        return y
