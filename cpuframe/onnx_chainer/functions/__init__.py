"""The built-in converters, keyed by function node class name (Chainer's
``onnx_chainer.functions``). A converter takes
:class:`~cpuframe.onnx_chainer.export.FunctionConverterParams` and returns
the ONNX nodes computing the function's outputs from its inputs."""
from cpuframe.onnx_chainer.functions import (
    activation,
    array,
    connection,
    loss,
    math,
    noise,
    normalization,
    pooling,
    rnn,
)

converters = {}
for _module in (activation, array, connection, loss, math, normalization,
                noise, pooling, rnn):
    converters.update(_module.CONVERTERS)

__all__ = ['converters']
