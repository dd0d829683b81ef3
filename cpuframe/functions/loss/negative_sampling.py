"""Negative sampling loss (word2vec's skip-gram / CBOW objective)."""
import numpy

from cpuframe import backend
from cpuframe.functions.loss._common import check_reduce
from cpuframe.variable import as_array

_NAME = 'negative_sampling'
_IGNORE = -1


def _check_inputs(x, t, W, sample_size):
    if x.ndim != 2 or x.dtype.kind != 'f':
        raise TypeError('negative_sampling: x must be a 2-D float array '
                        '(batch, units), got shape {} dtype {}'.format(
                            x.shape, x.dtype))
    if t.ndim != 1 or t.dtype.kind not in 'iu' or len(t) != len(x):
        raise TypeError('negative_sampling: t must be a 1-D integer array '
                        'of length {} (the batch of x), got shape {} dtype '
                        '{}'.format(len(x), t.shape, t.dtype))
    if W.ndim != 2 or W.shape[1] != x.shape[1] or W.dtype != x.dtype:
        raise TypeError('negative_sampling: W must be (vocab, {}) of dtype '
                        '{}, got shape {} dtype {}'.format(
                            x.shape[1], x.dtype, W.shape, W.dtype))
    if int(sample_size) != sample_size or sample_size < 0:
        raise ValueError('negative_sampling: sample_size must be a '
                         'non-negative int, got {!r}'.format(sample_size))


def negative_sampling(x, t, W, sampler, sample_size, reduce='sum', *,
                      return_samples=False):
    """Negative sampling loss.

    For each example ``i`` with label ``p = t[i]`` and ``k = sample_size``
    negatives ``n_1 .. n_k`` drawn by ``sampler``,

    .. math::
        \\ell_i = -\\log \\sigma(x_i^\\top w_p)
                  - \\sum_{j=1}^{k} \\log \\sigma(-x_i^\\top w_{n_j}).

    ``sampler`` is called once as ``sampler((batch, sample_size + 1))`` and
    must return integer ids; column 0 is then overwritten by ``t`` (the
    positive), the other columns are the negatives.  Examples with
    ``t == -1`` are ignored (their loss and gradients are 0).

    Args:
        x: float input vectors ``(batch, units)``.
        t: integer labels ``(batch,)`` in ``[0, vocab)`` or -1.
        W: weight matrix ``(vocab, units)`` of ``x``'s dtype.
        sampler: callable ``shape -> int array`` (e.g.
            ``cpuframe.utils.WalkerAlias(p).sample``).
        sample_size (int): number of negatives per example.
        reduce (str): ``'sum'`` (a scalar) or ``'no'`` (``(batch,)``).
        return_samples (bool): also return the ``(batch, sample_size + 1)``
            id array actually used.

    Returns:
        The loss Variable, or ``(loss, samples)`` with ``return_samples``.
        Differentiable by ``x`` and ``W``, twice.

    >>> x = np.array([[1., 0.], [0., 2.]], np.float32)
    >>> W = np.array([[1., 1.], [0., -1.], [2., 0.]], np.float32)
    >>> sampler = lambda shape: np.full(shape, 1, np.int32)
    >>> loss = F.negative_sampling(x, np.array([0, 2], np.int32), W, sampler,
    ...                            1, reduce='no')
    >>> loss.array.round(5)  # the last digit depends on the CPU's log1p/exp
    array([1.00641, 0.82008], dtype=float32)
    """
    from cpuframe.functions.activation.softplus import softplus
    from cpuframe.functions.array.broadcast import broadcast_to
    from cpuframe.functions.array.expand_dims import expand_dims
    from cpuframe.functions.connection.embed_id import embed_id
    from cpuframe.functions.math.sum import sum as sum_

    check_reduce(_NAME, reduce, ('sum', 'no'))
    xa, ta, Wa = as_array(x), as_array(t), as_array(W)
    _check_inputs(xa, ta, Wa, sample_size)
    xp = backend.get_array_module(xa)
    batch = len(ta)
    samples = xp.array(sampler((batch, int(sample_size) + 1)), copy=True)
    if samples.shape != (batch, sample_size + 1) or \
            samples.dtype.kind not in 'iu':
        raise ValueError('negative_sampling: sampler must return an integer '
                         'array of shape {}, got shape {} dtype {}'.format(
                             (batch, sample_size + 1), samples.shape,
                             samples.dtype))
    samples = samples.astype(numpy.int32, copy=False)
    samples[:, 0] = ta
    keep = ta != _IGNORE
    ids = samples.copy()
    ids[~keep, 0] = 0
    # rows of W for every (example, sample) pair: (batch, k + 1, units)
    w = embed_id(ids, W)
    wx = sum_(w * broadcast_to(expand_dims(x, 1), w.shape), axis=2)
    # -log sigmoid(z) = softplus(-z) for the positive, softplus(z) else
    sign = xp.ones((1, sample_size + 1), xa.dtype)
    sign[0, 0] = -1
    loss = sum_(softplus(wx * sign), axis=1) * keep.astype(xa.dtype)
    if reduce == 'sum':
        loss = sum_(loss)
    if return_samples:
        return loss, samples
    return loss
