"""Reductions to the largest or smallest element: max, min, argmax, argmin."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math._reduction import expand_back, normalize_axis
from cpuframe.utils import type_check


class _SelectorBase(FunctionNode):
    """Max or Min over ``axis``; the gradient goes to every extremal entry."""

    _name = None
    _reduce = None

    def __init__(self, axis=None, keepdims=False):
        if axis is not None and not isinstance(axis, (int, tuple)):
            raise TypeError('{}: expected axis as None, an int or a tuple of '
                            'ints, got {}'.format(self._name,
                                                  type(axis).__name__))
        self.axis = axis
        self.keepdims = keepdims

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('_name', 'axis')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        normalize_axis(self.axis, type_check.eval(in_types[0].ndim),
                        self._name)

    def forward(self, inputs):
        x, = inputs
        self._axis = normalize_axis(self.axis, x.ndim, self._name)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        y = getattr(x, self._reduce)(axis=self._axis, keepdims=self.keepdims)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        y_kept = y.array
        if not self.keepdims:
            shape = [1] * x.ndim if self._axis is None else list(x.shape)
            for a in self._axis or ():
                shape[a] = 1
            y_kept = y_kept.reshape(shape)
        # Every entry equal to the extremum gets the full gradient (Chainer's
        # rule); the mask is a constant, so this is linear in gy.
        mask = (x.array == y_kept).astype(x.dtype)
        gy = expand_back(grad_outputs[0], x.shape, self._axis,
                          self.keepdims)
        return gy * mask,


class Max(_SelectorBase):
    _name = 'max'
    _reduce = 'max'


class Min(_SelectorBase):
    _name = 'min'
    _reduce = 'min'


def max(x, axis=None, keepdims=False):  # noqa: A001 - Chainer's name
    """Largest element of ``x`` over ``axis``.

    Args:
        x: a float Variable or array.
        axis: None (all axes), an int or a tuple of ints; negative values
            count from the end.
        keepdims: keep the reduced axes with length one.

    The gradient flows to the entries equal to the maximum.  When several
    entries tie, **each** of them receives the full output gradient (the
    gradient is not split), as in Chainer.

    >>> F.max(np.array([[1., 5.], [3., 2.]], np.float32), axis=1).array
    array([5., 3.], dtype=float32)
    """
    return Max(axis, keepdims).apply((x,))[0]


def min(x, axis=None, keepdims=False):  # noqa: A001 - Chainer's name
    """Smallest element of ``x`` over ``axis``.

    Same arguments and gradient rule as :func:`max`: every entry equal to
    the minimum receives the full output gradient.

    >>> F.min(np.array([[1., 5.], [3., 2.]], np.float32), axis=1).array
    array([1., 2.], dtype=float32)
    """
    return Min(axis, keepdims).apply((x,))[0]


class _IndexSelectorBase(FunctionNode):
    """Argmax or argmin over one axis; not differentiable."""

    _name = None
    _reduce = None

    def __init__(self, axis=None):
        if axis is not None and (isinstance(axis, bool) or
                                 not isinstance(axis, (int, numpy.integer))):
            raise TypeError('{}: expected axis as None or an int, got '
                            '{}'.format(self._name, type(axis).__name__))
        self.axis = None if axis is None else int(axis)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('axis',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        if self.axis is not None:
            type_check.expect(-in_types[0].ndim <= self.axis,
                              in_types[0].ndim > self.axis)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        y = getattr(xp, self._reduce)(x, axis=self.axis)
        return utils.force_array(y, numpy.int32),

    def backward(self, indexes, grad_outputs):
        return tuple(None for _ in indexes)


class ArgMax(_IndexSelectorBase):
    _name = 'argmax'
    _reduce = 'argmax'


class ArgMin(_IndexSelectorBase):
    _name = 'argmin'
    _reduce = 'argmin'


def argmax(x, axis=None):
    """Index of the largest element of ``x`` along ``axis`` (flat when None).

    Returns a Variable of ``int32`` indices; no gradient flows through it.
    At ties the first index wins (NumPy's rule).

    >>> F.argmax(np.array([[1., 5.], [3., 2.]], np.float32), axis=1).array
    array([1, 0], dtype=int32)
    """
    return ArgMax(axis).apply((x,))[0]


def argmin(x, axis=None):
    """Index of the smallest element of ``x`` along ``axis`` (flat when None).

    Returns a Variable of ``int32`` indices; no gradient flows through it.

    >>> F.argmin(np.array([[1., 5.], [3., 2.]], np.float32), axis=1).array
    array([0, 1], dtype=int32)
    """
    return ArgMin(axis).apply((x,))[0]
