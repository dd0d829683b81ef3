"""Pooling."""
from cpuframe.onnx_chainer.functions._common import node, unsupported


def _geometry(f):
    nd = len(f.inputs[0].shape) - 2

    def as_list(v):
        return [int(x) for x in v] if isinstance(v, (tuple, list)) \
            else [int(v)] * nd
    return as_list(f.ksize), as_list(f.stride), as_list(f.pad)


def _max_pooling(params):
    f = params.func
    ksize, stride, pad = _geometry(f)
    if getattr(f, 'return_indices', False):
        raise unsupported(params, 'return_indices')
    end = list(pad)
    attrs = {}
    if f.cover_all:
        # Chainer's cover_all is ONNX's ceil_mode; before opset 10 the same
        # windows come from padding the end (max pooling ignores padding)
        if params.opset_version >= 10:
            attrs['ceil_mode'] = 1
        else:
            end = [p + s - 1 for p, s in zip(pad, stride)]
    return node(params, 'MaxPool', kernel_shape=ksize, strides=stride,
                pads=pad + end, **attrs)


def _average_pooling(params):
    f = params.func
    ksize, stride, pad = _geometry(f)
    include = getattr(f, 'pad_value', 0) is not None
    return node(params, 'AveragePool', kernel_shape=ksize, strides=stride,
                pads=pad + pad, count_include_pad=int(include))


CONVERTERS = {
    'MaxPooling2D': _max_pooling,
    'MaxPoolingND': _max_pooling,
    'AveragePooling2D': _average_pooling,
    'AveragePoolingND': _average_pooling,
}
