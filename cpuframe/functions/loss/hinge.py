"""Hinge loss for one-of-many classification."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_reduce
from cpuframe.utils import type_check

_NAME = 'hinge'


class Hinge(FunctionNode):
    """``max(0, 1 - s * x) ** p`` with ``s = +1`` at the label, else -1."""

    def __init__(self, norm='L1', reduce='mean'):
        self.norm = norm
        self.reduce = reduce

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == 'f',
                          t_type.dtype.kind == 'i',
                          x_type.ndim == 2,
                          t_type.ndim == 1,
                          x_type.shape[0] == t_type.shape[0])

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        n, k = x.shape
        bad = (t < 0) | (t >= k)
        if bad.any():
            raise ValueError(
                '{}: each label t must satisfy 0 <= t < x.shape[1] (= {}), '
                'got t = {}'.format(_NAME, k, t[bad][0].item()))
        self.retain_inputs((0,))
        # sign[n, k] = -1 at the label, +1 elsewhere: loss = max(0, 1 + sign*x)
        self._sign = 1 - 2 * (xp.arange(k) == t[:, None]).astype(x.dtype)
        margin = self._sign * x
        margin += 1
        self._active = (margin > 0).astype(x.dtype)
        loss = margin * self._active
        if self.norm == 'L2':
            loss *= loss
        if self.reduce == 'mean':
            loss = xp.asarray(loss.sum() / max(n, 1), dtype=x.dtype)
        return utils.force_array(loss, x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'mean':
            gy = gy * (1.0 / max(len(x), 1))
        slope = self._sign * self._active
        if self.norm == 'L1':
            return gy * slope, None
        margin = x * self._sign + 1.0
        return margin * (gy * (2 * slope)), None


def hinge(x, t, norm='L1', reduce='mean'):
    """Hinge loss of scores ``x`` for labels ``t``.

    ``L = 1/N sum_n sum_k max(0, 1 - d(t_n = k) x_nk) ** p`` where ``d`` is
    +1 when the condition holds and -1 otherwise, ``p`` is 1 for ``'L1'``
    and 2 for ``'L2'``.

    Args:
        x: float scores of shape ``(N, K)``.
        t: signed integer labels of shape ``(N,)``, each in ``[0, K)``.
        norm (str): ``'L1'`` or ``'L2'``.
        reduce (str): ``'mean'`` (the sum divided by ``N``, a scalar) or
            ``'no'`` (the elementwise losses, of shape ``(N, K)``).

    Returns:
        Variable of ``x``'s dtype, differentiable by ``x``.

    >>> x = np.array([[-2., 3., 0.5], [5., 2., -0.5]], np.float32)
    >>> t = np.array([1, 0], np.int32)
    >>> F.hinge(x, t).array
    array(2.5, dtype=float32)
    >>> F.hinge(x, t, norm='L2').array
    array(5.75, dtype=float32)
    """
    if norm not in ('L1', 'L2'):
        raise ValueError("{}: norm should be either 'L1' or 'L2', got "
                         "{!r}".format(_NAME, norm))
    check_reduce(_NAME, reduce, ('mean', 'no'))
    return Hinge(norm, reduce).apply((x, t))[0]
