"""Helpers for converters (Chainer's ``onnx_chainer.onnx_helper``)."""
import onnx
from onnx import helper, numpy_helper

_state = {'func_name': None, 'counts': {}}


def set_func_name(func_name):
    """Name of the function being converted (prefix of :func:`gensym`)."""
    _state['func_name'] = func_name


def get_func_name():
    """The name of the function being converted, e.g. ``'LinearFunction_0'``."""
    return _state['func_name']


def gensym():
    """A new name for an intermediate value of the converted function."""
    name = _state['func_name']
    count = _state['counts'].get(name, 0) + 1
    _state['counts'][name] = count
    return 'tmp{}_{}'.format(name, count)


def make_node(op_name, input_names, num_outputs=1, **kwargs):
    """``onnx.helper.make_node`` whose outputs get new names (a count, or a
    list of names to use)."""
    if isinstance(num_outputs, (list, tuple)):
        outputs = list(num_outputs)
    else:
        outputs = [gensym() for _ in range(num_outputs)]
    return helper.make_node(op_name, list(input_names), outputs, **kwargs)


class GraphBuilder:
    """Builds a chain of ONNX nodes: ``gb.op('Relu', [x])`` returns the new
    node's output name; ``gb.nodes(output_names=[...])`` the nodes, the
    last one's outputs renamed."""

    def __init__(self):
        self._nodes = []

    def op(self, op_name, input_names, num_outputs=1, **kwargs):
        node = make_node(op_name, input_names, num_outputs, **kwargs)
        self._nodes.append(node)
        return node.output[0] if num_outputs == 1 else tuple(node.output)

    def op_output_named(self, op_name, input_names, output_names, **kwargs):
        node = helper.make_node(op_name, list(input_names),
                                list(output_names), **kwargs)
        self._nodes.append(node)
        return tuple(node.output)

    def nodes(self, output_names=None):
        if output_names is not None:
            assert len(self._nodes[-1].output) == len(output_names)
            self._nodes[-1].output[:] = output_names
        return tuple(self._nodes)


def write_tensor_pb(filename, name, value):
    """Write ``value`` (an array) as a ``TensorProto`` named ``name``."""
    with open(filename, 'wb') as f:
        f.write(numpy_helper.from_array(value, name).SerializeToString())


def cleanse_param_name(name):
    """Chainer's parameter path (``/l1/W``) as an ONNX name (``param_l1_W``)."""
    return 'param' + name.replace('/', '_')


def is_support_non_standard_domain():
    return True


__all__ = ['GraphBuilder', 'cleanse_param_name', 'gensym', 'get_func_name',
           'make_node', 'onnx', 'set_func_name', 'write_tensor_pb']
