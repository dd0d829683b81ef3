"""Activations."""
import numpy

from cpuframe.onnx_chainer.functions._common import (
    GraphBuilder,
    const,
    node,
    simple,
    unsupported,
)


def _softmax(op):
    def convert(params):
        axis = params.func.axis
        ndim = len(params.func.inputs[0].shape)
        axis = axis % ndim
        if params.opset_version >= 13 or axis == ndim - 1:
            return node(params, op, axis=axis)
        # before opset 13 the op works on the axes from `axis` on, flattened:
        # move `axis` last, apply, move it back
        perm = [a for a in range(ndim) if a != axis] + [axis]
        back = [perm.index(a) for a in range(ndim)]
        gb = GraphBuilder()
        t = gb.op('Transpose', [params.input_names[0]], perm=perm)
        s = gb.op(op, [t], axis=ndim - 1)
        gb.op('Transpose', [s], perm=back)
        return gb.nodes(params.output_names)
    return convert


def _leaky_relu(params):
    return node(params, 'LeakyRelu', alpha=float(params.func.slope))


def _elu(params):
    return node(params, 'Elu', alpha=float(params.func.alpha))


def _hard_sigmoid(params):
    return node(params, 'HardSigmoid', alpha=0.2, beta=0.5)


def _clip_nodes(params, x, lo, hi, dtype):
    if params.opset_version >= 11:
        names = [x, const(params, numpy.asarray(lo, dtype), 'min'),
                 const(params, numpy.asarray(hi, dtype), 'max')]
        return node(params, 'Clip', names)
    return node(params, 'Clip', [x], min=float(lo), max=float(hi))


def _clipped_relu(params):
    dtype = params.func.inputs[0].dtype
    return _clip_nodes(params, params.input_names[0], 0.0,
                       params.func.cap, dtype)


def _softplus(params):
    beta = float(params.func.beta)
    if beta == 1.0:
        return node(params, 'Softplus')
    dtype = params.func.inputs[0].dtype
    b = const(params, numpy.asarray(beta, dtype), 'beta')
    gb = GraphBuilder()
    bx = gb.op('Mul', [params.input_names[0], b])
    sp = gb.op('Softplus', [bx])
    gb.op('Div', [sp, b])
    return gb.nodes(params.output_names)


def _prelu(params):
    x_shape = params.func.inputs[0].shape
    w_shape = params.func.inputs[1].shape
    # Chainer's slope applies from axis 1; ONNX broadcasts from the end
    trailing = len(x_shape) - 1 - len(w_shape)
    if trailing <= 0:
        return node(params, 'PRelu')
    if params.opset_version < 7:
        raise unsupported(params, 'needs opset 7')
    shape = const(params, numpy.asarray(tuple(w_shape) + (1,) * trailing,
                                        numpy.int64), 'shape')
    gb = GraphBuilder()
    w = gb.op('Reshape', [params.input_names[1], shape])
    gb.op('PRelu', [params.input_names[0], w])
    return gb.nodes(params.output_names)


CONVERTERS = {
    'ReLU': simple('Relu'),
    'Sigmoid': simple('Sigmoid'),
    'Tanh': simple('Tanh'),
    'LeakyReLU': _leaky_relu,
    'ELU': _elu,
    'HardSigmoid': _hard_sigmoid,
    'ClippedReLU': _clipped_relu,
    'Softplus': _softplus,
    'PReLUFunction': _prelu,
    'Softmax': _softmax('Softmax'),
    'LogSoftmax': _softmax('LogSoftmax'),
}
