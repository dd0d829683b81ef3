"""Linear-chain conditional random field: its loss and its Viterbi decoding.

Both functions are compositions of differentiable functions (logsumexp,
max, select_item, embed_id, get_item, concat), so gradients with respect to
the transition costs and the scores, and their higher-order gradients,
come from those functions' own backward passes.
"""
import numpy

from cpuframe import backend
from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.expand_dims import expand_dims
from cpuframe.functions.array.get_item import get_item
from cpuframe.functions.array.select_item import select_item
from cpuframe.functions.connection.embed_id import embed_id
from cpuframe.functions.math.logsumexp import logsumexp
from cpuframe.functions.math.minmax import max as _max
from cpuframe.functions.math.sum import sum as _sum
from cpuframe.variable import Variable


def _array(v):
    return v.array if isinstance(v, Variable) else v


def _check_inputs(fname, cost, xs, ys=None):
    """Raise unless ``cost``, ``xs`` (and ``ys``) form a valid CRF batch."""
    if not hasattr(cost, 'shape') or not hasattr(cost, 'dtype'):
        raise TypeError('{}: expected cost as a Variable or an array, got '
                        '{}'.format(fname, type(cost).__name__))
    if len(cost.shape) != 2 or cost.shape[0] != cost.shape[1]:
        raise ValueError('{}: expected cost of shape (n_label, n_label), got '
                         '{}'.format(fname, cost.shape))
    if cost.dtype.kind != 'f':
        raise TypeError('{}: expected a float cost, got dtype {}'.format(
            fname, cost.dtype))
    if not isinstance(xs, (list, tuple)):
        raise TypeError('{}: expected xs as a list of (batch, n_label) '
                        'arrays, got {}'.format(fname, type(xs).__name__))
    if len(xs) == 0:
        raise ValueError('{}: expected at least one time step in xs, got an '
                         'empty list'.format(fname))
    n_label = cost.shape[0]
    prev = None
    for i, x in enumerate(xs):
        if len(x.shape) != 2 or x.shape[1] != n_label:
            raise ValueError(
                '{}: expected xs[{}] of shape (batch, n_label={}), got '
                '{}'.format(fname, i, n_label, x.shape))
        if x.dtype != cost.dtype:
            raise TypeError('{}: expected xs[{}] of the dtype of cost ({}), '
                            'got {}'.format(fname, i, cost.dtype, x.dtype))
        if x.shape[0] == 0 or (prev is not None and x.shape[0] > prev):
            raise ValueError(
                '{}: expected batch sizes that never grow along xs (sequences '
                'sorted longest first and transposed), got xs[{}] of batch {} '
                'after {}'.format(fname, i, x.shape[0], prev))
        prev = x.shape[0]
    if ys is None:
        return
    if not isinstance(ys, (list, tuple)):
        raise TypeError('{}: expected ys as a list of label arrays, got '
                        '{}'.format(fname, type(ys).__name__))
    if len(ys) != len(xs):
        raise ValueError('{}: expected as many label arrays as time steps, '
                         'got len(xs)={} and len(ys)={}'.format(
                             fname, len(xs), len(ys)))
    for i, (x, y) in enumerate(zip(xs, ys)):
        if y.shape != x.shape[:1]:
            raise ValueError('{}: expected ys[{}] of shape {} (the batch of '
                             'xs[{}]), got {}'.format(
                                 fname, i, x.shape[:1], i, y.shape))
        if y.dtype.kind != 'i':
            raise TypeError('{}: expected ys[{}] of a signed integer dtype, '
                            'got {}'.format(fname, i, y.dtype))
        a = _array(y)
        if backend.get_array_module(a) is numpy and a.size and (
                a.min() < 0 or a.max() >= n_label):
            raise ValueError(
                '{}: expected labels in [0, n_label={}), got ys[{}] in '
                '[{}, {}]'.format(fname, n_label, i, a.min(), a.max()))


def _split(v, b):
    """``v[:b], v[b:]`` (the second is None when ``v`` has ``b`` rows)."""
    if v.shape[0] == b:
        return v, None
    return get_item(v, slice(None, b)), get_item(v, slice(b, None))


def _join(head, tails):
    """The rows of ``head`` followed by those of the finished ``tails``.

    ``tails`` were split off in time order, so the latest (the longest of the
    finished sequences) comes first.
    """
    tails = [t for t in reversed(tails) if t is not None]
    return concat([head] + tails, axis=0) if tails else head


def crf1d(cost, xs, ys, reduce='mean'):
    """Negative log-likelihood of a linear-chain CRF.

    With ``c[s, t]`` the cost (score) of a transition from label ``s`` to
    label ``t``, ``x[i, t]`` the score of label ``t`` at position ``i`` and
    ``y_i`` the gold label at position ``i``, the loss of one sequence of
    length ``l`` is

    ``L = log Z - (sum_{i=1..l} x[i, y_i] + sum_{i=1..l-1} c[y_i, y_{i+1}])``

    where ``Z`` sums ``exp`` of that path score over every label path
    (computed by the forward algorithm in log space).

    Sequences of different lengths go in time-major: sort them longest first
    and transpose them (e.g. with :func:`~cpuframe.functions.
    transpose_sequence`), so ``xs[i]`` holds position ``i`` of the
    ``xs[i].shape[0]`` sequences that are that long.

    Args:
        cost: a float Variable or array ``(K, K)`` of transition costs.
        xs (list): ``len(xs)`` float Variables or arrays ``(B_i, K)`` of the
            dtype of ``cost``, with ``B_0 >= B_1 >= ...``.
        ys (list): ``len(xs)`` signed integer arrays (or Variables) ``(B_i,)``
            of labels in ``[0, K)``.
        reduce (str): ``'mean'`` (the sum of the losses divided by ``B_0``,
            a scalar) or ``'no'`` (the loss of every sequence, ``(B_0,)``).

    Returns:
        A Variable: the loss.

    >>> cost = np.zeros((2, 2), np.float32)
    >>> xs = [np.zeros((1, 2), np.float32)] * 3   # 2 ** 3 equal paths
    >>> ys = [np.zeros(1, np.int32)] * 3
    >>> F.crf1d(cost, xs, ys).array   # log 8
    array(2.0794415, dtype=float32)
    """
    if reduce not in ('mean', 'no'):
        raise ValueError("crf1d: expected reduce 'mean' or 'no', got "
                         '{!r}'.format(reduce))
    _check_inputs('crf1d', cost, xs, ys)
    ys = [_array(y) for y in ys]

    alpha = xs[0]
    score = select_item(xs[0], ys[0])
    alpha_rest, score_rest = [], []
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1]):
        b = x.shape[0]
        alpha, a_rest = _split(alpha, b)
        score, s_rest = _split(score, b)
        alpha_rest.append(a_rest)
        score_rest.append(s_rest)
        # alpha'[n, t] = logsumexp_s(alpha[n, s] + c[s, t]) + x[n, t]
        alpha = logsumexp(expand_dims(alpha, 2) + cost, axis=1) + x
        trans = select_item(embed_id(y_prev[:b], cost), y)
        score = score + select_item(x, y) + trans
    log_z = logsumexp(_join(alpha, alpha_rest), axis=1)
    loss = log_z - _join(score, score_rest)
    if reduce == 'mean':
        return _sum(loss) / loss.shape[0]
    return loss


def argmax_crf1d(cost, xs):
    """The most likely label path of a linear-chain CRF (Viterbi).

    Args:
        cost: a float Variable or array ``(K, K)`` of transition costs.
        xs (list): float Variables or arrays ``(B_i, K)``, time-major with
            never-growing batch sizes, as for :func:`crf1d`.

    Returns:
        tuple: ``(score, path)``.  ``score`` is a Variable ``(B_0,)``: the
        score of the best path of every sequence (differentiable with respect
        to ``cost`` and ``xs``).  ``path`` is a list of ``len(xs)`` int32
        arrays, ``path[i]`` of shape ``(B_i,)``: the best label at position
        ``i`` of each sequence.

    >>> cost = np.array([[0., -5.], [-5., 0.]], np.float32)  # stay put
    >>> xs = [np.array([[0., 1.]], np.float32),
    ...       np.array([[2., 0.]], np.float32)]
    >>> score, path = F.argmax_crf1d(cost, xs)
    >>> score.array, [p.tolist() for p in path]
    (array([2.], dtype=float32), [[0], [0]])
    """
    _check_inputs('argmax_crf1d', cost, xs)
    xp = backend.get_array_module(_array(xs[0]))
    alpha = xs[0]
    alpha_rest, back = [], []
    for x in xs[1:]:
        b = x.shape[0]
        alpha, a_rest = _split(alpha, b)
        alpha_rest.append(a_rest)
        scores = expand_dims(alpha, 2) + cost
        back.append(scores.array.argmax(axis=1))
        alpha = _max(scores, axis=1) + x
    alpha = _join(alpha, alpha_rest)
    score = _max(alpha, axis=1)
    # best[n]: label of sequence n at the position being decoded; sequences
    # that end later than that position keep their final argmax until then.
    best = _array(alpha).argmax(axis=1).astype(numpy.int32)
    path = [best[:xs[-1].shape[0]].copy()]
    for x, bp in zip(reversed(xs[:-1]), reversed(back)):
        b = bp.shape[0]
        best[:b] = bp[xp.arange(b), best[:b]]
        path.append(best[:x.shape[0]].copy())
    path.reverse()
    return score, path
