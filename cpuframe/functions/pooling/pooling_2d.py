"""Chainer's base class of 2-d pooling nodes, for code that subclasses it.

cpuframe's own pooling nodes (MaxPooling2D, AveragePooling2D) do not
derive from it.
"""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _pair(x):
    if hasattr(x, '__getitem__'):
        return x
    return x, x


class Pooling2D(FunctionNode):
    """Holds the 2-d pooling parameters as Chainer's base does.

    Attributes: ``kh, kw`` (from ``ksize``), ``sy, sx`` (``stride``,
    ``ksize`` when None), ``ph, pw`` (``pad``), ``cover_all`` and
    ``return_indices``.  The input must be a 4-d float array.
    """

    def __init__(self, ksize, stride=None, pad=0, cover_all=True,
                 return_indices=False):
        if stride is None:
            stride = ksize
        self.kh, self.kw = _pair(ksize)
        self.sy, self.sx = _pair(stride)
        self.ph, self.pw = _pair(pad)
        self.cover_all = cover_all
        self.return_indices = return_indices

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.expect(
            in_types.size() == 1,
            in_types[0].dtype.kind == 'f',
            in_types[0].ndim == 4,
        )
