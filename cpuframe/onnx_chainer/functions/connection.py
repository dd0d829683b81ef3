"""Linear, convolution and embedding."""
from cpuframe.onnx_chainer.functions._common import GraphBuilder, node, unsupported


def _linear(params):
    x, w = params.input_names[:2]
    if len(params.input_names) == 3 or params.opset_version >= 11:
        return node(params, 'Gemm', transA=0, transB=1, alpha=1.0, beta=1.0)
    gb = GraphBuilder()
    wt = gb.op('Transpose', [w], perm=[1, 0])
    gb.op('MatMul', [x, wt])
    return gb.nodes(params.output_names)


def _pairs(value, nd):
    return list(value) if isinstance(value, (tuple, list)) else [value] * nd


def _convolution(params):
    f = params.func
    nd = len(f.inputs[0].shape) - 2
    ksize = list(f.inputs[1].shape[2:])
    stride = [int(s) for s in _pairs(f.stride, nd)]
    pad = [int(p) for p in _pairs(f.pad, nd)]
    dilate = [int(d) for d in _pairs(getattr(f, 'dilate', 1), nd)]
    cover_all = _pairs(getattr(f, '_cover_all', getattr(f, 'cover_all', False)),
                       nd)
    # cover_all: the last window may run past the end; as much more zero
    # padding at the end gives the same windows
    end = [p + (s - 1 if c else 0) for p, s, c in zip(pad, stride, cover_all)]
    return node(params, 'Conv', kernel_shape=ksize, strides=stride,
                pads=pad + end, dilations=dilate,
                group=int(getattr(f, 'groups', 1)))


def _embed_id(params):
    if getattr(params.func, 'ignore_label', None) is not None:
        raise unsupported(params, 'ignore_label is not exported')
    x, w = params.input_names
    return node(params, 'Gather', [w, x], axis=0)


CONVERTERS = {
    'LinearFunction': _linear,
    'Convolution2DFunction': _convolution,
    'ConvolutionND': _convolution,
    'EmbedIDFunction': _embed_id,
}


def _deconvolution(params):
    f = params.func
    x_shape = f.inputs[0].shape
    nd = len(x_shape) - 2
    ksize = list(f.inputs[1].shape[2:])
    stride = [int(s) for s in _pairs(f.stride, nd)]
    pad = [int(p) for p in _pairs(f.pad, nd)]
    dilate = [int(d) for d in _pairs(getattr(f, 'dilate', 1), nd)]
    out = f._output_meta[0][0][2:]
    # ONNX's output size without output_padding; Chainer's outsize may add
    # up to stride - 1 at the end
    extra = [int(o) - ((i - 1) * s + (k - 1) * d + 1 - 2 * p)
             for o, i, s, k, d, p in zip(out, x_shape[2:], stride, ksize,
                                         dilate, pad)]
    if any(e < 0 or e >= s for e, s in zip(extra, stride)):
        raise unsupported(params, 'outsize {}'.format(tuple(out)))
    attrs = {}
    if any(extra):
        attrs['output_padding'] = extra
    return node(params, 'ConvTranspose', kernel_shape=ksize, strides=stride,
                pads=pad + pad, dilations=dilate,
                group=int(getattr(f, 'groups', 1)), **attrs)


CONVERTERS.update({
    'Deconvolution2DFunction': _deconvolution,
    'DeconvolutionND': _deconvolution,
})
