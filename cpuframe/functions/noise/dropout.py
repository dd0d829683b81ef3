"""Dropout regularization."""
import numbers

from cpuframe import backend, utils
from cpuframe.configuration import config
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable, as_variable


class Dropout(FunctionNode):
    """``y = x * mask``; ``mask`` is drawn in forward unless given.

    After forward, ``self.mask`` holds the scaled mask (0 or
    ``1 / (1 - ratio)`` per element, in ``x``'s dtype).
    """

    def __init__(self, dropout_ratio, mask=None):
        if isinstance(dropout_ratio, bool) or \
                not isinstance(dropout_ratio, numbers.Real) or \
                not 0.0 <= dropout_ratio < 1.0:
            raise ValueError('dropout: expected 0 <= ratio < 1, got '
                             '{!r}'.format(dropout_ratio))
        self.dropout_ratio = float(dropout_ratio)
        self.mask = mask

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('mask',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')
        if self.mask is not None:
            mask = type_check.make_variable(
                type_check.TypeInfo(self.mask.shape, self.mask.dtype), 'mask')
            type_check.expect(mask.shape == in_types[0].shape)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        if self.mask is None:
            scale = x.dtype.type(1.0 / (1.0 - self.dropout_ratio))
            # xp.random's global state: numpy.random.seed makes it repeatable
            keep = xp.random.random_sample(x.shape) >= self.dropout_ratio
            self.mask = utils.force_array(keep * scale, x.dtype)
        if self.mask.dtype != x.dtype:
            self.mask = self.mask.astype(x.dtype)
        return utils.force_array(x * self.mask, x.dtype),

    def backward(self, indexes, grad_outputs):
        return DropoutGrad(self.mask).apply((grad_outputs[0],))


class DropoutGrad(FunctionNode):
    """``gx = gy * mask``: linear, so its own gradient is the same map."""

    def __init__(self, mask):
        self.mask = mask

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].shape == self.mask.shape)

    def forward(self, inputs):
        gy, = inputs
        return utils.force_array(gy * self.mask, gy.dtype),

    def backward(self, indexes, grad_outputs):
        return DropoutGrad(self.mask).apply((grad_outputs[0],))


def _parse_kwargs(kwargs):
    if 'train' in kwargs:
        raise ValueError(
            'dropout: the train argument is not supported anymore; use '
            'cpuframe.using_config(\'train\', ...)')
    unknown = set(kwargs) - {'mask', 'return_mask'}
    if unknown:
        raise TypeError('dropout: got unexpected keyword argument(s) '
                        '{}'.format(', '.join(sorted(unknown))))
    return kwargs.get('mask'), kwargs.get('return_mask', False)


def dropout(x, ratio=.5, **kwargs):
    """Drop elements of ``x`` with probability ``ratio``, scale the rest.

    In training mode (``config.train``, the default) each element is set
    to zero with probability ``ratio`` and the others are multiplied by
    ``1 / (1 - ratio)``, so the expectation is unchanged:
    ``y = x * mask`` with ``mask`` in ``{0, 1 / (1 - ratio)}``.  Outside
    training mode ``x`` is returned unchanged (as a Variable).  The random
    numbers come from ``numpy.random``'s global state (``cupy.random`` for
    GPU arrays), so ``numpy.random.seed`` makes the mask repeatable.

    Args:
        x: a float Variable or array.
        ratio (float): the drop probability, ``0 <= ratio < 1``.
        mask (array, keyword only): a scaled mask to use instead of drawing
            one, e.g. the one returned earlier with ``return_mask=True``;
            it must have ``x``'s shape.
        return_mask (bool, keyword only): also return the mask used
            (``None`` outside training mode).

    Returns:
        A Variable of ``x``'s shape, or ``(y, mask)`` with ``return_mask``.
        The backward pass multiplies by the same mask.

    >>> with cpuframe.using_config('train', False):
    ...     F.dropout(np.ones(3, np.float32)).array
    array([1., 1., 1.], dtype=float32)
    """
    mask, return_mask = _parse_kwargs(kwargs)
    if mask is not None:
        if isinstance(mask, Variable):
            mask = mask.array
        if not backend.is_array(mask):
            raise TypeError('dropout: expected mask as an array, got '
                            '{}'.format(type(mask).__name__))
    if config.train:
        func = Dropout(ratio, mask)
        y, = func.apply((x,))
        mask = func.mask
    else:
        Dropout(ratio)  # validates ratio in every mode
        y = as_variable(x)
        mask = None
    if return_mask:
        return y, mask
    return y
