"""Elementwise Hurwitz zeta function."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math import _special
from cpuframe.utils import type_check


class Zeta(FunctionNode):

    def __init__(self, x):
        self._x = x

    @property
    def label(self):
        return 'zeta'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('q',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        q, = inputs
        self.retain_inputs((0,))
        x = backend.get_array_module(q).asarray(self._x)
        return _special.apply_kernel('zeta', q.dtype, x, q),

    def backward(self, indexes, grad_outputs):
        q, = self.get_retained_inputs()
        return grad_outputs[0] * -self._x * zeta(self._x + 1, q),


def zeta(x, q):
    """Elementwise Hurwitz zeta function ``sum_{k>=0} (q + k) ** -x``.

    Differentiable with respect to ``q`` only (``d/dq = -x zeta(x + 1, q)``),
    as Chainer's.

    Args:
        x: the exponent, a float scalar or array (broadcast with ``q``); not
            differentiated.
        q: a float Variable or array.

    As SciPy's ``zeta(x, q)``: inf at ``x = 1`` and at ``q = 0, -1, ...``,
    nan for ``x < 1`` and for negative ``q`` with non-integral ``x``.
    A direct sum followed by the Euler-Maclaurin tail; float64 results
    within a few ulp for ``q > 0``.  For ``q < 0`` the direct sum runs to
    ``-q``, so the cost grows with ``|q|``.

    >>> F.zeta(2., np.array([1.])).array
    array([1.64493407])
    """
    return Zeta(x).apply((q,))[0]
