"""dump_graph: write the computational graph of a reported variable as
Graphviz dot."""
import os
import shutil
import subprocess

from cpuframe import configuration
from cpuframe.function_node import FunctionNode
from cpuframe.training import extension
from cpuframe.variable import Variable, VariableNode


def is_return_code_zero(args):
    """Whether the command ``args`` (a list of str) runs and exits with 0;
    its output is discarded.  A missing command counts as failure."""
    try:
        subprocess.check_call(args, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    except (subprocess.CalledProcessError, OSError):
        return False
    return True


def is_graphviz_available():
    """Whether Graphviz's ``dot`` can be run."""
    return is_return_code_zero(['dot', '-V'])


_var_style = {'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}
_func_style = {'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}


def _walk(root):
    """Nodes and (from, to) edges backward-reachable from ``root``, in the
    order found."""
    nodes = [root]
    seen = {id(root)}
    edges = []
    seen_edges = set()
    queue = [root]
    while queue:
        node = queue.pop(0)
        if isinstance(node, VariableNode):
            parents = [node.creator_node] if node.creator_node is not None \
                else []
        else:
            parents = [x for x in (node.inputs or ()) if x is not None]
        for parent in parents:
            key = (id(parent), id(node))
            if key not in seen_edges:
                seen_edges.add(key)
                edges.append((parent, node))
            if id(parent) not in seen:
                seen.add(id(parent))
                nodes.append(parent)
                queue.append(parent)
    return nodes, edges


def _variable_label(node):
    shape = node.shape
    if shape is None:
        label = 'None'
    elif shape == ():
        label = str(node.dtype)
    else:
        label = '({}), {}'.format(', '.join(map(str, shape)), node.dtype)
    if node.name is not None:
        label = '{}: {}'.format(node.name, label)
    return label


def _dot_node(node, style):
    if isinstance(node, VariableNode):
        attrs = {'label': _variable_label(node), 'shape': 'oval'}
    else:
        attrs = {'label': node.label, 'shape': 'box'}
    if style is not None:
        attrs.update(style)
    body = ','.join('{}="{}"'.format(k, str(v).replace('"', '\\"'))
                    for k, v in attrs.items())
    return '{} [{}];'.format(id(node), body)


def graph_to_dot(root, variable_style=None, function_style=None,
                 rankdir='TB'):
    """The dot text of the graph behind ``root`` (a Variable or node), in
    the form of Chainer's ``build_computational_graph(...).dump()``."""
    if isinstance(root, Variable):
        root = root.node
    if not isinstance(root, (VariableNode, FunctionNode)):
        raise TypeError('dump_graph: expected a Variable as the root, got '
                        '{}'.format(type(root).__name__))
    nodes, edges = _walk(root)
    parts = ['digraph graphname{rankdir=%s;' % rankdir]
    for node in nodes:
        style = variable_style if isinstance(node, VariableNode) \
            else function_style
        parts.append(_dot_node(node, style))
    for head, tail in edges:
        parts.append('{} -> {};'.format(id(head), id(tail)))
    parts.append('}')
    return ''.join(parts)


class DumpGraph(extension.Extension):
    """Writes the graph behind the observed variable ``root_name``
    (e.g. ``'main/loss'``) to ``out/filename`` in dot, once, at the first
    iteration; if Graphviz's ``dot`` is on the PATH a PNG is rendered
    next to it.

    From ``initialize`` to that first call it turns on
    ``config.keep_graph_on_report`` so the reported variable keeps its
    graph, and restores the flag afterwards.
    """

    default_name = 'dump_graph'

    def __init__(self, root_name, filename=None, variable_style=None,
                 function_style=None, **kwargs):
        out_name = kwargs.pop('out_name', 'cg.dot')
        if kwargs:
            raise TypeError('dump_graph: unexpected keyword arguments {}'
                            .format(', '.join(sorted(kwargs))))
        self._root_name = root_name
        self._filename = out_name if filename is None else filename
        self._variable_style = _var_style if variable_style is None \
            else variable_style
        self._function_style = _func_style if function_style is None \
            else function_style
        self._original_flag = None
        self._flag_called = False

    def initialize(self, _):
        if not self._flag_called and self._original_flag is None:
            self._original_flag = configuration.config.keep_graph_on_report
            configuration.config.keep_graph_on_report = True

    def trigger(self, _):
        if self._flag_called:
            return False
        self._flag_called = True
        return True

    def __call__(self, trainer):
        try:
            var = trainer.observation.get(self._root_name)
            if not isinstance(var, Variable):
                raise TypeError(
                    'dump_graph: expected a Variable in the observation under '
                    '{!r}, got {}'.format(self._root_name,
                                          type(var).__name__))
            dot = graph_to_dot(var, self._variable_style,
                               self._function_style)
            path = os.path.join(trainer.out, self._filename)
            with open(path, 'w') as f:
                f.write(dot)
            if shutil.which('dot'):
                subprocess.call(['dot', '-Tpng', path, '-o',
                                 os.path.splitext(path)[0] + '.png'])
        finally:
            self._restore_flag()

    def _restore_flag(self):
        if self._original_flag is not None:
            configuration.config.keep_graph_on_report = self._original_flag
            self._original_flag = None

    def finalize(self):
        self._restore_flag()


dump_graph = DumpGraph
