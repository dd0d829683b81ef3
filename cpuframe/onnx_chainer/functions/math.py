"""Arithmetic, elementwise math and reductions."""
import numpy

from cpuframe.onnx_chainer.functions._common import (
    GraphBuilder,
    const,
    node,
    reduce_node,
    simple,
    unsupported,
)
from cpuframe.onnx_chainer.functions.activation import _clip_nodes


def _value(params):
    # the constant operand, in the dtype the function computed with
    return numpy.asarray(params.func.value, params.func.inputs[0].dtype)


def _with_const(op, const_first=False):
    def convert(params):
        c = const(params, _value(params), 'value')
        x = params.input_names[0]
        return node(params, op, [c, x] if const_first else [x, c])
    return convert


def _square(params):
    x = params.input_names[0]
    return node(params, 'Mul', [x, x])


def _sum(params):
    return reduce_node(params, 'ReduceSum', params.func._axis,
                       params.func.keepdims)


def _reduce(op):
    def convert(params):
        return reduce_node(params, op, getattr(params.func, '_axis', None),
                           getattr(params.func, 'keepdims', False))
    return convert


def _matmul(params):
    f = params.func
    gb = GraphBuilder()
    names = []
    for name, node_, trans in zip(params.input_names, f.inputs,
                                  (f.transa, f.transb)):
        if trans:
            nd = len(node_.shape)
            perm = list(range(nd - 2)) + [nd - 1, nd - 2]
            name = gb.op('Transpose', [name], perm=perm)
        names.append(name)
    gb.op('MatMul', names)
    return gb.nodes(params.output_names)


def _clip(params):
    return _clip_nodes(params, params.input_names[0], params.func.x_min,
                       params.func.x_max, params.func.inputs[0].dtype)


CONVERTERS = {
    'Add': simple('Add'),
    'Sub': simple('Sub'),
    'Mul': simple('Mul'),
    'Div': simple('Div'),
    'Neg': simple('Neg'),
    'Absolute': simple('Abs'),
    'Exp': simple('Exp'),
    'Log': simple('Log'),
    'Sqrt': simple('Sqrt'),
    'Square': _square,
    'AddConstant': _with_const('Add'),
    'MulConstant': _with_const('Mul'),
    '_DivByConstant': _with_const('Div'),
    'SubFromConstant': _with_const('Sub', const_first=True),
    'DivFromConstant': _with_const('Div', const_first=True),
    'PowVarConst': _with_const('Pow'),
    'PowConstVar': _with_const('Pow', const_first=True),
    'PowVarVar': simple('Pow'),
    'Maximum': simple('Max'),
    'Minimum': simple('Min'),
    'Sum': _sum,
    'Max': _reduce('ReduceMax'),
    'Min': _reduce('ReduceMin'),
    'MatMul': _matmul,
    'Clip': _clip,
}


def _arg(op):
    def convert(params):
        f = params.func
        gb = GraphBuilder()
        x = params.input_names[0]
        axis = f.axis
        if axis is None:
            flat = const(params, numpy.asarray([-1], numpy.int64), 'shape')
            x = gb.op('Reshape', [x, flat])
            axis = 0
        idx = gb.op(op, [x], axis=int(axis), keepdims=0)
        # Chainer's index is int32, ONNX's int64
        gb.op('Cast', [idx], to=onnx_int32)
        return gb.nodes(params.output_names)
    return convert


onnx_int32 = 6  # TensorProto.INT32

CONVERTERS.update({
    'ArgMax': _arg('ArgMax'),
    'ArgMin': _arg('ArgMin'),
    'Prod': _reduce('ReduceProd'),
    'LogSumExp': _reduce('ReduceLogSumExp'),
})


# -- the trigonometric and logarithmic family ---------------------------------

def _after(op, opset):
    """One ONNX op, from the opset that has it."""
    def convert(params):
        if params.opset_version < opset:
            raise unsupported(params, '{} needs opset {}'.format(op, opset))
        return node(params, op)
    return convert


def _dtype(params):
    return params.func.inputs[0].dtype


def _log_base(base):
    # log_b(x) = ln(x) / ln(b), in the function's dtype
    def convert(params):
        gb = GraphBuilder()
        c = const(params, numpy.log(numpy.asarray(base, _dtype(params))),
                  'ln_base')
        gb.op('Div', [gb.op('Log', [params.input_names[0]]), c])
        return gb.nodes(params.output_names)
    return convert


def _log1p(params):
    gb = GraphBuilder()
    one = const(params, numpy.asarray(1, _dtype(params)), 'one')
    gb.op('Log', [gb.op('Add', [params.input_names[0], one])])
    return gb.nodes(params.output_names)


def _expm1(params):
    gb = GraphBuilder()
    one = const(params, numpy.asarray(1, _dtype(params)), 'one')
    gb.op('Sub', [gb.op('Exp', [params.input_names[0]]), one])
    return gb.nodes(params.output_names)


def _rsqrt(params):
    gb = GraphBuilder()
    gb.op('Reciprocal', [gb.op('Sqrt', [params.input_names[0]])])
    return gb.nodes(params.output_names)


def _linear_interpolate(params):
    # p * x + (1 - p) * y
    p, x, y = params.input_names
    gb = GraphBuilder()
    one = const(params, numpy.asarray(1, _dtype(params)), 'one')
    gb.op('Add', [gb.op('Mul', [p, x]),
                  gb.op('Mul', [gb.op('Sub', [one, p]), y])])
    return gb.nodes(params.output_names)


CONVERTERS.update({
    'Sin': simple('Sin'),
    'Cos': simple('Cos'),
    'Tan': simple('Tan'),
    'Arcsin': simple('Asin'),
    'Arccos': simple('Acos'),
    'Arctan': simple('Atan'),
    'Arctanh': _after('Atanh', 9),
    'Sinh': _after('Sinh', 9),
    'Cosh': _after('Cosh', 9),
    'Erf': _after('Erf', 9),
    'Log2': _log_base(2),
    'Log10': _log_base(10),
    'Log1p': _log1p,
    'Expm1': _expm1,
    'Rsqrt': _rsqrt,
    'LinearInterpolate': _linear_interpolate,
})
