"""Reshape without copying data."""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _resolve_shape(shape, size, where):
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s < 0]
    if len(unknown) > 1:
        raise ValueError('{}: only one dimension may be -1, got shape {}'
                         .format(where, shape))
    known = 1
    for s in shape:
        if s >= 0:
            known *= s
    if unknown:
        if known == 0 or size % known:
            raise ValueError('{}: cannot reshape an array of size {} into '
                             'shape {}'.format(where, size, shape))
        shape = tuple(size // known if s < 0 else s for s in shape)
    elif known != size:
        raise ValueError('{}: cannot reshape an array of size {} into shape '
                         '{}'.format(where, size, shape))
    return shape


class Reshape(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, shape):
        self.shape = tuple(shape)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('shape',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        _resolve_shape(self.shape, type_check.eval(in_types[0].size), 'reshape')

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        return x.reshape(self.shape),

    def backward(self, indexes, grad_outputs):
        return reshape(grad_outputs[0], self._in_shape),

    def backward_arrays(self, indexes, grad_outputs):
        return reshape_array(grad_outputs[0], self._in_shape),


def reshape(x, shape):
    """Array ``x`` with a new ``shape`` (one entry may be -1).

    >>> F.reshape(np.arange(6, dtype=np.float32), (2, 3)).shape
    (2, 3)
    """
    if isinstance(shape, int):
        shape = (shape,)
    if tuple(x.shape) == tuple(shape):
        from cpuframe.variable import as_variable
        return as_variable(x)
    return Reshape(shape).apply((x,))[0]


def reshape_array(x, shape):
    """``reshape`` on an array, nothing recorded (for ``backward_arrays``)."""
    if tuple(x.shape) == tuple(shape):
        return x
    return Reshape(shape)._compute((x,))[0]
