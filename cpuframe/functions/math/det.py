"""Determinant and batched determinant (``numpy.linalg.det``)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class BatchDet(FunctionNode):
    """``y[i] = det(a[i])`` for a stack ``a`` of square matrices.

    ``d det(a) = det(a) * tr(a^-1 da)`` gives ``ga = gy * det * a^-T``,
    built of :func:`batch_inv` and products, so every order works (the
    gradient needs the inverse: it raises for a singular matrix).
    """

    @property
    def label(self):
        return 'BatchDet'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a',))
        a, = in_types
        type_check.expect(a.dtype.kind == 'f', a.ndim == 3,
                          a.shape[-1] == a.shape[-2])

    def forward(self, inputs):
        a, = inputs
        xp = backend.get_array_module(a)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return utils.force_array(xp.linalg.det(a), a.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.transpose import transpose
        from cpuframe.functions.math.inv import batch_inv
        a, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        m = a.shape[0]
        scale = broadcast_to(reshape(gy * y, (m, 1, 1)), a.shape)
        return scale * transpose(batch_inv(a), (0, 2, 1)),


def batch_det(a):
    """Computes the determinant of a batch of square matrices.

    Args:
        a (Variable or array): Float array of shape ``(m, n, n)``.

    Returns:
        Variable of shape ``(m,)``.

    >>> F.batch_det(np.stack([np.eye(2) * 2, np.eye(2) * 3])).array
    array([4., 9.])
    """
    return BatchDet().apply((a,))[0]


def det(a):
    """Computes the determinant of a single square matrix.

    Args:
        a (Variable or array): Float matrix of shape ``(n, n)``.

    Returns:
        Variable of shape ``()``.

    >>> y = F.det(np.array([[1., 2.], [3., 4.]]))
    >>> y.shape, round(float(y.array), 6)
    ((), -2.0)
    """
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.variable import as_variable
    a = as_variable(a)
    if a.ndim != 2:
        raise type_check.InvalidType(
            'a.ndim == 2', 'a.ndim = {} (det: shape {})'.format(
                a.ndim, a.shape))
    return reshape(batch_det(reshape(a, (1,) + a.shape)), ())
