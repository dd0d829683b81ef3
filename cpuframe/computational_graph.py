"""Dot (Graphviz) views of computational graphs: Chainer's
``chainer.computational_graph``."""
import heapq
import itertools

from cpuframe.function_node import FunctionNode
from cpuframe.variable import Variable, VariableNode

_var_style = {'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}
_func_style = {'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}


def _style(style, default):
    if style is None:
        return {}
    if isinstance(style, str) and style == 'default':
        return dict(default)
    return style


class DotNode:
    """A graph node (VariableNode or FunctionNode) as a dot statement.

    Args:
        node: the VariableNode or FunctionNode.
        attribute (dict): dot attributes added to (and overriding) the
            defaults: the node's label and an oval (variable) or box
            (function) shape.
        show_name (bool): prefix a variable's label with its name.
    """

    def __init__(self, node, attribute=None, show_name=True):
        if not isinstance(node, (VariableNode, FunctionNode)):
            raise TypeError('DotNode: expected a VariableNode or a '
                            'FunctionNode, got {}'.format(type(node).__name__))
        self.node = node
        self.id_ = id(node)
        self.attribute = {'label': node.label}
        if isinstance(node, VariableNode):
            if show_name and node.name is not None:
                self.attribute['label'] = '{}: {}'.format(
                    node.name, self.attribute['label'])
            self.attribute['shape'] = 'oval'
        else:
            self.attribute['shape'] = 'box'
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self):
        """``'<id> [key="value",...];'``."""
        attrs = ','.join('%s="%s"' % (k, v) for k, v in self.attribute.items())
        return '%s [%s];' % (self.id_, attrs)


class ComputationalGraph:
    """A directed acyclic graph of VariableNodes and FunctionNodes.

    Args:
        nodes (list): the nodes.
        edges (list): ``(head, tail)`` pairs of nodes.
        variable_style, function_style (dict, None or ``'default'``): dot
            attributes for variables / functions; ``'default'`` is
            ``{'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style':
            'filled'}`` / ``{'shape': 'record', 'fillcolor': '#6495ED',
            'style': 'filled'}``.
        rankdir (str): 'TB', 'BT', 'LR' or 'RL'.
        remove_variable (bool): draw only the functions, connected directly.
        show_name (bool): prefix variable labels with their names.
    """

    def __init__(self, nodes, edges, variable_style='default',
                 function_style='default', rankdir='TB',
                 remove_variable=False, show_name=True):
        if rankdir not in ('TB', 'BT', 'LR', 'RL'):
            raise ValueError('rankdir must be in TB, BT, LR or RL.')
        self.nodes = nodes
        self.edges = edges
        self.variable_style = _style(variable_style, _var_style)
        self.function_style = _style(function_style, _func_style)
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _function_edges(self):
        """Edges between functions: f -> g when an output of f feeds g."""
        consumers = {}
        for node in self.nodes:
            if isinstance(node, FunctionNode):
                for x in node.inputs:
                    consumers.setdefault(id(x), []).append(node)
        edges = []
        for head, tail in self.edges:
            if isinstance(head, VariableNode):
                if head.creator_node is None:
                    continue
                head = head.creator_node
            if isinstance(tail, VariableNode):
                found = consumers.get(id(tail))
                if not found:
                    continue
                tail = found[0]
            edges.append((head, tail))
        return edges

    def _to_dot(self):
        parts = ['digraph graphname{rankdir=%s;' % self.rankdir]
        edges = self.edges
        if self.remove_variable:
            edges = self._function_edges()
        for node in self.nodes:
            if isinstance(node, VariableNode):
                if not self.remove_variable:
                    parts.append(DotNode(node, self.variable_style,
                                         self.show_name).label)
            elif isinstance(node, FunctionNode):
                parts.append(DotNode(node, self.function_style,
                                     self.show_name).label)
            else:
                raise TypeError('graph nodes must be VariableNodes or '
                                'FunctionNodes, got {}'.format(
                                    type(node).__name__))
        drawn = set()
        for head, tail in edges:
            mixed = isinstance(head, VariableNode) != isinstance(
                tail, VariableNode)
            if not mixed and not self.remove_variable:
                raise TypeError('head and tail should be the set of '
                                'VariableNode and Function')
            edge = (id(head), id(tail))
            if edge in drawn:
                continue
            drawn.add(edge)
            parts.append('%s -> %s;' % edge)
        parts.append('}')
        return ''.join(parts)

    def dump(self, format='dot'):  # noqa: A002 - Chainer's argument name
        """The graph as text; only ``format='dot'`` is supported."""
        if format == 'dot':
            return self._to_dot()
        raise NotImplementedError('Currently, only dot format is supported.')


def build_computational_graph(
        outputs, remove_split=True, variable_style='default',
        function_style='default', rankdir='TB', remove_variable=False,
        show_name=True):
    """The graph of functions and variables backward-reachable from
    ``outputs`` (a Variable, VariableNode or FunctionNode, or a list of
    them).  Walking stops where ``unchain_backward`` cut the graph.

    ``remove_split`` must be True (kept for compatibility); the other
    arguments are those of :class:`ComputationalGraph`.
    """
    if not remove_split:
        raise ValueError('remove_split=False is not supported anymore')
    kinds = (Variable, VariableNode, FunctionNode)
    if isinstance(outputs, kinds):
        outputs = [outputs]
    elif not all(isinstance(o, kinds) for o in outputs):
        raise TypeError('element of outputs must be either Variable, '
                        'VariableNode,  or FunctionNode.')
    heap = []
    counter = itertools.count()
    nodes = {}
    edges = {}

    def push(node):
        heapq.heappush(heap, (-node.rank, next(counter), node))

    for o in outputs:
        if isinstance(o, Variable):
            o = o.node
        push(o)
        nodes[id(o)] = o
    while heap:
        _, _, node = heapq.heappop(heap)
        if isinstance(node, VariableNode):
            parents = [] if node.creator_node is None else [node.creator_node]
        else:
            parents = [x for x in node.inputs if x is not node]
        for parent in parents:
            key = (id(parent), id(node))
            if key in edges:
                continue
            edges[key] = (parent, node)
            nodes[id(parent)] = parent
            push(parent)
    return ComputationalGraph(list(nodes.values()), list(edges.values()),
                              variable_style, function_style, rankdir,
                              remove_variable, show_name)
