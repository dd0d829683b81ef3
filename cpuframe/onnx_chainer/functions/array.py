"""Shape and layout functions."""
import numpy

from cpuframe.onnx_chainer.functions._common import const, ints_input, node, unsupported


def _reshape(params):
    shape = const(params, numpy.asarray(params.func.shape, numpy.int64),
                  'shape')
    return node(params, 'Reshape', [params.input_names[0], shape])


def _transpose(params):
    axes = params.func.axes
    nd = len(params.func.inputs[0].shape)
    perm = list(range(nd))[::-1] if axes is None else \
        [int(a) % nd for a in axes]
    return node(params, 'Transpose', perm=perm)


def _swapaxes(params):
    nd = len(params.func.inputs[0].shape)
    perm = list(range(nd))
    a, b = params.func.axis1 % nd, params.func.axis2 % nd
    perm[a], perm[b] = perm[b], perm[a]
    return node(params, 'Transpose', perm=perm)


def _concat(params):
    nd = len(params.func.inputs[0].shape)
    return node(params, 'Concat', axis=int(params.func.axis) % nd)


def _broadcast_to(params):
    if params.opset_version < 8:
        raise unsupported(params, 'Expand needs opset 8')
    shape = const(params, numpy.asarray(params.func._shape, numpy.int64),
                  'shape')
    return node(params, 'Expand', [params.input_names[0], shape])


def _axes_op(op):
    def convert(params):
        axis = params.func.axis
        if axis is None:
            return node(params, op)
        axes = [int(a) for a in (axis if isinstance(axis, (tuple, list))
                                 else (axis,))]
        out_nd = len(params.func.inputs[0].shape) + (
            len(axes) if op == 'Unsqueeze' else 0)
        axes = [a % out_nd for a in axes]
        name = ints_input(params, axes, 'axes', 13)
        if name is None:
            return node(params, op, axes=axes)
        return node(params, op, [params.input_names[0], name])
    return convert


def _identity(params):
    return node(params, 'Identity')


def _cast(params):
    from onnx import helper
    to = helper.np_dtype_to_tensor_dtype(numpy.dtype(params.func.type))
    return node(params, 'Cast', to=to)


CONVERTERS = {
    'Reshape': _reshape,
    'Transpose': _transpose,
    'Swapaxes': _swapaxes,
    'Concat': _concat,
    'BroadcastTo': _broadcast_to,
    'ExpandDims': _axes_op('Unsqueeze'),
    'Squeeze': _axes_op('Squeeze'),
    'Identity': _identity,
    'Copy': _identity,
    'Cast': _cast,
}
