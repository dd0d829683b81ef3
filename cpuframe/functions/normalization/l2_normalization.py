"""L2 normalization of vectors along an axis."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _normalize_axis(axis, ndim, label):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise type_check.InvalidType(
                '-x.ndim <= axis < x.ndim for every axis',
                'axis {} with x.ndim = {}'.format(axis, ndim))
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError('{}: duplicate axes in axis={}'.format(label, axis))
    return tuple(sorted(out))


class NormalizeL2(FunctionNode):
    """``y = x / (||x||_2 + eps)``, the norm taken over ``axis``.

    The gradient is built of FunctionNodes (any order works).
    """

    def __init__(self, eps=1e-5, axis=1):
        self.eps = eps
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        self._axes = _normalize_axis(
            self.axis, type_check.eval(in_types[0].ndim), self.label)

    def forward(self, inputs):
        x, = inputs
        self._axes = _normalize_axis(self.axis, x.ndim, self.label)
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        norm = xp.sqrt((x * x).sum(axis=self._axes, keepdims=True))
        norm += x.dtype.type(self.eps)
        return (x / norm).astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.where import where
        from cpuframe.functions.math.sqrt import sqrt
        from cpuframe.functions.math.sum import sum as sum_
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        axes = self._axes
        norm_noeps = sqrt(sum_(x * x, axis=axes, keepdims=True))
        norm = norm_noeps + self.eps
        # At a zero vector the Jacobian is I / eps; keep the second term
        # (0 / 0 there) out of the computation.
        nonzero = norm_noeps.array != 0
        safe = where(nonzero, norm_noeps,
                     norm_noeps.xp.ones_like(norm_noeps.array))
        x_gy = sum_(x * gy, axis=axes, keepdims=True)
        return gy / norm - x * x_gy / (norm * norm * safe),


def normalize(x, eps=1e-5, axis=1):
    """L2 normalization along ``axis``.

    ::

        y = x / (sqrt(sum(x ** 2, axis)) + eps)

    Args:
        x (Variable or array): Input, e.g. ``(batch, dims)``.
        eps (float): Added to the norm to avoid a division by zero.
        axis (int or tuple of ints): Axes of the vectors to normalize.

    Returns:
        Variable of the shape of ``x``.

    >>> x = np.array([[3., 4.]], np.float32)
    >>> F.normalize(x, eps=0.).array
    array([[0.6, 0.8]], dtype=float32)
    """
    return NormalizeL2(eps, axis).apply((x,))[0]
