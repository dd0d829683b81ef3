"""Dropout."""
import numpy

from cpuframe.onnx_chainer.functions._common import const, node


def _dropout(params):
    ratio = float(params.func.dropout_ratio)
    if params.opset_version >= 12:
        r = const(params, numpy.asarray(ratio, numpy.float32), 'ratio')
        return node(params, 'Dropout', [params.input_names[0], r])
    return node(params, 'Dropout', ratio=ratio)


CONVERTERS = {'Dropout': _dropout}
