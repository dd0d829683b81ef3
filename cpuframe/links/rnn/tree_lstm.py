"""Tree-structured LSTM units: ``ChildSumTreeLSTM`` and ``NaryTreeLSTM``.

Both are stateless: a call merges the ``(c, h)`` states of a node's
children and the node's input ``x`` into the node's ``(c, h)``.  The
children are Chainer's, so parameter paths and snapshot keys match.
"""
from cpuframe import link
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.functions.activation.tanh import tanh
from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.split_axis import split_axis
from cpuframe.functions.rnn.tree_lstm import tree_lstm
from cpuframe.links.connection.linear import Linear


def _split_call(name, args, n_children):
    """``args`` = ``(c_1..c_n, h_1..h_n, x)`` as ``(cs, hs, x)``."""
    if n_children is None:
        if len(args) % 2 != 1:
            raise ValueError(
                '{}: expected the arguments c_1, ..., c_n, h_1, ..., h_n, x '
                '(an odd number), got {}'.format(name, len(args)))
        n_children = len(args) // 2
    elif len(args) != 2 * n_children + 1:
        raise ValueError(
            '{}: expected {} arguments (n_ary={} cell states, {} outputs and '
            'x), got {}'.format(name, 2 * n_children + 1, n_children,
                                n_children, len(args)))
    return (args[:n_children], args[n_children:2 * n_children], args[-1])


class _TreeLSTMBase(link.Chain):

    def _input(self, cs, hs, x):
        """``x``, or zeros ``(B, in_size)`` when it is None."""
        if x is not None:
            return x
        known = [v for v in tuple(cs) + tuple(hs) if v is not None]
        if not known:
            raise ValueError('{}: all inputs (cs, hs, x) are None'.format(
                type(self).__name__))
        if self.in_size is None:
            raise ValueError('{}: x is None and in_size is unknown'.format(
                type(self).__name__))
        return self.xp.zeros((known[0].shape[0], self.in_size),
                             dtype=known[0].dtype)

    def _zeros_for_none(self, vs, x):
        if all(v is not None for v in vs):
            return tuple(vs)
        zero = self.xp.zeros((x.shape[0], self.state_size), dtype=x.dtype)
        return tuple(zero if v is None else v for v in vs)


class ChildSumTreeLSTM(_TreeLSTMBase):
    """Child-Sum tree LSTM unit (Tai et al., 2015), any number of children.

    A call ``forward(c_1, ..., c_n, h_1, ..., h_n, x)`` returns the node's
    ``(c, h)``.  With :math:`\\tilde h = \\sum_k h_k` and the input ``x``
    (``W_x`` gives four blocks of ``out_size``: ``a, i, o`` and ``f``):

    .. math::
        (a, i, o) &= W_x^{aio} x + b^{aio} + W_{h,aio} \\tilde h, \\\\
        f_k &= W_x^f x + b^f + W_{h,f} h_k, \\\\
        c &= \\tanh(a) \\sigma(i) + \\sum_k \\sigma(f_k) c_k, \\quad
        h = \\tanh(c) \\sigma(o).

    The result does not depend on the order of the children.  A child's
    ``c_k`` or ``h_k`` may be None (zeros), ``x`` may be None (zeros of
    ``(B, in_size)``), and with no children (``forward(x)``) the unit is a
    leaf: ``c = \\sigma(i) \\tanh(a)``, ``h = \\sigma(o) \\tanh(c)``.

    Args:
        in_size (int): the size of ``x``.
        out_size (int): the size of ``c`` and ``h``.

    Attributes:
        W_x: ``Linear(in_size, 4 * out_size)``.
        W_h_aio: ``Linear(out_size, 3 * out_size, nobias=True)``.
        W_h_f: ``Linear(out_size, out_size, nobias=True)``.

    >>> unit = L.ChildSumTreeLSTM(3, 2)
    >>> z = np.zeros((4, 2), np.float32)
    >>> c, h = unit(z, z, z, z, np.ones((4, 3), np.float32))
    >>> c.shape, h.shape
    ((4, 2), (4, 2))
    """

    def __init__(self, in_size, out_size):
        super().__init__()
        with self.init_scope():
            self.W_x = Linear(in_size, 4 * out_size)
            self.W_h_aio = Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = Linear(out_size, out_size, nobias=True)
        self.in_size = in_size
        self.state_size = out_size

    def forward(self, *cshsx):
        """The node's ``(c, h)`` from its children's states and ``x``."""
        cs, hs, x = _split_call('ChildSumTreeLSTM', cshsx, None)
        x = self._input(cs, hs, x)
        n = self.state_size
        x_aio, x_f = split_axis(self.W_x(x), [3 * n], axis=1)
        if not hs:
            a, i, o = split_axis(x_aio, 3, axis=1)
            c = sigmoid(i) * tanh(a)
            return c, sigmoid(o) * tanh(c)
        hs = self._zeros_for_none(hs, x)
        cs = self._zeros_for_none(cs, x)
        h_sum = hs[0]
        for h in hs[1:]:
            h_sum = h_sum + h
        aio = x_aio + self.W_h_aio(h_sum)
        # one matrix product for all children, then one block per child
        fh = split_axis(self.W_h_f(concat(hs, axis=0)), len(hs), axis=0)
        fs = [f + x_f for f in fh]
        return tree_lstm(*(tuple(cs) + (concat([aio] + fs, axis=1),)))


class NaryTreeLSTM(_TreeLSTMBase):
    """N-ary tree LSTM unit (Tai et al., 2015; Bowman et al.'s variant).

    A call ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` (exactly
    ``n_ary`` children, in order) returns the node's ``(c, h)``:

    .. math::
        z = W_x x + b + \\sum_k W_{h_k} h_k,

    cut into the blocks ``a, i, o, f_1, ..., f_N`` of ``out_size`` each and
    passed to :func:`~cpuframe.functions.tree_lstm`.  Unlike
    :class:`ChildSumTreeLSTM` the order of the children matters.  A
    child's ``c_k`` or ``h_k`` may be None (zeros); ``x`` may be None
    (zeros).

    Args:
        in_size (int): the size of ``x``.
        out_size (int): the size of ``c`` and ``h``.
        n_ary (int): the number of children (at least 1; default 2).

    Attributes:
        W_x: ``Linear(in_size, (3 + n_ary) * out_size)``.
        W_h1, ..., W_hN: ``Linear(out_size, (3 + n_ary) * out_size,
            nobias=True)``, one per child.

    >>> unit = L.NaryTreeLSTM(3, 2, n_ary=2)
    >>> z = np.zeros((4, 2), np.float32)
    >>> c, h = unit(z, z, z, z, np.ones((4, 3), np.float32))
    >>> c.shape
    (4, 2)
    """

    def __init__(self, in_size, out_size, n_ary=2):
        if not isinstance(n_ary, int) or isinstance(n_ary, bool) or \
                n_ary < 1:
            raise ValueError('NaryTreeLSTM: expected n_ary as an int >= 1, '
                             'got {!r}'.format(n_ary))
        super().__init__()
        width = (3 + n_ary) * out_size
        with self.init_scope():
            self.W_x = Linear(in_size, width)
            for k in range(1, n_ary + 1):
                setattr(self, 'W_h{}'.format(k),
                        Linear(out_size, width, nobias=True))
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary

    def forward(self, *cshsx):
        """The node's ``(c, h)`` from its children's states and ``x``."""
        cs, hs, x = _split_call('NaryTreeLSTM', cshsx, self.n_ary)
        x = self._input(cs, hs, x)
        z = self.W_x(x)
        for k, h in enumerate(hs, start=1):
            if h is not None:
                z = z + getattr(self, 'W_h{}'.format(k))(h)
        cs = self._zeros_for_none(cs, x)
        return tree_lstm(*(tuple(cs) + (z,)))
