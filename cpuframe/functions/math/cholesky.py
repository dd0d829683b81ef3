"""Cholesky decomposition of a symmetric positive-definite matrix."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Cholesky(FunctionNode):

    @property
    def label(self):
        return 'cholesky'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a',))
        a_type, = in_types
        type_check.expect(a_type.dtype.kind == 'f', a_type.ndim == 2)

    def forward(self, inputs):
        a, = inputs
        self.retain_outputs((0,))
        xp = backend.get_array_module(a)
        return xp.linalg.cholesky(a).astype(a.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        # With A = L L^T and gL the gradient of L (lower triangular):
        #   P = tril(L^T gL) with its diagonal halved,
        #   S = L^-T P L^-1,  gA = (S + S^T) / 2.
        from cpuframe.functions.array.transpose import transpose
        from cpuframe.functions.math.basic_math import matmul
        from cpuframe.functions.math.inv import inv
        gy, = grad_outputs
        y, = self.get_retained_outputs()
        xp = backend.get_array_module(y.array)
        n = y.shape[0]
        mask = xp.tri(n, dtype=y.dtype) - 0.5 * xp.eye(n, dtype=y.dtype)
        p = mask * matmul(y, gy, transa=True)
        y_inv = inv(y)
        s = matmul(matmul(y_inv, p, transa=True), y_inv)
        return 0.5 * (s + transpose(s)),


def cholesky(a):
    """The lower-triangular ``L`` with ``a = L L^T`` for a symmetric
    positive-definite 2-d ``a``.

    >>> F.cholesky(np.array([[4., 2.], [2., 2.]], np.float32)).array
    array([[2., 0.],
           [1., 1.]], dtype=float32)
    """
    return Cholesky().apply((a,))[0]
