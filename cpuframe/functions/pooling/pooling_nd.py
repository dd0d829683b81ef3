"""Chainer's base class of N-d pooling nodes, for code that subclasses it.

cpuframe's own pooling nodes (MaxPoolingND, AveragePoolingND) do not
derive from it.
"""
from cpuframe.function_node import FunctionNode
from cpuframe.utils import conv_nd, type_check


class _PoolingND(FunctionNode):
    """Holds the N-d pooling parameters as Chainer's base does.

    Attributes: ``ndim``, ``ksize``, ``stride`` (``ksize`` when None) and
    ``pad`` as ``ndim``-tuples, ``cover_all``, ``return_indices``.  The
    input must be a float array of ``2 + ndim`` axes.
    """

    def __init__(self, ndim, ksize, stride=None, pad=0, cover_all=True,
                 return_indices=False):
        if stride is None:
            stride = ksize
        if ndim <= 0:
            raise ValueError(
                'pooling operation requires at least one spatial dimension.')
        self.ndim = ndim
        self.ksize = conv_nd.as_tuple(ksize, ndim)
        self.stride = conv_nd.as_tuple(stride, ndim)
        self.pad = conv_nd.as_tuple(pad, ndim)
        self.cover_all = cover_all
        self.return_indices = return_indices

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('ndim',)

    def check_type_forward(self, in_types):
        type_check.expect(
            in_types.size() == 1,
            in_types[0].dtype.kind == 'f',
            in_types[0].ndim == 2 + self.ndim,
            in_types[0].size > 0,
        )
