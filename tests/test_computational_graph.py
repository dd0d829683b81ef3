"""chainer.computational_graph: build_computational_graph and its dot."""
import re

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import computational_graph as c


def _graph():
    x = cpuframe.Variable(numpy.ones((2, 3), numpy.float32), name='x')
    h = F.relu(x)
    y = F.sum(h)
    z = F.exp(h)
    return x, h, y, z


def test_nodes_and_edges_reachable_from_outputs():
    x, h, y, z = _graph()
    g = c.build_computational_graph([y])
    ids = {id(n) for n in g.nodes}
    assert id(x.node) in ids and id(h.node) in ids and id(y.node) in ids
    assert id(y.creator_node) in ids and id(h.creator_node) in ids
    # z and exp are not backward-reachable from y.
    assert id(z.node) not in ids and id(z.creator_node) not in ids
    assert len(g.nodes) == 5 and len(g.edges) == 4
    for head, tail in g.edges:
        assert isinstance(head, cpuframe.variable.VariableNode) != \
            isinstance(tail, cpuframe.variable.VariableNode)
    both = c.build_computational_graph([y, z])
    assert len(both.nodes) == 7 and len(both.edges) == 6


def test_dot_output():
    x, h, y, z = _graph()
    dot = c.build_computational_graph(y).dump()
    assert dot.startswith('digraph graphname{rankdir=TB;') and \
        dot.endswith('}')
    assert '%d -> %d;' % (id(x.node), id(h.creator_node)) in dot
    assert 'label="x: (2, 3), float32"' in dot
    assert 'fillcolor="#E0E0E0"' in dot and 'fillcolor="#6495ED"' in dot
    plain = c.build_computational_graph(
        y, variable_style=None, function_style=None, show_name=False,
        rankdir='LR').dump()
    assert 'rankdir=LR' in plain and 'x: ' not in plain
    assert 'shape="oval"' in plain and 'shape="box"' in plain


def test_remove_variable_connects_functions():
    x, h, y, z = _graph()
    dot = c.build_computational_graph(y, remove_variable=True).dump()
    assert 'octagon' not in dot
    edges = re.findall(r'(\d+) -> (\d+);', dot)
    assert edges == [(str(id(h.creator_node)), str(id(y.creator_node)))]


def test_unchain_backward_stops_the_walk():
    x, h, y, z = _graph()
    h.unchain_backward()
    g = c.build_computational_graph(y)
    assert id(x.node) not in {id(n) for n in g.nodes}


def test_errors():
    x, h, y, z = _graph()
    with pytest.raises(ValueError, match='remove_split'):
        c.build_computational_graph(y, remove_split=False)
    with pytest.raises(TypeError):
        c.build_computational_graph([numpy.ones(1)])
    with pytest.raises(ValueError, match='rankdir'):
        c.build_computational_graph(y, rankdir='XX')
    with pytest.raises(NotImplementedError):
        c.build_computational_graph(y).dump(format='png')


def test_device_resident_module():
    from cpuframe import device_resident
    assert device_resident.DeviceResident is cpuframe.DeviceResident
    v = device_resident.DeviceResidentsVisitor()
    with pytest.raises(NotImplementedError):
        v.visit_array(numpy.ones(1))
