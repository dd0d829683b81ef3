"""Permutation of an array along an axis."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import as_array


class Permutate(FunctionNode):
    """``y = x.take(indices, axis)``, or its inverse with ``inv``."""

    def __init__(self, indices, axis, inv):
        self.indices = indices
        self.axis = axis
        self.inv = inv

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        type_check.expect(x_type.shape[self.axis] == len(self.indices))

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        indices = self.indices
        if self.inv:
            indices = xp.argsort(indices)
        return xp.take(x, indices, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        return Permutate(self.indices, self.axis, not self.inv).apply(
            grad_outputs)


def permutate(x, indices, axis=0, inv=False):
    """Permute ``x`` along ``axis``: ``y[..., i, ...] = x[..., indices[i],
    ...]``.

    With ``inv=True`` the inverse permutation is applied instead,
    ``y[..., indices[i], ...] = x[..., i, ...]``.

    Args:
        x: input array or Variable.
        indices: 1-D integer array (or Variable), a permutation of
            ``0 .. x.shape[axis] - 1``.
        axis (int): the axis to permute.
        inv (bool): apply the inverse permutation.

    Returns:
        Variable of ``x``'s shape, differentiable (twice) by ``x``.

    >>> F.permutate(np.array([10., 20., 30.]), np.array([2, 0, 1], 'i')).array
    array([30., 10., 20.])
    """
    indices = as_array(indices)
    if indices.ndim != 1 or indices.dtype.kind not in 'iu':
        raise ValueError('permutate: indices must be a 1-D integer array, '
                         'got shape {} dtype {}'.format(indices.shape,
                                                        indices.dtype))
    host = numpy.asarray(indices.get() if hasattr(indices, 'get')
                         else indices)
    if not (numpy.sort(host) == numpy.arange(len(host))).all():
        raise ValueError('permutate: indices must be a permutation of '
                         '0..{}, got {}'.format(len(host) - 1, host))
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError('permutate: axis must be an int, got {!r}'.format(
            axis))
    return Permutate(indices, int(axis), bool(inv)).apply((x,))[0]
