"""Normalizations."""
from cpuframe.onnx_chainer.functions._common import node, unsupported


def _fixed_batch_normalization(params):
    if getattr(params.func, 'axis', None) not in (None, (0, 2, 3), (0,)):
        raise unsupported(params, 'axis={!r}'.format(params.func.axis))
    return node(params, 'BatchNormalization', epsilon=float(params.func.eps))


def _batch_normalization(params):
    raise unsupported(params, 'batch statistics (train mode): export with '
                      'train=False, where the running averages are used')


def _lrn(params):
    f = params.func
    return node(params, 'LRN', size=int(f.n), bias=float(f.k),
                alpha=float(f.alpha) * int(f.n), beta=float(f.beta))


CONVERTERS = {
    'FixedBatchNormalization': _fixed_batch_normalization,
    'BatchNormalization': _batch_normalization,
    'LocalResponseNormalization': _lrn,
}


def _normalize_l2(params):
    import numpy

    from cpuframe.onnx_chainer.functions._common import GraphBuilder, const
    f = params.func
    dtype = f.inputs[0].dtype
    gb = GraphBuilder()
    x = params.input_names[0]
    # sqrt(sum(x * x)) + eps, as the NumPy path computes it
    sq = gb.op('Mul', [x, x])
    axes = [int(a) for a in f._axes]
    if params.opset_version >= 13:
        s = gb.op('ReduceSum', [sq, const(params, numpy.asarray(
            axes, numpy.int64), 'axes')], keepdims=1)
    else:
        s = gb.op('ReduceSum', [sq], axes=axes, keepdims=1)
    norm = gb.op('Sqrt', [s])
    norm = gb.op('Add', [norm, const(params, numpy.asarray(f.eps, dtype),
                                     'eps')])
    gb.op('Div', [x, norm])
    return gb.nodes(params.output_names)


CONVERTERS['NormalizeL2'] = _normalize_l2


def _group_normalization(params):
    """Chainer's group normalization of its parts: per sample and group,
    ``(x - mean) / sqrt(var + eps)`` over the group's channels and pixels,
    then ``gamma``, ``beta`` per channel."""
    import numpy

    from cpuframe.onnx_chainer.functions._common import (
        GraphBuilder,
        const,
        reduce_op,
    )
    f = params.func
    shape = tuple(int(v) for v in f.inputs[0].shape)
    dtype = f.inputs[0].dtype
    x, gamma, beta = params.input_names
    gb = GraphBuilder()
    grouped = gb.op('Reshape', [x, const(params, numpy.asarray(
        [0, int(f.groups), -1], numpy.int64), 'shape')])
    mean = reduce_op(params, gb, 'ReduceMean', grouped, [2], True)
    d = gb.op('Sub', [grouped, mean])
    var = reduce_op(params, gb, 'ReduceMean', gb.op('Mul', [d, d]), [2], True)
    eps = const(params, numpy.asarray(f.eps, dtype), 'eps')
    y = gb.op('Div', [d, gb.op('Sqrt', [gb.op('Add', [var, eps])])])
    y = gb.op('Reshape', [y, const(params, numpy.asarray(
        (0,) + shape[1:], numpy.int64), 'shape')])
    per_channel = const(params, numpy.asarray(
        (shape[1],) + (1,) * (len(shape) - 2), numpy.int64), 'shape')
    y = gb.op('Mul', [y, gb.op('Reshape', [gamma, per_channel])])
    gb.op('Add', [y, gb.op('Reshape', [beta, per_channel])])
    return gb.nodes(params.output_names)


CONVERTERS['GroupNormalization'] = _group_normalization
