"""Losses."""
import numpy

from cpuframe.onnx_chainer.functions._common import (
    GraphBuilder,
    const,
    onnx_float_type,
    reduce_op,
    unsupported,
)


def _softmax_cross_entropy(params):
    """Chainer's softmax cross entropy of 2-D scores and integer labels, of
    ops every opset has: the log-softmax picked by a one-hot of the labels
    (``Equal`` against the class numbers), zero where the label is
    ``ignore_label``; the mean over the counted samples (``normalize``),
    over the batch, or per sample (``reduce='no'``)."""
    f = params.func
    x_node, t_node = f.inputs
    if len(x_node.shape) != 2:
        raise unsupported(params, 'scores of {} dimensions (2 are '
                          'exported)'.format(len(x_node.shape)))
    if numpy.dtype(t_node.dtype).kind not in 'iu':
        raise unsupported(params, 'soft (float) targets')
    if f.class_weight is not None:
        raise unsupported(params, 'class_weight')
    n, c = (int(v) for v in x_node.shape)
    dtype = x_node.dtype
    to = onnx_float_type(dtype)
    x, t = params.input_names
    gb = GraphBuilder()
    t_dtype = numpy.dtype(t_node.dtype)
    if t_dtype not in (numpy.dtype(numpy.int32), numpy.dtype(numpy.int64)):
        t = gb.op('Cast', [t], to=7)  # Equal takes int32/int64
        t_dtype = numpy.dtype(numpy.int64)
    log_p = gb.op('LogSoftmax', [x], axis=1)
    classes = const(params, numpy.arange(c, dtype=t_dtype).reshape(1, c),
                    'classes')
    column = gb.op('Reshape', [t, const(
        params, numpy.asarray([-1, 1], numpy.int64), 'shape')])
    one_hot = gb.op('Cast', [gb.op('Equal', [column, classes])], to=to)
    picked = reduce_op(params, gb, 'ReduceSum',
                       gb.op('Mul', [log_p, one_hot]), [1], False)
    ignore = const(params, numpy.asarray(f.ignore_label, t_dtype),
                   'ignore_label')
    counted = gb.op('Cast', [gb.op('Not', [gb.op('Equal', [t, ignore])])],
                    to=to)
    loss = gb.op('Mul', [gb.op('Neg', [picked]), counted])
    if f.reduce == 'no':
        gb.op('Identity', [loss])
        return gb.nodes(params.output_names)
    total = reduce_op(params, gb, 'ReduceSum', loss, None, False)
    if f.normalize:
        count = reduce_op(params, gb, 'ReduceSum', counted, None, False)
        one = const(params, numpy.asarray(1, dtype), 'one')
        gb.op('Div', [total, gb.op('Max', [count, one])])
    else:
        gb.op('Div', [total, const(params, numpy.asarray(n, dtype), 'batch')])
    return gb.nodes(params.output_names)


CONVERTERS = {
    'SoftmaxCrossEntropy': _softmax_cross_entropy,
}
