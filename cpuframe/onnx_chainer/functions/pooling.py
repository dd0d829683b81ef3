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


def _unpooling_2d(params):
    """Unpooling with the window its stride (the usual use): each value
    repeated ``stride`` times along each axis (Reshape, Tile, Reshape), cut
    to the output size (``cover_all`` drops the last ``stride - 1``)."""
    import numpy

    from cpuframe.onnx_chainer.functions._common import (
        GraphBuilder,
        const,
        slice_op,
    )
    f = params.func
    if tuple(f.ksize) != tuple(f.stride) or any(p_ != 0 for p_ in f.pad):
        raise unsupported(params, 'ksize {} with stride {} and pad {} (the '
                          'window equal to the stride, no padding, is '
                          'exported)'.format(f.ksize, f.stride, f.pad))
    n, c, h, w = (int(v) for v in f.inputs[0].shape)
    sy, sx = (int(v) for v in f.stride)
    out_h, out_w = (int(v) for v in f._output_meta[0][0][2:])
    if out_h > h * sy or out_w > w * sx:
        raise unsupported(params, 'an output larger than the repeated input')
    gb = GraphBuilder()
    x = gb.op('Reshape', [params.input_names[0], const(
        params, numpy.asarray([0, 0, h, 1, w, 1], numpy.int64), 'shape')])
    x = gb.op('Tile', [x, const(params, numpy.asarray(
        [1, 1, 1, sy, 1, sx], numpy.int64), 'repeats')])
    x = gb.op('Reshape', [x, const(params, numpy.asarray(
        [0, 0, h * sy, w * sx], numpy.int64), 'shape')])
    if (out_h, out_w) != (h * sy, w * sx):
        x = slice_op(params, gb, x, [0, 0], [out_h, out_w], [2, 3])
    else:
        x = gb.op('Identity', [x])
    return gb.nodes(params.output_names)


CONVERTERS['Unpooling2D'] = _unpooling_2d


def _roi_pooling_2d(params):
    """ROI max pooling (rows ``(batch index, x_min, y_min, x_max, y_max)``)
    as ONNX's MaxRoiPool, which bins as Chainer does but rounds the scaled
    coordinates half away from zero where Chainer rounds half to even: the
    coordinates are scaled and rounded (``Round``, half to even, opset 11)
    in the graph, and MaxRoiPool reads them at scale 1."""
    import numpy

    from cpuframe.onnx_chainer.functions._common import (
        GraphBuilder,
        const,
        slice_op,
    )
    f = params.func
    if params.opset_version < 11:
        raise unsupported(params, "Chainer's rounding of the scaled "
                          'coordinates (half to even) needs Round, opset 11')
    x, rois = params.input_names
    dtype = f.inputs[1].dtype
    gb = GraphBuilder()

    def columns(lo, hi):
        return slice_op(params, gb, rois, [lo], [hi], [1])
    scale = const(params, numpy.asarray(f.spatial_scale, dtype), 'scale')
    corners = gb.op('Round', [gb.op('Mul', [columns(1, 5), scale])])
    rounded = gb.op('Concat', [columns(0, 1), corners], axis=1)
    gb.op('MaxRoiPool', [x, rounded],
          pooled_shape=[int(f.outh), int(f.outw)], spatial_scale=1.0)
    return gb.nodes(params.output_names)


CONVERTERS['ROIPooling2D'] = _roi_pooling_2d
