"""Stack variable-length sequences into one padded array."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class PadSequence(FunctionNode):
    def __init__(self, length, padding):
        self.length = length
        self.padding = padding

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('length',)

    def check_type_forward(self, in_types):
        if len(in_types) == 0:
            raise type_check.InvalidType('len(xs) > 0', 'len(xs) = 0')
        for i, t in enumerate(in_types):
            type_check.expect(t.ndim > 0)
            if i:
                type_check.expect(t.dtype == in_types[0].dtype,
                                  t.shape[1:] == in_types[0].shape[1:])
        if self.length is not None:
            longest = max(type_check.eval(t.shape[0]) for t in in_types)
            if self.length < longest:
                raise ValueError(
                    'pad_sequence: length ({}) must be >= the longest '
                    'sequence ({})'.format(self.length, longest))

    def forward(self, xs):
        xp = backend.get_array_module(*xs)
        self._lengths = [x.shape[0] for x in xs]
        length = self.length
        if length is None:
            length = max(self._lengths)
        shape = (len(xs), length) + xs[0].shape[1:]
        y = xp.full(shape, self.padding, dtype=xs[0].dtype)
        for i, x in enumerate(xs):  # one copy per sequence, not per element
            y[i, :len(x)] = x
        return y,

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.get_item import get_item
        gy, = grad_outputs
        return tuple(get_item(gy, (i, slice(0, self._lengths[i])))
                     for i in indexes)


def pad_sequence(xs, length=None, padding=0):
    """Pad sequences of different lengths into one array.

    Args:
        xs: a list of Variables or arrays of shapes ``(L_i, ...)`` sharing
            the trailing shape and dtype.
        length: the padded length; None takes the longest ``L_i``.
        padding: the scalar filled in after each sequence.

    Returns:
        A Variable of shape ``(len(xs), length, ...)``.

    >>> F.pad_sequence([np.ones(1, np.float32), np.ones(2, np.float32)]).array
    array([[1., 0.],
           [1., 1.]], dtype=float32)
    """
    return PadSequence(length, padding).apply(tuple(xs))[0]
