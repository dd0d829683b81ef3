"""Connectionist Temporal Classification (Graves et al., 2006), Chainer's
``F.connectionist_temporal_classification``.

The loss of a sample is ``-log p(t | x)``: the probability, summed over
every alignment of the T input frames that collapses (merge repeats, drop
blanks) to the label sequence ``t``, of the per-frame softmax of ``x``.  It
is computed with the forward-backward recursions over the label sequence
with blanks between and around the labels (length ``2 L + 1``), in log
space, vectorized over the batch.
"""
import collections.abc

import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _to_host(array):
    """``array`` as a NumPy array (CuPy copied over, intel64 read out)."""
    if isinstance(array, numpy.ndarray):
        return array
    from cpuframe.backends import cuda
    if cuda.is_cupy_array(array):
        return cuda.to_cpu(array)
    return numpy.asarray(array)


def _like(array, host):
    """``host`` back on ``array``'s device where that is a GPU."""
    from cpuframe.backends import cuda
    if cuda.is_cupy_array(array):
        return cuda.to_gpu(host, device=array.device)
    return host


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    shifted = x - m
    return shifted - numpy.log(numpy.exp(shifted).sum(axis=-1, keepdims=True))


def _logsumexp2(a, b):
    return numpy.logaddexp(a, b)


class ConnectionistTemporalClassification(FunctionNode):
    """The CTC loss of stacked frames ``x`` (T, B, V); differentiable by
    ``x`` only (as Chainer's)."""

    def __init__(self, blank_symbol, reduce, t, input_length, label_length):
        self.blank_symbol = blank_symbol
        self.reduce = reduce
        self.t = t
        self.input_length = input_length
        self.label_length = label_length

    def forward(self, inputs):
        x, = inputs
        xs = _to_host(x)
        dtype = xs.dtype
        log_y = _log_softmax(xs.astype(numpy.float64))
        alpha, beta, lye, labels, log_p = self._recursions(log_y)
        loss = -log_p
        self._saved = (log_y, alpha, beta, lye, labels, log_p)
        if self.reduce == 'mean':
            out = numpy.asarray(loss.mean(), dtype)
        else:
            out = loss.astype(dtype)
        return _like(x, out),

    def _recursions(self, log_y):
        T, B, _ = log_y.shape
        blank = self.blank_symbol
        L = self.label_length
        S = 2 * int(L.max()) + 1 if B else 1
        # The extended labels: blank, l1, blank, l2, ..., blank.
        labels = numpy.full((B, S), blank, numpy.int64)
        for b in range(B):
            labels[b, 1:2 * L[b]:2] = self.t[b, :L[b]]
        s_index = numpy.arange(S)
        valid_s = s_index[None, :] < (2 * L + 1)[:, None]          # (B, S)
        # A label may follow the one two places back when it differs from
        # it and is not a blank.
        skip = numpy.zeros((B, S), bool)
        skip[:, 2:] = (labels[:, 2:] != blank) & (labels[:, 2:] !=
                                                  labels[:, :-2])
        lye = numpy.take_along_axis(log_y, numpy.broadcast_to(
            labels[None], (T, B, S)), axis=2)                      # (T, B, S)
        lye = numpy.where(valid_s[None], lye, -numpy.inf)
        ninf = numpy.full((B, S), -numpy.inf)

        alpha = numpy.full((T, B, S), -numpy.inf)
        first = ninf.copy()
        # Start at the first blank or the first label (lye is -inf past a
        # sample's extended length, so a sample without labels starts at 0).
        first[:, 0] = lye[0, :, 0]
        if S > 1:
            first[:, 1] = lye[0, :, 1]
        alpha[0] = first
        for t in range(1, T):
            prev = alpha[t - 1]
            acc = prev.copy()
            acc[:, 1:] = _logsumexp2(acc[:, 1:], prev[:, :-1])
            acc[:, 2:] = numpy.where(skip[:, 2:],
                                     _logsumexp2(acc[:, 2:], prev[:, :-2]),
                                     acc[:, 2:])
            alpha[t] = acc + lye[t]

        Tb = self.input_length
        beta = numpy.full((T, B, S), -numpy.inf)
        last_s = 2 * L            # the final blank
        end_init = ninf.copy()
        rows = numpy.arange(B)
        for t in range(T - 1, -1, -1):
            init = ninf.copy()
            init[rows, last_s] = lye[t, rows, last_s]
            has_label = L > 0
            init[rows[has_label], last_s[has_label] - 1] = \
                lye[t, rows[has_label], last_s[has_label] - 1]
            if t + 1 < T:
                nxt = beta[t + 1]
                rec = nxt.copy()
                rec[:, :-1] = _logsumexp2(rec[:, :-1], nxt[:, 1:])
                rec[:, :-2] = numpy.where(skip[:, 2:],
                                          _logsumexp2(rec[:, :-2], nxt[:, 2:]),
                                          rec[:, :-2])
                rec = rec + lye[t]
            else:
                rec = end_init
            beta[t] = numpy.where((t == Tb - 1)[:, None], init,
                                  numpy.where((t < Tb - 1)[:, None], rec,
                                              -numpy.inf))
        final = alpha[Tb - 1, rows]                                  # (B, S)
        log_p = final[rows, last_s]
        log_p = numpy.where(L > 0, _logsumexp2(
            log_p, final[rows, numpy.maximum(last_s - 1, 0)]), log_p)
        return alpha, beta, lye, labels, log_p

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        log_y, alpha, beta, lye, labels, log_p = self._saved
        T, B, V = log_y.shape
        # Posterior of each extended-label position at each frame.
        # (Positions past a sample's extended labels have lye = -inf.)
        reachable = lye > -numpy.inf
        with numpy.errstate(invalid='ignore', over='ignore'):
            gamma = numpy.where(reachable, alpha + beta - lye,
                                -numpy.inf) - log_p[None, :, None]
        frames = numpy.arange(T)[:, None] < self.input_length[None, :]
        post_s = numpy.where(frames[:, :, None], numpy.exp(gamma), 0.0)
        post = numpy.zeros((T, B, V))
        t_idx, b_idx, s_idx = numpy.indices(post_s.shape)
        numpy.add.at(post, (t_idx, b_idx, labels[b_idx, s_idx]), post_s)
        gx = numpy.where(frames[:, :, None], numpy.exp(log_y) - post, 0.0)
        # A sample too short for its labels has p = 0 (an infinite loss)
        # and no direction to improve: its gradient is zero, not NaN.
        gx[:, ~numpy.isfinite(log_p)] = 0.0
        g = numpy.asarray(_to_host(gy.array), numpy.float64)
        if self.reduce == 'mean':
            gx = gx * (g / B)
        else:
            gx = gx * g[None, :, None]
        out = gx.astype(self.inputs[0].dtype)
        from cpuframe.variable import Variable
        return Variable(_like(gy.array, out), requires_grad=False),


def _as_host_int(name, value, shape):
    array = _to_host(value.array if hasattr(value, 'array') else value)
    if array.dtype.kind not in 'iu':
        raise TypeError('connectionist_temporal_classification: expected {} '
                        'as an integer array, got dtype {}'.format(
                            name, array.dtype))
    if array.shape != shape:
        raise ValueError('connectionist_temporal_classification: expected {} '
                         'of shape {}, got {}'.format(name, shape,
                                                      array.shape))
    return array.astype(numpy.int64)


def connectionist_temporal_classification(
        x, t, blank_symbol, input_length=None, label_length=None,
        reduce='mean'):
    """Connectionist Temporal Classification loss (Chainer's signature).

    Args:
        x: a list (or tuple) of T Variables or arrays of shape ``(B, V)``:
            the unnormalized label scores of each frame (softmax is applied
            here).
        t: the label sequences, an int array ``(B, M)``, every label below
            ``V`` and none equal to ``blank_symbol``.
        blank_symbol (int): the index of the blank, ``0 <= blank < V``.
        input_length: ``(B,)`` frames per sample (default: all T).
        label_length: ``(B,)`` labels per sample (default: all M).
        reduce: ``'mean'`` (the mean over the batch, a scalar) or ``'no'``
            (the loss of each sample, shape ``(B,)``).

    Returns:
        The loss ``-log p(t | x)``.  Differentiable by ``x`` only.
    """
    from cpuframe import functions as F
    if not isinstance(x, collections.abc.Sequence) or isinstance(x, str):
        raise TypeError('connectionist_temporal_classification: x must be a '
                        'list of Variables, got {}'.format(type(x).__name__))
    if len(x) == 0:
        raise ValueError('connectionist_temporal_classification: x must hold '
                         'at least one frame')
    if isinstance(blank_symbol, bool) or not isinstance(
            blank_symbol, (int, numpy.integer)):
        raise TypeError('connectionist_temporal_classification: '
                        'blank_symbol must be a non-negative integer, got '
                        '{!r}'.format(blank_symbol))
    if reduce not in ('mean', 'no'):
        raise ValueError("connectionist_temporal_classification: only 'mean' "
                         "and 'no' are valid for reduce, but {!r} is given"
                         .format(reduce))
    shape = x[0].shape
    if len(shape) != 2 or any(xi.shape != shape for xi in x):
        raise ValueError('connectionist_temporal_classification: every frame '
                         'of x must have the same shape (B, V); got {}'
                         .format([tuple(xi.shape) for xi in x]))
    kinds = sorted({xi.dtype.kind for xi in x})
    if kinds != ['f']:
        # Chainer's type check: scores are floating point.
        actual = '{} != f'.format(''.join(k for k in kinds if k != 'f'))
        raise type_check.InvalidType(
            'x.dtype.kind == f', actual,
            msg='Invalid operation is performed in: '
                'ConnectionistTemporalClassification (Forward)\n\n'
                'Expect: x.dtype.kind == f\nActual: ' + actual)
    B, V = shape
    T = len(x)
    if not 0 <= blank_symbol < V:
        raise ValueError('connectionist_temporal_classification: '
                         'blank_symbol must lie in [0, {}), got {}'.format(
                             V, blank_symbol))
    t_array = _to_host(t.array if hasattr(t, 'array') else t)
    if t_array.ndim != 2 or t_array.shape[0] != B or \
            t_array.dtype.kind not in 'iu':
        raise ValueError('connectionist_temporal_classification: expected t '
                         'as an integer array of shape ({}, M), got {} {}'
                         .format(B, t_array.dtype, t_array.shape))
    M = t_array.shape[1]
    in_len = (numpy.full(B, T, numpy.int64) if input_length is None else
              _as_host_int('input_length', input_length, (B,)))
    lab_len = (numpy.full(B, M, numpy.int64) if label_length is None else
               _as_host_int('label_length', label_length, (B,)))
    if ((in_len < 1) | (in_len > T)).any():
        raise ValueError('connectionist_temporal_classification: every '
                         'input_length must lie in [1, {}], got {}'.format(
                             T, in_len.tolist()))
    if ((lab_len < 0) | (lab_len > M)).any():
        raise ValueError('connectionist_temporal_classification: every '
                         'label_length must lie in [0, {}], got {}'.format(
                             M, lab_len.tolist()))
    for b in range(B):
        used = t_array[b, :lab_len[b]]
        if ((used < 0) | (used >= V) | (used == blank_symbol)).any():
            raise ValueError('connectionist_temporal_classification: labels '
                             'must lie in [0, {}) and differ from the blank '
                             '{}; sample {} has {}'.format(
                                 V, blank_symbol, b, used.tolist()))
    stacked = F.stack(list(x))
    node = ConnectionistTemporalClassification(
        int(blank_symbol), reduce, t_array.astype(numpy.int64), in_len,
        lab_len)
    return node.apply((stacked,))[0]
