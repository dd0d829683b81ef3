"""Memory layouts of arrays (Chainer's ``chainer.memory_layouts``).

Chainer can keep cuDNN arrays channel-last while the Variable still looks
channel-first.  cpuframe keeps every array in the standard (channel-first)
layout, whose constants are None; the channel-last constants exist for
code that names them, and :class:`AsLayout` transposes explicitly.
"""
from cpuframe.function_node import FunctionNode

CUDNN_CHANNEL_FIRST_X = None
CUDNN_CHANNEL_LAST_X = 'CUDNN_CHANNEL_LAST_X'
CUDNN_CHANNEL_FIRST_W = None
CUDNN_CHANNEL_LAST_W = 'CUDNN_CHANNEL_LAST_W'


class _Unspecified:
    def __repr__(self):
        return '<unspecified>'


_unspecified = _Unspecified()


def _variable_class():
    from cpuframe.variable import Variable
    return Variable


def get_raw_shape(arr_or_var):
    """The shape of the underlying array (as stored in memory)."""
    if isinstance(arr_or_var, _variable_class()):
        return arr_or_var.array.shape
    return arr_or_var.shape


def get_semantic_shape(arr_or_var, *, assumed_layout=_unspecified):
    """The shape in the standard layout.

    For an array stored in ``assumed_layout`` its axes are permuted back to
    the standard order; a Variable is always in the standard layout here.
    """
    if isinstance(arr_or_var, _variable_class()):
        if assumed_layout not in (_unspecified, None):
            raise ValueError('cpuframe Variables have the standard layout, '
                             'not {!r}'.format(assumed_layout))
        return arr_or_var.shape
    shape = arr_or_var.shape
    if assumed_layout is not _unspecified:
        shape = _transpose_shape(shape, assumed_layout, None)
    return shape


def _transpose_shape(shape, src_layout, dst_layout):
    axes = _get_layout_transpose_axes(len(shape), src_layout, dst_layout)
    return shape if axes is None else tuple(shape[i] for i in axes)


def _transpose_array(arr, src_layout, dst_layout):
    axes = _get_layout_transpose_axes(arr.ndim, src_layout, dst_layout)
    return arr if axes is None else arr.transpose(*axes)


def _get_layout_transpose_axes(ndim, src_layout, dst_layout, inverse=False):
    """Axes taking an array from ``src_layout`` to ``dst_layout`` (None when
    they are the same); ``inverse`` gives the reverse permutation."""
    if src_layout == dst_layout:
        return None
    last = (CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W)
    if dst_layout in last and src_layout is None:
        axes = (0,) + tuple(range(2, ndim)) + (1,)
    elif src_layout in last and dst_layout is None:
        axes = (0, ndim - 1) + tuple(range(1, ndim - 1))
    else:
        raise ValueError("Unknown layout conversion: from '{}' to '{}'"
                         .format(src_layout, dst_layout))
    if ndim < 3:
        raise ValueError('layout conversion needs at least 3 axes, got {}'
                         .format(ndim))
    if inverse:
        inv = [0] * ndim
        for i, a in enumerate(axes):
            inv[a] = i
        axes = tuple(inv)
    return axes


class AsLayout(FunctionNode):
    """Permute an array between memory layouts.

    ``AsLayout(layout).apply((x,))`` transposes ``x`` from ``in_layout``
    (the standard layout unless given) to ``layout``; its gradient is
    permuted back.
    """

    def __init__(self, layout, in_layout=None):
        self.out_layout = layout
        self.in_layout = in_layout

    @property
    def label(self):
        return 'AsLayout'

    def forward(self, inputs):
        x, = inputs
        axes = _get_layout_transpose_axes(x.ndim, self.in_layout,
                                          self.out_layout)
        return (x if axes is None else x.transpose(axes)),

    def backward(self, indexes, grad_outputs):
        return AsLayout(self.in_layout, self.out_layout).apply(grad_outputs)
