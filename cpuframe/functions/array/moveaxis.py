"""Move axes to new positions: moveaxis, rollaxis."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _as_tuple(axes, name, what):
    if isinstance(axes, int):
        return (axes,)
    if isinstance(axes, (tuple, list)) and all(
            isinstance(a, int) for a in axes):
        return tuple(axes)
    raise TypeError('{}: {} must be an int or a tuple of ints, got '
                    '{!r}'.format(name, what, axes))


def _normalize(axes, ndim, what):
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise type_check.InvalidType(
                '-x.ndim <= {} < x.ndim'.format(what),
                '{} = {} with x.ndim = {}'.format(what, a, ndim))
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError('moveaxis: repeated axis in {} {}'.format(
            what, axes))
    return out


def _moveaxis_perm(ndim, source, destination):
    order = [a for a in range(ndim) if a not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return order


class Moveaxis(FunctionNode):
    def __init__(self, source, destination):
        self.source = _as_tuple(source, 'moveaxis', 'source')
        self.destination = _as_tuple(destination, 'moveaxis', 'destination')
        if len(self.source) != len(self.destination):
            raise ValueError('moveaxis: source {} and destination {} must '
                             'have the same number of axes'.format(
                                 self.source, self.destination))

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('source', 'destination')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        ndim = type_check.eval(in_types[0].ndim)
        _normalize(self.source, ndim, 'source')
        _normalize(self.destination, ndim, 'destination')

    def forward(self, inputs):
        x, = inputs
        src = _normalize(self.source, x.ndim, 'source')
        dst = _normalize(self.destination, x.ndim, 'destination')
        self._perm = _moveaxis_perm(x.ndim, src, dst)
        return x.transpose(self._perm),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.transpose import transpose
        inv = [0] * len(self._perm)
        for i, a in enumerate(self._perm):
            inv[a] = i
        return transpose(grad_outputs[0], inv),


def moveaxis(x, source, destination):
    """Move the axes ``source`` of ``x`` to the positions ``destination``.

    Args:
        x: a Variable or array.
        source, destination: ints or tuples of ints of the same length.

    >>> F.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    return Moveaxis(source, destination).apply((x,))[0]


class Rollaxis(FunctionNode):
    def __init__(self, axis, start):
        if not isinstance(axis, int):
            raise TypeError('rollaxis: axis must be an int, got '
                            '{!r}'.format(axis))
        if not isinstance(start, int):
            raise TypeError('rollaxis: start must be an int, got '
                            '{!r}'.format(start))
        self.axis = axis
        self.start = start

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis', 'start')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        ndim = in_types[0].ndim
        if self.axis >= 0:
            type_check.expect(self.axis < ndim)
        else:
            type_check.expect(-self.axis - 1 < ndim)
        if self.start >= 0:
            type_check.expect(self.start <= ndim)
        else:
            type_check.expect(-self.start - 1 < ndim)

    def forward(self, inputs):
        x, = inputs
        axis = self.axis % x.ndim
        start = self.start + x.ndim if self.start < 0 else self.start
        order = list(range(x.ndim))
        order.remove(axis)
        order.insert(start if start <= axis else start - 1, axis)
        self._perm = order
        return x.transpose(order),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.transpose import transpose
        inv = [0] * len(self._perm)
        for i, a in enumerate(self._perm):
            inv[a] = i
        return transpose(grad_outputs[0], inv),


def rollaxis(x, axis, start=0):
    """Roll ``axis`` backwards until it lies before position ``start``.

    Same as ``numpy.rollaxis``.

    >>> F.rollaxis(np.zeros((2, 3, 4)), 2).shape
    (4, 2, 3)
    """
    return Rollaxis(axis, start).apply((x,))[0]
