"""Stacked Elman RNN links over lists of sequences, and their common base.

The ``NStep*`` links own the weights of :func:`~cpuframe.functions.n_step_rnn`
and friends as Chainer lays them out: a ChainList with one child link per
layer and direction (``2k + d`` for direction ``d`` of layer ``k``), each
holding ``w0 .. w{n-1}`` and ``b0 .. b{n-1}``, so parameter paths and
snapshot keys (``0/w0``, ``0/b0``, ...) are Chainer's.

Unlike the functions, the links take batch-major input: a list of
``(len_i, in_size)`` sequences in any order.  They sort the sequences by
length, transpose them into time steps, run the function, and give the
outputs back per sequence, in the caller's order.
"""
import numpy

from cpuframe import backend, initializers, link, variable
from cpuframe.functions.array.get_item import get_item
from cpuframe.functions.rnn._n_step import check_kwargs
from cpuframe.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from cpuframe.functions.rnn.transpose_sequence import transpose_sequence


def _initializer(init, default):
    init = initializers._get_initializer(init)
    return default if init is None else init


def argsort_list_descent(lst):
    """Indices that sort the sequences ``lst`` by length, longest first.

    The sort is stable: sequences of equal length keep their order.
    """
    return numpy.argsort([-len(x) for x in lst], kind='stable').astype(
        numpy.intp)


def permutate_list(lst, indices, inv):
    """``[lst[i] for i in indices]``, or its inverse when ``inv``."""
    if not inv:
        return [lst[i] for i in indices]
    ret = [None] * len(lst)
    for value, i in zip(lst, indices):
        ret[i] = value
    return ret


class NStepRNNBase(link.ChainList):
    """The parameters and the calling convention of the ``NStep*`` links.

    Subclasses set ``n_weights`` (matrices per layer and direction),
    ``use_bi_direction`` and ``rnn``, the call of the function.

    Args:
        n_layers (int): the number of layers.
        in_size (int): the size of the input vectors.
        out_size (int): the number of units (of each direction).
        dropout (float): the dropout ratio of the inputs of every layer
            but the first (while ``config.train``).
        initialW: initializer of every ``w``, default LeCunNormal (normal
            with standard deviation ``sqrt(1 / fan_in)``, as Chainer).
        initial_bias: initializer of every ``b``, default 0.

    The first half of each child's matrices act on the layer input
    (``(out_size, in_size)`` in the first layer, ``(out_size, out_size *
    n_directions)`` above it), the second half on the hidden state
    (``(out_size, out_size)``); the biases are ``(out_size,)``.
    """

    n_weights = None
    use_bi_direction = False

    def __init__(self, n_layers, in_size, out_size, dropout, initialW=None,
                 initial_bias=None, **kwargs):
        name = type(self).__name__
        for key in ('use_cudnn', 'use_bi_direction', 'activation'):
            if key in kwargs:
                raise ValueError('{}: the {} argument is not supported '
                                 'anymore'.format(name, key))
        if kwargs:
            raise TypeError('{}() got unexpected keyword argument(s) '
                            '{}'.format(name, ', '.join(sorted(kwargs))))
        for what, value in (('n_layers', n_layers), ('in_size', in_size),
                            ('out_size', out_size)):
            if not isinstance(value, (int, numpy.integer)) or \
                    isinstance(value, bool) or value < 1:
                raise ValueError('{}: expected a positive int {}, got '
                                 '{!r}'.format(name, what, value))
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError('{}: expected dropout in [0, 1), got '
                             '{}'.format(name, dropout))
        direction = 2 if self.use_bi_direction else 1
        w_init = _initializer(initialW, initializers.LeCunNormal())
        b_init = _initializer(0 if initial_bias is None else initial_bias,
                              None)
        half = self.n_weights // 2
        weights = []
        for layer in range(n_layers):
            for _ in range(direction):
                weight = link.Link()
                layer_in = in_size if layer == 0 else out_size * direction
                with weight.init_scope():
                    for j in range(self.n_weights):
                        w_in = layer_in if j < half else out_size
                        setattr(weight, 'w{}'.format(j), variable.Parameter(
                            w_init, (out_size, w_in)))
                        setattr(weight, 'b{}'.format(j), variable.Parameter(
                            b_init, (out_size,)))
                weights.append(weight)
        super().__init__(*weights)
        self.n_layers = n_layers
        self.in_size = in_size
        self.dropout = dropout
        self.out_size = out_size
        self.direction = direction

    @property
    def ws(self):
        """``ws[i][j]``: matrix ``w{j}`` of child ``i`` (layer, direction)."""
        return [[getattr(child, 'w{}'.format(j))
                 for j in range(self.n_weights)] for child in self]

    @property
    def bs(self):
        """``bs[i][j]``: bias ``b{j}`` of child ``i`` (layer, direction)."""
        return [[getattr(child, 'b{}'.format(j))
                 for j in range(self.n_weights)] for child in self]

    @property
    def n_cells(self):
        """The number of state arrays: 2 for LSTMs (h, c), else 1."""
        return 1

    def printable_specs(self):
        return (('n_layers', self.n_layers), ('in_size', self.in_size),
                ('out_size', self.out_size), ('dropout', self.dropout))

    def rnn(self, *args):
        """Call the ``n_step_*`` function of this link."""
        raise NotImplementedError

    def init_hx(self, xs):
        """Zero initial states for the sequences ``xs``."""
        xp = backend.get_array_module(xs[0])
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        return variable.Variable(xp.zeros(shape, dtype=xs[0].dtype),
                                 requires_grad=False)

    def forward(self, hx, xs, **kwargs):
        """Run the stack over the sequences ``xs``; returns ``(hy, ys)``.

        Args:
            hx: initial states ``(S * D, B, N)`` (``S`` layers, ``D``
                directions, ``B = len(xs)``, ``N = out_size``; index
                ``D * k + d`` is direction ``d`` of layer ``k``), or None
                for zeros.  Row ``i`` belongs to ``xs[i]``.
            xs (list): ``B`` sequences, Variables or arrays of shape
                ``(len_i, in_size)``, in any order.

        Returns:
            tuple: ``hy``, the final states, shaped like ``hx``, and ``ys``,
            a list whose ``ys[i]`` holds the last layer's outputs for
            ``xs[i]``, ``(len_i, N * D)``.
        """
        (hy,), ys = self._call([hx], xs, **kwargs)
        return hy, ys

    def _check_xs(self, xs):
        name = type(self).__name__
        if not isinstance(xs, (list, tuple)):
            raise TypeError('{}: expected xs as a list of (length, in_size) '
                            'sequences, got {}'.format(name,
                                                       type(xs).__name__))
        if not xs:
            raise ValueError('{}: expected xs as a non-empty list of '
                             'sequences, got an empty list'.format(name))
        for i, x in enumerate(xs):
            if not (isinstance(x, variable.Variable) or backend.is_array(x)):
                raise TypeError('{}: expected xs[{}] as a Variable or an '
                                'array, got {}'.format(name, i,
                                                       type(x).__name__))
            if x.ndim != 2 or x.shape[1] != self.in_size:
                raise ValueError(
                    '{}: expected xs[{}] of shape (length, {}) (in_size={}), '
                    'got {}'.format(name, i, self.in_size, self.in_size,
                                    tuple(x.shape)))
        if all(x.shape[0] == 0 for x in xs):
            raise ValueError('{}: expected at least one non-empty sequence, '
                             'got lengths {}'.format(
                                 name, [x.shape[0] for x in xs]))

    def _check_state(self, what, state, batch):
        expected = (self.n_layers * self.direction, batch, self.out_size)
        if not (isinstance(state, variable.Variable) or
                backend.is_array(state)):
            raise TypeError('{}: expected {} as a Variable, an array or None, '
                            'got {}'.format(type(self).__name__, what,
                                            type(state).__name__))
        if tuple(state.shape) != expected:
            raise ValueError(
                '{}: expected {} of shape (n_layers * n_directions, '
                'len(xs), out_size) = {}, got {}'.format(
                    type(self).__name__, what, expected, tuple(state.shape)))

    def _call(self, hs, xs, **kwargs):
        """Sort, transpose, run ``rnn``, and undo both for the outputs."""
        check_kwargs(type(self).__name__, kwargs)
        self._check_xs(xs)
        batch = len(xs)
        indices = argsort_list_descent(xs)
        identity = bool((indices == numpy.arange(batch)).all())
        xs_sorted = permutate_list(xs, indices, inv=False)
        hxs = []
        for i, hx in enumerate(hs):
            if hx is None:
                hx = self.init_hx(xs)
            else:
                self._check_state('hx' if i == 0 else 'cx', hx, batch)
                if not identity:
                    hx = get_item(hx, (slice(None), indices))
            hxs.append(hx)

        xs_time = transpose_sequence(xs_sorted)
        result = self.rnn(self.n_layers, self.dropout, *hxs, self.ws,
                          self.bs, list(xs_time))
        hys = list(result[:-1])
        if not identity:
            inverse = numpy.argsort(indices)
            hys = [get_item(h, (slice(None), inverse)) for h in hys]
        ys_sorted = list(transpose_sequence(result[-1]))
        if len(ys_sorted) < batch:
            # sequences of length 0 come last after sorting
            y0 = ys_sorted[0]
            xp = backend.get_array_module(y0)
            empty = xp.zeros((0,) + tuple(y0.shape[1:]), dtype=y0.dtype)
            ys_sorted += [variable.Variable(empty, requires_grad=False)
                          for _ in range(batch - len(ys_sorted))]
        ys = permutate_list(ys_sorted, indices, inv=True)
        return hys, ys


class NStepRNNTanh(NStepRNNBase):
    """Stacked unidirectional Elman RNN with tanh, over sequences.

    ``NStepRNNTanh(n_layers, in_size, out_size, dropout, initialW=None,
    initial_bias=None)``; ``forward(hx, xs)`` returns ``(hy, ys)``.  Each
    child holds ``w0`` (input side), ``w1`` (hidden side), ``b0``, ``b1``
    of :func:`~cpuframe.functions.n_step_rnn`.  See :class:`NStepRNNBase`.

    >>> rnn = L.NStepRNNTanh(2, 3, 4, 0.0)
    >>> xs = [np.ones((n, 3), np.float32) for n in (2, 5, 1)]
    >>> hy, ys = rnn(None, xs)
    >>> hy.shape, [y.shape for y in ys]
    ((2, 3, 4), [(2, 4), (5, 4), (1, 4)])
    """

    n_weights = 2
    use_bi_direction = False

    def rnn(self, *args):
        return n_step_rnn(*args, activation='tanh')


class NStepRNNReLU(NStepRNNBase):
    """Stacked unidirectional Elman RNN with ReLU, over sequences.

    As :class:`NStepRNNTanh` with the activation ``relu``.
    """

    n_weights = 2
    use_bi_direction = False

    def rnn(self, *args):
        return n_step_rnn(*args, activation='relu')


class NStepBiRNNTanh(NStepRNNBase):
    """Stacked bidirectional Elman RNN with tanh, over sequences.

    Children ``2k`` and ``2k + 1`` are the forward and backward direction
    of layer ``k`` (:func:`~cpuframe.functions.n_step_birnn`); ``hx`` is
    ``(2 * n_layers, B, out_size)`` and ``ys[i]`` is ``(len_i, 2 *
    out_size)``.  See :class:`NStepRNNBase`.
    """

    n_weights = 2
    use_bi_direction = True

    def rnn(self, *args):
        return n_step_birnn(*args, activation='tanh')


class NStepBiRNNReLU(NStepRNNBase):
    """Stacked bidirectional Elman RNN with ReLU, over sequences.

    As :class:`NStepBiRNNTanh` with the activation ``relu``.
    """

    n_weights = 2
    use_bi_direction = True

    def rnn(self, *args):
        return n_step_birnn(*args, activation='relu')
