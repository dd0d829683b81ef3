"""Linear-chain CRF loss layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.loss.crf1d import argmax_crf1d, crf1d
from cpuframe.functions.rnn.transpose_sequence import transpose_sequence
from cpuframe.links.rnn.n_step_rnn import argsort_list_descent, permutate_list


def _time_major(seqs, indices):
    """Sort the batch-major ``seqs`` by ``indices`` and transpose them."""
    return list(transpose_sequence(permutate_list(seqs, indices, inv=False)))


class CRF1d(link.Link):
    """Holds the transition costs of :func:`~cpuframe.functions.crf1d`.

    Args:
        n_label (int): the number of labels.
        initial_cost: initializer (or scalar or array) of the transition
            cost matrix; zeros by default.

    Attributes:
        cost (~cpuframe.Parameter): ``(n_label, n_label)``, ``cost[s, t]``
            the score of a transition from label ``s`` to label ``t``.

    >>> crf = L.CRF1d(3)
    >>> crf.cost.shape
    (3, 3)
    >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
    >>> ys = [np.array([0, 1], np.int32), np.array([2], np.int32)]
    >>> loss = crf(xs, ys, reduce='no')   # log 9 and log 3
    >>> np.round(loss.array, 4)
    array([2.1972, 1.0986], dtype=float32)
    """

    def __init__(self, n_label, initial_cost=None):
        super().__init__()
        if initial_cost is None:
            initial_cost = initializers.Zero()
        with self.init_scope():
            self.cost = variable.Parameter(initial_cost, (n_label, n_label))

    def printable_specs(self):
        return (('n_label', self.cost.shape[0]),)

    def forward(self, xs, ys, reduce='mean', transpose=False):
        """The loss of :func:`~cpuframe.functions.crf1d` with ``self.cost``.

        Args:
            xs (list): time-major ``(B_i, n_label)`` scores as for
                :func:`~cpuframe.functions.crf1d`, or, with ``transpose``,
                batch-major: one ``(length, n_label)`` array per sequence,
                in any order.
            ys (list): the labels, laid out as ``xs``.
            reduce (str): ``'mean'`` or ``'no'``.
            transpose (bool): whether ``xs`` and ``ys`` are batch-major;
                they are then sorted longest first and transposed here, and
                with ``reduce='no'`` the losses come back in the caller's
                order of the sequences.
        """
        if not transpose:
            return crf1d(self.cost, xs, ys, reduce)
        _check_batch_major('CRF1d.forward', xs, ys)
        indices = argsort_list_descent(xs)
        loss = crf1d(self.cost, _time_major(xs, indices),
                     _time_major(ys, indices), reduce)
        if reduce == 'no':
            loss = loss[_inverse(indices)]
        return loss

    def argmax(self, xs, transpose=False):
        """The best label paths, :func:`~cpuframe.functions.argmax_crf1d`.

        Args:
            xs (list): time-major scores, or with ``transpose`` one
                ``(length, n_label)`` array per sequence in any order.
            transpose (bool): whether ``xs`` is batch-major; the scores and
                the paths (one int32 array per sequence) then come back in
                the caller's order.

        Returns:
            tuple: ``(score, path)`` as :func:`~cpuframe.functions.
            argmax_crf1d` returns them.
        """
        if not transpose:
            return argmax_crf1d(self.cost, xs)
        _check_batch_major('CRF1d.argmax', xs)
        indices = argsort_list_descent(xs)
        score, path = argmax_crf1d(self.cost, _time_major(xs, indices))
        path = [p.array for p in transpose_sequence(path)]
        inv = _inverse(indices)
        return score[inv], permutate_list(path, indices, inv=True)


def _inverse(indices):
    inv = indices.copy()
    inv[indices] = range(len(indices))
    return inv


def _check_batch_major(fname, xs, ys=None):
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise ValueError('{}: expected xs as a non-empty list of sequences, '
                         'got {!r}'.format(fname, xs))
    for i, x in enumerate(xs):
        if len(x.shape) != 2 or x.shape[0] == 0:
            raise ValueError('{}: expected xs[{}] of shape (length > 0, '
                             'n_label), got {}'.format(fname, i, x.shape))
    if ys is None:
        return
    if not isinstance(ys, (list, tuple)) or len(ys) != len(xs):
        raise ValueError('{}: expected one label sequence per sequence of xs '
                         '({}), got {!r}'.format(fname, len(xs), ys))
    for i, (x, y) in enumerate(zip(xs, ys)):
        if y.shape != x.shape[:1]:
            raise ValueError('{}: expected ys[{}] of shape {} (the length of '
                             'xs[{}]), got {}'.format(fname, i, x.shape[:1],
                                                      i, y.shape))
