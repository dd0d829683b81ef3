"""What the converters share."""
import numpy

from cpuframe.onnx_chainer import onnx_helper
from cpuframe.onnx_chainer.onnx_helper import GraphBuilder  # noqa: F401


def unsupported(params, why):
    """The error for a function this converter cannot export as called."""
    return ValueError('onnx_chainer.export: {} ({}) is not supported at '
                      'opset {}: {}'.format(
                          type(params.func).__name__,
                          onnx_helper.get_func_name(), params.opset_version,
                          why))


def simple(op):
    """The converter to one ONNX op of the same inputs, no attributes."""
    def convert(params):
        return node(params, op)
    return convert


def node(params, op, inputs=None, **attrs):
    """One node computing the function's outputs."""
    return onnx_helper.make_node(
        op, params.input_names if inputs is None else inputs,
        params.output_names, **attrs),


def const(params, value, name, dtype=None):
    """A Constant node's name for ``value`` (added before the function's
    nodes)."""
    array = numpy.asarray(value, dtype=dtype)
    return params.context.add_const(array, name)


def ints_input(params, values, name, opset_from):
    """An int64 list given as an input from ``opset_from`` on: its name, or
    None before (the caller then gives an attribute)."""
    if params.opset_version >= opset_from:
        return const(params, numpy.asarray(values, numpy.int64), name)
    return None


def reduce_node(params, op, axes, keepdims, input_name=None):
    """A Reduce* node over ``axes`` (None: all), as an attribute before
    the opset that takes them as an input (13 for ReduceSum, 18 for the
    others)."""
    x = params.input_names[0] if input_name is None else input_name
    first_input_opset = 13 if op == 'ReduceSum' else 18
    kw = {'keepdims': int(bool(keepdims))}
    if axes is None:
        return node(params, op, [x], **kw)
    axes = [int(a) for a in axes]
    if params.opset_version >= first_input_opset:
        name = const(params, numpy.asarray(axes, numpy.int64), 'axes')
        return node(params, op, [x, name], **kw)
    return node(params, op, [x], axes=axes, **kw)


def reduce_op(params, gb, op, x, axes, keepdims):
    """A Reduce* node of ``x`` over ``axes`` inside a GraphBuilder (axes as
    an attribute or an input by opset, as ``reduce_node``); its output
    name."""
    first_input_opset = 13 if op == 'ReduceSum' else 18
    kw = {'keepdims': int(bool(keepdims))}
    if axes is None:
        return gb.op(op, [x], **kw)
    axes = [int(a) for a in axes]
    if params.opset_version >= first_input_opset:
        name = const(params, numpy.asarray(axes, numpy.int64), 'axes')
        return gb.op(op, [x, name], **kw)
    return gb.op(op, [x], axes=axes, **kw)


def onnx_float_type(dtype):
    """The TensorProto element type of a NumPy float dtype (for Cast)."""
    return {2: 10, 4: 1, 8: 11}[numpy.dtype(dtype).itemsize]


def slice_op(params, gb, x, starts, ends, axes, steps=None):
    """A Slice of ``x`` inside a GraphBuilder, its output name: starts,
    ends, axes (and steps) as inputs from opset 10, as attributes before
    (where a step other than 1 cannot be said: that raises)."""
    if params.opset_version >= 10:
        values = [(starts, 'starts'), (ends, 'ends'), (axes, 'axes')]
        if steps is not None:
            values.append((steps, 'steps'))
        names = [const(params, numpy.asarray(v, numpy.int64), k)
                 for v, k in values]
        return gb.op('Slice', [x] + names)
    if steps is not None and any(st != 1 for st in steps):
        raise unsupported(params, 'a step other than 1 needs opset 10')
    return gb.op('Slice', [x], starts=list(starts), ends=list(ends),
                 axes=list(axes))
