"""Tensor dot product over chosen axes (``numpy.tensordot``)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _normalize_axes(axes, a_ndim, b_ndim):
    """Return ``(a_axes, b_axes)`` as tuples of non-negative ints."""
    if isinstance(axes, bool):
        raise TypeError('tensordot: axes must be an int or a pair of axis '
                        'sequences, got {!r}'.format(axes))
    if isinstance(axes, int):
        if axes < 0 or axes > a_ndim or axes > b_ndim:
            raise ValueError(
                'tensordot: axes={} out of range for operands of ndim {} '
                'and {}'.format(axes, a_ndim, b_ndim))
        return (tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes)))
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise TypeError('tensordot: axes must be an int or a pair of axis '
                        'sequences, got {!r}'.format(axes)) from None
    a_axes = (a_axes,) if isinstance(a_axes, int) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, int) else tuple(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError('tensordot: axes {} and {} differ in length'.format(
            a_axes, b_axes))

    def norm(ax, ndim, name):
        out = []
        for i in ax:
            if not isinstance(i, int) or not -ndim <= i < ndim:
                raise ValueError('tensordot: axis {!r} of {} out of range '
                                 'for ndim {}'.format(i, name, ndim))
            out.append(i % ndim)
        if len(set(out)) != len(out):
            raise ValueError('tensordot: repeated axis in {} axes {}'.format(
                name, ax))
        return tuple(out)

    return norm(a_axes, a_ndim, 'a'), norm(b_axes, b_ndim, 'b')


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


class TensorDot(FunctionNode):
    def __init__(self, axes=2):
        self.axes = axes

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a', 'b'))
        a, b = in_types
        type_check.expect(a.dtype.kind == 'f', a.dtype == b.dtype)
        a_ax, b_ax = _normalize_axes(self.axes, type_check.eval(a.ndim),
                                     type_check.eval(b.ndim))
        for i, j in zip(a_ax, b_ax):
            type_check.expect(a.shape[i] == b.shape[j])
        self.a_axes, self.b_axes = a_ax, b_ax

    def forward(self, inputs):
        a, b = inputs
        # (again: type checks may be off, and then nothing set them)
        self.a_axes, self.b_axes = _normalize_axes(self.axes, a.ndim, b.ndim)
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(a, b)
        self._ndims = (a.ndim, b.ndim)
        y = xp.tensordot(a, b, axes=(self.a_axes, self.b_axes))
        return utils.force_array(y, a.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.transpose import transpose
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        a_nd, b_nd = self._ndims
        a_free = tuple(i for i in range(a_nd) if i not in self.a_axes)
        b_free = tuple(i for i in range(b_nd) if i not in self.b_axes)
        n_af = len(a_free)
        ret = []
        for i in indexes:
            if i == 0:
                # Axes come out as (a_free..., a-axes paired with b's
                # remaining axes in ascending b order); undo that order.
                gy_b = tuple(range(n_af, n_af + len(b_free)))
                g = tensordot(gy, b, axes=(gy_b, b_free))
                pairs = sorted(zip(self.b_axes, self.a_axes))
                perm = _inverse(a_free + tuple(ax for _, ax in pairs))
            else:
                gy_a = tuple(range(n_af))
                g = tensordot(a, gy, axes=(a_free, gy_a))
                pairs = sorted(zip(self.a_axes, self.b_axes))
                perm = _inverse(tuple(bx for _, bx in pairs) + b_free)
            if perm != tuple(range(len(perm))):
                g = transpose(g, perm)
            ret.append(g)
        return tuple(ret)


def tensordot(a, b, axes=2):
    """Tensor dot product of ``a`` and ``b`` summed over ``axes``.

    Args:
        a, b: float Variables or arrays of the same dtype.
        axes: an int ``n`` (sum over the last ``n`` axes of ``a`` and the
            first ``n`` of ``b``) or a pair ``(a_axes, b_axes)`` of axis
            sequences (or single ints) of equal length, as in
            ``numpy.tensordot``.

    Returns:
        Variable of shape ``a``'s free axes + ``b``'s free axes.

    >>> a = np.ones((2, 3, 4), np.float32); b = np.ones((3, 4, 5), np.float32)
    >>> F.tensordot(a, b).shape
    (2, 5)
    """
    return TensorDot(axes).apply((a, b))[0]
