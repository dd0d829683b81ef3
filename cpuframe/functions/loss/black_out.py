"""BlackOut loss (Ji et al., https://arxiv.org/abs/1511.06909)."""


def black_out(x, t, W, samples, reduce='mean'):
    """BlackOut loss: ``-log p(t) - sum_{s in samples} log(1 - p(s))``.

    ``p(y) = exp(W_y . x) / Z`` where ``Z`` sums ``exp(W_s . x)`` over the
    true label and the negative samples of the example.

    Args:
        x: inputs of shape ``(N, D)``.
        t: true labels of shape ``(N,)`` (ints in ``[0, V)``).
        W: weights of shape ``(V, D)``.
        samples: negative samples of shape ``(N, S)`` (ints in ``[0, V)``).
        reduce (str): ``'mean'`` (the mean loss) or ``'no'`` (one loss
            per example).

    Returns:
        ~cpuframe.Variable: the loss, a scalar or of shape ``(N,)``.

    .. seealso:: :class:`~cpuframe.links.BlackOut`.
    """
    from cpuframe.functions.array.concat import concat
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.connection.embed_id import embed_id
    from cpuframe.functions.math.average import average
    from cpuframe.functions.math.basic_math import matmul
    from cpuframe.functions.math.exponential import exp, log
    from cpuframe.functions.math.logsumexp import logsumexp
    from cpuframe.functions.math.sum import sum as sum_
    from cpuframe.variable import as_variable

    if reduce not in ('mean', 'no'):
        raise ValueError("black_out: reduce must be 'mean' or 'no', got "
                         '{!r}'.format(reduce))
    x = as_variable(x)
    n = x.shape[0]
    column = reshape(x, x.shape + (1,))                       # (N, D, 1)
    neg = matmul(embed_id(samples, W), column)                # (N, S, 1)
    neg = reshape(neg, neg.shape[:2])                         # (N, S)
    pos = matmul(reshape(embed_id(t, W), (n, 1, -1)), column)
    pos = reshape(pos, (n, 1))                                # (N, 1)
    log_z = logsumexp(concat([pos, neg], axis=1), axis=1)     # (N,)
    log_p_neg = neg - reshape(log_z, (n, 1))
    loss = -(reshape(pos, (n,)) - log_z +
             sum_(log(1 - exp(log_p_neg)), axis=1))
    if reduce == 'mean':
        loss = average(loss)
    return loss
