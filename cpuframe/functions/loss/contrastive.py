"""Contrastive loss for pairs of embeddings."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_positive_margin, check_reduce
from cpuframe.utils import type_check

_NAME = 'contrastive'


class Contrastive(FunctionNode):
    """``(y d^2 + (1 - y) max(margin - d, 0)^2) / 2`` per pair."""

    def __init__(self, margin, reduce='mean'):
        self.margin = margin
        self.reduce = reduce

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x0', 'x1', 'y'))
        x0_type, x1_type, y_type = in_types
        type_check.expect(
            x0_type.dtype.kind == 'f',
            x1_type.dtype == x0_type.dtype,
            y_type.dtype.kind == 'i',
            x0_type.ndim == 2,
            y_type.ndim == 1,
            x0_type.shape == x1_type.shape,
            x1_type.shape[0] == y_type.shape[0],
            x1_type.shape[0] > 0)

    def forward(self, inputs):
        x0, x1, y = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        dist_sq = (diff * diff).sum(axis=1)
        slack = xp.maximum(self.margin - xp.sqrt(dist_sq), 0)
        self._y = y.astype(x0.dtype)
        loss = (self._y * dist_sq + (1 - self._y) * slack * slack) * 0.5
        if self.reduce == 'mean':
            loss = xp.asarray(loss.sum() / len(x0), dtype=x0.dtype)
        return utils.force_array(loss, x0.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.maximum import maximum
        from cpuframe.functions.math.sqrt import sqrt
        from cpuframe.functions.math.sum import sum as sum_
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        xp = x0.xp
        n = len(x0)
        diff = x0 - x1
        dist = sqrt(sum_(diff * diff, axis=1))
        slack = self.margin - dist
        active = (slack.array > 0).astype(x0.dtype)
        # d = 0 makes diff = 0 too; the floor only avoids 0 / 0.
        dist = maximum(dist, xp.full(dist.shape, 1e-8, dtype=x0.dtype))
        # dL/dx0 = g * (y - (1 - y) max(margin - d, 0) / d) * diff
        coef = slack * ((self._y - 1) * active) / dist + self._y
        coef = coef * (gy * (1.0 / n) if self.reduce == 'mean' else gy)
        gx0 = diff * coef.reshape((n, 1))
        return tuple(gx0 if i == 0 else -gx0 if i == 1 else None
                     for i in indexes)


def contrastive(x0, x1, y, margin=1, reduce='mean'):
    """Contrastive loss of pairs ``(x0[n], x1[n])`` labelled ``y[n]``.

    ``L_n = (y_n d_n^2 + (1 - y_n) max(margin - d_n, 0)^2) / 2`` with
    ``d_n = ||x0[n] - x1[n]||_2``: similar pairs (``y = 1``) are pulled
    together, dissimilar ones (``y = 0``) pushed at least ``margin`` apart.

    Args:
        x0, x1: float arrays of shape ``(N, K)`` and the same dtype.
        y: signed integer labels of shape ``(N,)``, each 0 or 1.
        margin (float): a positive margin.
        reduce (str): ``'mean'`` (a scalar) or ``'no'`` (shape ``(N,)``).

    Returns:
        Variable of ``x0``'s dtype, differentiable by ``x0`` and ``x1``.

    >>> x0 = np.array([[-2., 3., 0.5], [5., 2., -0.5]], np.float32)
    >>> x1 = np.array([[-1., 3., 1.], [3.5, 0.5, -2.]], np.float32)
    >>> F.contrastive(x0, x1, np.array([1, 0], np.int32)).array
    array(0.3125, dtype=float32)
    """
    check_positive_margin(_NAME, margin)
    check_reduce(_NAME, reduce, ('mean', 'no'))
    return Contrastive(margin, reduce).apply((x0, x1, y))[0]
