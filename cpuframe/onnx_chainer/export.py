"""``onnx_chainer.export``: trace one forward and write it as ONNX."""
import collections
import io
import os
import warnings

import numpy
import onnx
from onnx import checker, helper

import cpuframe
from cpuframe import backend
from cpuframe.function_hook import FunctionHook
from cpuframe.onnx_chainer import onnx_helper
from cpuframe.onnx_chainer.context import Context, to_numpy
from cpuframe.onnx_chainer.functions import converters as _converters
from cpuframe.variable import Variable

#: The opsets export writes: 7 (Chainer's lowest) through the newest the
#: installed ``onnx`` knows.
MINIMUM_OPSET_VERSION = 7
MAXIMUM_OPSET_VERSION = int(onnx.defs.onnx_opset_version())


class FunctionConverterParams:
    """What a converter is given (Chainer's): the function node ``func``,
    the ``opset_version``, the ONNX names of its inputs and outputs, and
    the export's ``context`` (``add_param``, ``add_const``, ``get_name``)."""

    def __init__(self, func, opset_version, input_names, output_names,
                 context):
        self.func = func
        self.opset_version = opset_version
        self.input_names = input_names
        self.output_names = output_names
        self.context = context


class RetainInputHook(FunctionHook):
    """Keeps every function node applied under it, in execution order, and
    the input arrays each read, alive and at hand (Chainer's exporter hook
    of this name: a function's input nodes hold their arrays only weakly,
    and a temporary's would be gone by the time the graph is converted).

    ``order``: the function nodes; ``in_data``: ``{id(node): arrays}``.
    """

    name = 'onnx_chainer_retain_input'

    def __init__(self):
        self.order = []
        self.in_data = {}

    def forward_postprocess(self, function, in_data):
        self.order.append(function)
        self.in_data[id(function)] = tuple(in_data)


class _Recorder(RetainInputHook):
    """The exporter's trace: what RetainInputHook keeps (a constant input's
    values are needed to export it)."""

    name = 'onnx_chainer_recorder'


def _is_array(x):
    return backend.is_array(x)


def _as_variables(args):
    """``(names given by position/key, Variables, call)`` for ``args``."""
    if isinstance(args, tuple):
        args = list(args)
    if isinstance(args, list):
        vs = [a if isinstance(a, Variable) else Variable(a) for a in args]
        return list(range(len(vs))), vs, lambda m: m(*vs)
    if isinstance(args, dict):
        keys = list(args)
        vs = [args[k] if isinstance(args[k], Variable) else Variable(args[k])
              for k in keys]
        return keys, vs, lambda m: m(**dict(zip(keys, vs)))
    if isinstance(args, Variable) or _is_array(args):
        v = args if isinstance(args, Variable) else Variable(args)
        return None, [v], lambda m: m(v)
    raise ValueError(
        'onnx_chainer.export: args must be an array, a Variable, or a list, '
        'tuple or dict of them; got {}'.format(type(args).__name__))


def _names(given, keys, count, prefix, what):
    """The graph names of ``count`` inputs or outputs (``keys``: their
    positions or dict keys, None for a single one)."""
    if given is None:
        return ['{}_{}'.format(prefix, i) for i in range(count)]
    if isinstance(given, str):
        given = [given]
    if isinstance(given, dict):
        if keys is None or any(k not in given for k in keys) or \
                len(given) != count:
            raise ValueError(
                'onnx_chainer.export: {} names {} do not match the {} keys '
                '{}'.format(what, sorted(given), what, keys))
        return [given[k] for k in keys]
    if not isinstance(given, (list, tuple)) or len(given) != count:
        raise ValueError(
            'onnx_chainer.export: expected {} {} name(s), got {!r}'.format(
                count, what, given))
    return list(given)


def _shapes(input_shapes, keys, variables):
    """The graph input shapes (``input_shapes`` checked before any work)."""
    if input_shapes is None:
        return [tuple(v.shape) for v in variables]
    if isinstance(input_shapes, dict):
        if keys is None or set(input_shapes) != set(keys):
            raise ValueError('onnx_chainer.export: input_shapes keys {} do '
                             'not match the inputs {}'.format(
                                 sorted(input_shapes), keys))
        shapes = [input_shapes[k] for k in keys]
    elif isinstance(input_shapes, tuple) and keys is None:
        shapes = [input_shapes]
    elif isinstance(input_shapes, list):
        shapes = input_shapes
    else:
        raise ValueError('onnx_chainer.export: input_shapes must be a tuple '
                         '(one input), a list or a dict, got {!r}'.format(
                             input_shapes))
    if len(shapes) != len(variables):
        raise ValueError('onnx_chainer.export: {} input shapes for {} '
                         'inputs'.format(len(shapes), len(variables)))
    for i, (shape, v) in enumerate(zip(shapes, variables)):
        if len(shape) != v.ndim:
            raise ValueError(
                'onnx_chainer.export: input_shapes[{}] = {} has {} axes, the '
                'input has {} ({})'.format(i, shape, len(shape), v.ndim,
                                           v.shape))
    return [tuple(s) for s in shapes]


def _outputs(outputs):
    """``(keys, Variables)`` of what the model returned."""
    if isinstance(outputs, Variable):
        return None, [outputs]
    if isinstance(outputs, (list, tuple)):
        keys, vs = list(range(len(outputs))), list(outputs)
    elif isinstance(outputs, dict):
        keys, vs = list(outputs), list(outputs.values())
    else:
        vs, keys = [outputs], None
    for v in vs:
        if not isinstance(v, Variable):
            raise ValueError(
                'onnx_chainer.export: the model returned {} where a Variable '
                'was expected: an output computed outside the graph (an array) '
                'cannot be exported'.format(type(v).__name__))
    return keys, vs


def _value_info(name, dtype, shape):
    dims = [d if isinstance(d, (int, numpy.integer)) else
            (d if isinstance(d, str) else None) for d in shape]
    elem = helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))
    return helper.make_tensor_value_info(name, elem, dims)


def _opset(opset_version):
    if opset_version is None:
        return MAXIMUM_OPSET_VERSION
    if not isinstance(opset_version, (int, numpy.integer)) or \
            not MINIMUM_OPSET_VERSION <= opset_version <= \
            MAXIMUM_OPSET_VERSION:
        raise ValueError(
            'onnx_chainer.export: opset_version must lie in [{}, {}] (the '
            'installed onnx knows up to {}), got {!r}'.format(
                MINIMUM_OPSET_VERSION, MAXIMUM_OPSET_VERSION,
                MAXIMUM_OPSET_VERSION, opset_version))
    return int(opset_version)


def export(model, args, filename=None, export_params=True, graph_name='Graph',
           save_text=False, opset_version=None, input_names=None,
           output_names=None, train=False, return_named_inout=False,
           external_converters=None, external_opset_imports=None,
           input_shapes=None, no_testcase=False):
    """Export ``model`` as an ONNX ``ModelProto`` (Chainer 7's API).

    ``model(*args)`` (``model(**args)`` for a dict, ``model(args)`` for one
    array or Variable) runs once in ``train`` mode or not; its graph, from
    the arguments to the returned Variable(s), becomes the ONNX graph.
    Parameters become initializers named ``param_<path>`` (graph inputs
    instead with ``export_params=False``); inputs are ``Input_<i>`` unless
    ``input_names`` (a str, list or dict) says; outputs keep the names of
    the nodes that made them (``LinearFunction_2``) unless ``output_names``
    says. ``input_shapes`` sets the graph's input shapes (a str or None
    axis is dynamic). ``opset_version``: 7 up to the installed onnx's
    newest (the default). ``external_converters`` (converters keyed by
    function class name) replace or add to the built-in ones, with
    ``external_opset_imports`` (``{domain: version}``) for their domains.
    An unsupported function, a bad name or shape list, or an output that
    is not a Variable raises before anything is written. The model is
    checked with ``onnx.checker``; with ``filename`` (a path or a binary
    file) it is saved, and with ``save_text`` also as text beside it.
    Returns the model, or ``(model, inputs, outputs)`` (ordered dicts of
    Variables by graph name) with ``return_named_inout``.
    """
    if not no_testcase:
        warnings.warn('Exporting ONNX without testcases is deprecated',
                      DeprecationWarning, stacklevel=2)
    opset = _opset(opset_version)
    keys, in_vars, call = _as_variables(args)
    in_names = _names(input_names, keys, len(in_vars), 'Input', 'input')
    shapes = _shapes(input_shapes, keys, in_vars)
    converters = dict(_converters)
    converters.update(external_converters or {})

    recorder = _Recorder()
    with cpuframe.using_config('train', train), \
            cpuframe.using_config('enable_backprop', True), recorder:
        outputs = call(model)
    out_keys, out_vars = _outputs(outputs)
    given_out = None if output_names is None else _names(
        output_names, out_keys, len(out_vars), 'Output', 'output')

    context = Context(model)
    for v, name in zip(in_vars, in_names):
        context.set_name(v, name, pinned=True)
    if given_out is not None:
        for v, name in zip(out_vars, given_out):
            context.set_name(v, name, pinned=True)

    nodes = _convert(recorder, out_vars, in_vars, context, converters, opset)
    used = {name for node in nodes for name in node.input}

    params, param_inputs = [], []
    for name, p in sorted(model.namedparams()) \
            if hasattr(model, 'namedparams') else ():
        onnx_name = onnx_helper.cleanse_param_name(name)
        if onnx_name not in used or p.array is None:
            continue
        if export_params:
            params.append((onnx_name, to_numpy(p.array)))
        else:
            param_inputs.append(_value_info(onnx_name, p.dtype, p.shape))
    initializers = [onnx.numpy_helper.from_array(a, n)
                    for n, a in params + context.parameters]
    graph_inputs = [_value_info(n, v.dtype, s)
                    for n, v, s in zip(in_names, in_vars, shapes)]
    graph_inputs += param_inputs
    dynamic = input_shapes is not None and any(
        not isinstance(d, (int, numpy.integer)) for s in shapes for d in s)
    out_names = [context.get_name(v.node) for v in out_vars]
    graph_outputs = [_value_info(n, v.dtype, [None] * v.ndim if dynamic
                                 else v.shape)
                     for n, v in zip(out_names, out_vars)]
    graph = helper.make_graph(nodes, graph_name, graph_inputs, graph_outputs,
                              initializer=initializers)
    imports = [helper.make_opsetid('', opset)]
    for domain, version in (external_opset_imports or {}).items():
        imports.append(helper.make_opsetid(domain, version))
    onnx_model = helper.make_model(
        graph, opset_imports=imports, producer_name='cpuframe',
        producer_version=cpuframe.__version__)
    onnx_model.ir_version = helper.find_min_ir_version_for(
        list(onnx_model.opset_import), ignore_unknown=True)
    if onnx_model.ir_version < 4:
        # before IR 4 every initializer is also a graph input
        onnx_model.graph.input.extend(
            _value_info(t.name, onnx.helper.tensor_dtype_to_np_dtype(
                t.data_type), t.dims) for t in initializers)
    checker.check_model(onnx_model)

    if filename is not None:
        _save(onnx_model, filename, save_text)
    if return_named_inout:
        return (onnx_model,
                collections.OrderedDict(zip(in_names, in_vars)),
                collections.OrderedDict(zip(out_names, out_vars)))
    return onnx_model


def _save(onnx_model, filename, save_text):
    data = onnx_model.SerializeToString()
    if isinstance(filename, (str, os.PathLike)):
        with open(filename, 'wb') as f:
            f.write(data)
        if save_text:
            with open(str(filename) + '.txt', 'w') as f:
                f.write(str(onnx_model))
    elif isinstance(filename, io.IOBase) or hasattr(filename, 'write'):
        filename.write(data)
    else:
        raise ValueError('onnx_chainer.export: filename must be a path or a '
                         'file, got {!r}'.format(filename))


def _reachable(out_vars):
    """The function nodes some output depends on."""
    found = set()
    stack = [v.node.creator_node for v in out_vars
             if v.node.creator_node is not None]
    while stack:
        f = stack.pop()
        if id(f) in found:
            continue
        found.add(id(f))
        for node in f.inputs:
            if node.creator_node is not None:
                stack.append(node.creator_node)
    return found


def _convert(recorder, out_vars, in_vars, context, converters, opset):
    """The ONNX nodes of the traced functions, in the order they ran."""
    needed = _reachable(out_vars)
    counts = collections.Counter()
    nodes = []
    for func in recorder.order:
        if id(func) not in needed:
            continue
        func_name = getattr(func, 'custom_function_node_name',
                            type(func).__name__)
        converter = converters.get(func_name)
        if converter is None:
            raise ValueError(
                'onnx_chainer.export: {} is not supported at opset {} (no '
                'converter; pass one in external_converters={{{!r}: ...}})'
                .format(func_name, opset, func_name))
        base = '{}_{}'.format(func_name, counts[func_name])
        counts[func_name] += 1
        onnx_helper.set_func_name(base)
        in_data = recorder.in_data[id(func)]
        input_names = []
        for i, node in enumerate(func.inputs):
            if context.has_name(node):
                input_names.append(context.get_name(node))
                continue
            # neither an input, a parameter nor an earlier output: a
            # constant of the graph (a link's persistent keeps its name)
            name = context.persistents.get(id(in_data[i]),
                                           '{}_in{}'.format(base, i))
            context.set_name(node, name)
            context.parameters.append((name, to_numpy(in_data[i])))
            input_names.append(name)
        output_names = []
        for i, ref in enumerate(func.outputs):
            node = ref()
            if node is not None and context.is_pinned(node):
                output_names.append(context.get_name(node))
                continue
            name = base if len(func.outputs) == 1 else '{}_{}'.format(base, i)
            if node is not None:
                context.set_name(node, name)
            output_names.append(name)
        params = FunctionConverterParams(func, opset, input_names,
                                         output_names, context)
        made = converter(params)
        if not isinstance(made, (list, tuple)):
            made = (made,)
        for k, n in enumerate(made):
            if not n.name:
                n.name = base if k == 0 else '{}_{}'.format(base, k)
        nodes.extend(context.constants)
        context.constants.clear()
        nodes.extend(made)
    for v in out_vars:
        if not context.has_name(v.node):
            raise ValueError('onnx_chainer.export: an output does not depend '
                             'on the inputs through any function')
    return nodes
