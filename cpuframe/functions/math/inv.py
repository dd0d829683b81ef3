"""Matrix inverse and batched matrix inverse (``numpy.linalg.inv``)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _linalg_inv(x, label):
    xp = backend.get_array_module(x)
    try:
        return utils.force_array(xp.linalg.inv(x), x.dtype)
    except xp.linalg.LinAlgError:
        raise ValueError('{}: input has singular matrices (shape {})'.format(
            label, x.shape)) from None


class Inv(FunctionNode):
    """``y = x^-1`` for a square matrix, or for each of a stack of them.

    ``dy = -y dx y`` gives ``gx = -y^T gy y^T``, a product of matmuls, so
    every order of gradient works.
    """

    def __init__(self, batched):
        self.batched = batched

    @property
    def label(self):
        return 'BatchInv' if self.batched else 'Inv'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('batched',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a',))
        a, = in_types
        type_check.expect(a.dtype.kind == 'f',
                          a.ndim == (3 if self.batched else 2),
                          a.shape[-1] == a.shape[-2])

    def forward(self, inputs):
        self.retain_outputs((0,))
        return _linalg_inv(inputs[0], self.label),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.basic_math import _matmul
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return -_matmul(_matmul(y, gy, True, False), y, False, True),


def inv(a):
    """Computes the inverse of a square matrix.

    Args:
        a (Variable or array): Float matrix of shape ``(n, n)``.

    Returns:
        Variable of shape ``(n, n)``: ``a^-1``.

    Raises:
        ValueError: if ``a`` is singular.

    >>> F.inv(np.array([[2., 0.], [0., 4.]], np.float32)).array
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    return Inv(False).apply((a,))[0]


def batch_inv(a):
    """Computes the inverse of a batch of square matrices.

    Args:
        a (Variable or array): Float array of shape ``(m, n, n)``.

    Returns:
        Variable of shape ``(m, n, n)``: the inverse of each ``a[i]``.

    Raises:
        ValueError: if one of the matrices is singular.

    >>> F.batch_inv(np.stack([np.eye(2) * 2, np.eye(2) * 4])).array[:, 0, 0]
    array([0.5 , 0.25])
    """
    return Inv(True).apply((a,))[0]
