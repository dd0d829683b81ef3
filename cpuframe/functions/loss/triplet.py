"""Triplet loss for (anchor, positive, negative) embeddings."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_positive_margin, check_reduce
from cpuframe.utils import type_check

_NAME = 'triplet'


class Triplet(FunctionNode):
    """``max(||a - p||^2 - ||a - n||^2 + margin, 0)`` per triplet."""

    def __init__(self, margin, reduce='mean'):
        self.margin = margin
        self.reduce = reduce

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('anchor', 'positive', 'negative'))
        a_type, p_type, n_type = in_types
        type_check.expect(
            a_type.dtype.kind == 'f',
            p_type.dtype == a_type.dtype,
            n_type.dtype == a_type.dtype,
            a_type.ndim == 2,
            a_type.shape == p_type.shape,
            a_type.shape == n_type.shape,
            a_type.shape[0] > 0)

    def forward(self, inputs):
        anchor, positive, negative = inputs
        self.retain_inputs((0, 1, 2))
        xp = backend.get_array_module(anchor)
        dp = anchor - positive
        dn = anchor - negative
        dist = (dp * dp - dn * dn).sum(axis=1) + self.margin
        self._active = (dist > 0).astype(anchor.dtype)
        loss = dist * self._active
        if self.reduce == 'mean':
            loss = xp.asarray(loss.sum() / len(anchor), dtype=anchor.dtype)
        return utils.force_array(loss, anchor.dtype),

    def backward(self, indexes, grad_outputs):
        anchor, positive, negative = self.get_retained_inputs()
        gy, = grad_outputs
        n = len(anchor)
        if self.reduce == 'mean':
            g = gy * (2.0 / n) * self._active
        else:
            g = gy * self._active * 2.0
        g = g.reshape((n, 1))
        ret = []
        for i in indexes:
            if i == 0:
                ret.append((negative - positive) * g)
            elif i == 1:
                ret.append((positive - anchor) * g)
            else:
                ret.append((anchor - negative) * g)
        return tuple(ret)


def triplet(anchor, positive, negative, margin=0.2, reduce='mean'):
    """Triplet loss of ``(anchor, positive, negative)`` embeddings.

    ``L_i = max(||a_i - p_i||^2 - ||a_i - n_i||^2 + margin, 0)``: the
    anchor is pulled towards the positive and pushed away from the
    negative until the squared distances differ by ``margin``.

    Args:
        anchor, positive, negative: float arrays of shape ``(N, K)`` and
            one dtype.
        margin (float): a positive margin.
        reduce (str): ``'mean'`` (a scalar) or ``'no'`` (shape ``(N,)``).

    Returns:
        Variable of the inputs' dtype.

    >>> a = np.array([[-2., 3., 0.5], [5., 2., -0.5]], np.float32)
    >>> p = np.array([[-2.1, 2.8, 0.5], [4.9, 2., -0.4]], np.float32)
    >>> n = np.array([[-2.1, 2.7, 0.7], [4.9, 2., -0.7]], np.float32)
    >>> F.triplet(a, p, n).array
    array(0.14000003, dtype=float32)
    """
    check_positive_margin(_NAME, margin)
    check_reduce(_NAME, reduce, ('mean', 'no'))
    return Triplet(margin, reduce).apply((anchor, positive, negative))[0]
