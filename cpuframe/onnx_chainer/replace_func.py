"""Export a Python function as one ONNX node (Chainer's
``onnx_chainer.replace_func``).

``fake_as_funcnode(alt_func, name)`` returns a function that runs
``alt_func`` and records its whole computation in the graph as a single
function node whose ``custom_function_node_name`` is ``name``: the exporter
then converts it with the converter registered under ``name`` (a built-in
one, or one given in ``external_converters``), which sees the function's
other arguments as attributes of ``params.func``. ``as_funcnode(name)`` is
the same as a decorator.

The Variables among the arguments (also inside lists, tuples and dicts) are
the node's inputs; arrays and Variables among the results (also nested)
its outputs, returned in the same structure with the Variables replaced.
The node is differentiable: its backward differentiates the graph
``alt_func`` built, down to identities of the inputs (so that nothing
upstream gets a gradient twice, and the gradients it returns are
differentiable again); results that are arrays, not Variables, have no
such graph and their gradient raises.
"""
import inspect
import warnings

from cpuframe import backend
from cpuframe.configuration import using_config
from cpuframe.function_node import FunctionNode
from cpuframe.variable import Variable


class WrappedFunctionNode(FunctionNode):
    """The node a replaced function is recorded as.

    ``custom_function_node_name`` names it (its converter, its ONNX node);
    the function's other arguments are its attributes, named ``arg<N>`` by
    position or by keyword, or as ``rename_attributes`` says.
    """

    def __init__(self, name, inner_inputs, inner_outputs, attributes):
        self.custom_function_node_name = name
        self._inner_inputs = inner_inputs
        self._inner_outputs = inner_outputs
        for key, value in attributes.items():
            setattr(self, key, value)
        self._attribute_names = tuple(attributes)

    @property
    def label(self):
        return self.custom_function_node_name

    @property
    def attributes(self):
        """``{name: value}`` of the function's non-Variable arguments."""
        return {k: getattr(self, k) for k in self._attribute_names}

    def forward(self, inputs):
        # computed by the function already (its graph is kept for backward)
        return tuple(y.array if isinstance(y, Variable) else y
                     for y in self._inner_outputs)

    def backward(self, indexes, grad_outputs):
        from cpuframe import grad
        outs, gys = [], []
        for y, gy in zip(self._inner_outputs, grad_outputs):
            if gy is None:
                continue
            if not isinstance(y, Variable):
                raise ValueError(
                    'onnx_chainer.replace_func: {} returned an array, not a '
                    'Variable: it has no graph to differentiate (return '
                    'Variables from the replaced function to backpropagate '
                    'through it)'.format(self.custom_function_node_name))
            outs.append(y)
            gys.append(gy)
        targets = [self._inner_inputs[i] for i in indexes]
        if not outs:
            return (None,) * len(indexes)
        return tuple(grad(outs, targets, gys, enable_double_backprop=True))


def _flatten(value, leaf):
    """The leaves of a nested list/tuple/dict for which ``leaf`` holds, in
    order, and a function rebuilding the structure from replacements."""
    found = []

    def walk(v):
        if leaf(v):
            found.append(v)
            index = len(found) - 1
            return lambda new: new[index]
        if isinstance(v, (list, tuple)):
            parts = [walk(x) for x in v]
            kind = type(v)
            return lambda new: kind(p(new) for p in parts)
        if isinstance(v, dict):
            parts = {k: walk(x) for k, x in v.items()}
            return lambda new: {k: p(new) for k, p in parts.items()}
        return lambda new: v
    rebuild = walk(value)
    return found, rebuild


def _attributes(alt_func, args, kwargs, rename_attributes):
    """The non-Variable arguments, named ``arg<N>``/by keyword (defaults
    of parameters not given included), renamed as asked."""
    renames = dict(rename_attributes or ())
    attrs = {}
    try:
        bound = inspect.signature(alt_func).bind(*args, **kwargs)
        bound.apply_defaults()
        names = list(bound.arguments)
        positional = {names[i]: i for i in range(len(args))}
        items = list(bound.arguments.items())
    except (TypeError, ValueError):  # a builtin, or a call it would refuse
        positional = {}
        items = [('arg{}'.format(i), a) for i, a in enumerate(args)] + \
            list(kwargs.items())
    for key, value in items:
        if key in ('self',):
            continue
        found, _ = _flatten(value, lambda v: isinstance(v, Variable))
        if found:
            continue
        index = positional.get(key)
        name = 'arg{}'.format(index) if index is not None else key
        if index is not None and index in renames:
            name = renames[index]
        elif key in renames:
            name = renames[key]
        attrs[name] = value
    return attrs


def fake_as_funcnode(alt_func, name, rename_attributes=None,
                     experimental_warning=True):
    """``alt_func`` recorded as one function node named ``name``.

    Args:
        alt_func: the function to run. At least one argument is a Variable
            (also inside a list, tuple or dict); it returns arrays or
            Variables (also nested).
        name (str): the node's ``custom_function_node_name``: the ONNX op
            (through the converter registered under it).
        rename_attributes: ``[(index_or_keyword, new_name), ...]``: the
            attribute names of the function's other arguments (by default
            ``arg<N>`` by position, the keyword otherwise).
        experimental_warning (bool): warn (``UserWarning``) at each call,
            as Chainer does.

    Returns:
        A function of ``alt_func``'s arguments returning its results with
        each array or Variable replaced by an output of the node (a single
        result as a Variable).
    """
    if not isinstance(name, str) or not name:
        raise TypeError('fake_as_funcnode: expected name to be a non-empty '
                        'str, got {!r}'.format(name))

    def wrapped(*args, **kwargs):
        if experimental_warning:
            warnings.warn(
                'onnx_chainer.replace_func: {} is recorded as one function '
                'node (experimental)'.format(name), UserWarning, stacklevel=2)
        outer, rebuild_args = _flatten((args, kwargs),
                                       lambda v: isinstance(v, Variable))
        if not outer:
            raise ValueError(
                'fake_as_funcnode: {} was called without a Variable among '
                'its arguments: there is nothing to connect the node '
                'to'.format(name))
        # the function computes from identities of its inputs: the node's
        # backward differentiates down to them (not further), and the
        # gradients it returns stay differentiable back to the inputs
        from cpuframe.functions.math.identity import identity
        with using_config('enable_backprop', True):
            inner = [identity(v) for v in outer]
            inner_args, inner_kwargs = rebuild_args(inner)
            result = alt_func(*inner_args, **inner_kwargs)
        results, rebuild = _flatten(
            result, lambda v: isinstance(v, Variable) or backend.is_array(v))
        if not results:
            raise ValueError(
                'fake_as_funcnode: {} returned no array or Variable'.format(
                    name))
        attrs = _attributes(alt_func, args, kwargs, rename_attributes)
        node = WrappedFunctionNode(name, inner, results, attrs)
        outputs = node.apply(outer)
        if len(results) == 1 and (isinstance(result, Variable) or
                                  backend.is_array(result)):
            return outputs[0]
        return rebuild(list(outputs))
    wrapped.__name__ = getattr(alt_func, '__name__', name)
    wrapped.__doc__ = getattr(alt_func, '__doc__', None)
    return wrapped


def as_funcnode(name, rename_attributes=None):
    """Decorator: the function recorded as one function node named
    ``name`` (see :func:`fake_as_funcnode`)."""
    def decorator(fn):
        return fake_as_funcnode(fn, name, rename_attributes,
                                experimental_warning=False)
    return decorator


__all__ = ['WrappedFunctionNode', 'as_funcnode', 'fake_as_funcnode']
