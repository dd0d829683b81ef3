"""Elementwise polygamma function."""
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math import _special
from cpuframe.utils import type_check


class PolyGamma(FunctionNode):

    @property
    def label(self):
        return 'polygamma'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('n', 'x'))
        n_type, x_type = in_types
        type_check.expect(
            n_type.dtype.kind == 'i',
            x_type.dtype.kind == 'f',
        )

    def forward(self, inputs):
        n, x = inputs
        self.retain_inputs((0, 1))
        return _special.apply_kernel('polygamma', x.dtype, n, x),

    def backward(self, indexes, grad_outputs):
        n, x = self.get_retained_inputs()
        return None, polygamma(n.array + 1, x) * grad_outputs[0]


def polygamma(n, x):
    """Elementwise polygamma function ``psi^(n)(x)``, the ``n``-th derivative
    of :func:`digamma` (``n = 0`` is digamma itself).

    Args:
        n: an integer array (broadcast with ``x``); not differentiated.
        x: a float Variable or array.

    ``(-1) ** (n + 1) n! zeta(n + 1, x)`` for ``n >= 1``, as SciPy
    (``+-inf`` at the poles ``0, -1, ...``, nan for negative ``n``).  The
    gradient with respect to ``x`` is ``polygamma(n + 1, x)``.

    >>> F.polygamma(np.array([1]), np.array([1.])).array
    array([1.64493407])
    """
    return PolyGamma().apply((n, x))[0]
