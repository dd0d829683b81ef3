import itertools

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.functions.loss.hierarchical_softmax import TreeParser

TREES = [
    (0, 1),
    ((0, 1), 2),
    ((0, (1, 2)), ((3, 4), 5)),
    (((((0, 1), 2), 3), 4), (5, (6, 7))),
]


def _naive_paths(tree):
    """{word: [(node id, code), ...]} with nodes numbered in pre-order."""
    paths, counter = {}, itertools.count()

    def walk(node, path):
        if isinstance(node, tuple):
            n = next(counter)
            walk(node[0], path + [(n, 1.0)])
            walk(node[1], path + [(n, -1.0)])
        else:
            paths[node] = path
    walk(tree, [])
    return paths


def _naive_prob(x, W, path):
    p = 1.0
    for node, code in path:
        p *= 1 / (1 + numpy.exp(-code * (W[node] @ x)))
    return p


@pytest.mark.parametrize('tree', TREES)
def test_probabilities_sum_to_one(tree):
    rng = numpy.random.RandomState(0)
    parser = TreeParser(tree)
    W = rng.randn(parser.size, 3)
    x = rng.randn(4, 3)
    total = numpy.zeros(4)
    for w in range(parser.n_words):
        for i in range(4):
            loss = F.binary_hierarchical_softmax(
                x[i:i + 1], numpy.array([w], numpy.int32), W, tree)
            total[i] += numpy.exp(-loss.array)
    numpy.testing.assert_allclose(total, 1.0, rtol=1e-12)


@pytest.mark.parametrize('tree', TREES)
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_forward_matches_path_product(tree, dtype):
    rng = numpy.random.RandomState(1)
    paths = _naive_paths(tree)
    n_nodes = len(paths) - 1
    W = rng.randn(n_nodes, 3).astype(dtype)
    x = rng.randn(6, 3).astype(dtype)
    t = rng.randint(0, len(paths), 6).astype(numpy.int32)
    loss = F.binary_hierarchical_softmax(x, t, W, tree)
    expected = -sum(numpy.log(_naive_prob(x[i].astype(numpy.float64),
                                          W.astype(numpy.float64),
                                          paths[t[i]]))
                    for i in range(6))
    assert loss.shape == () and loss.dtype == dtype
    tol = 1e-5 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(loss.array, expected, rtol=tol)


def test_parser_layout():
    parser = TreeParser(((0, (1, 2)), ((3, 4), 5)))
    assert parser.size == 5
    numpy.testing.assert_array_equal(parser.begins, [0, 2, 5, 8, 11, 14, 16])
    numpy.testing.assert_array_equal(parser.paths[0:2], [0, 1])
    numpy.testing.assert_array_equal(parser.codes[0:2], [1, 1])
    numpy.testing.assert_array_equal(parser.paths[14:16], [0, 3])
    numpy.testing.assert_array_equal(parser.codes[14:16], [-1, -1])


def test_backward_and_double_backward():
    rng = numpy.random.RandomState(2)
    tree = ((0, (1, 2)), ((3, 4), 5))
    W = rng.randn(5, 3)
    x = rng.randn(4, 3)
    t = numpy.array([0, 2, 5, 2], numpy.int32)

    def f(x, W):
        return F.binary_hierarchical_softmax(x, t, W, tree)
    gradient_check.check_backward(f, (x, W), None, atol=1e-7, rtol=1e-5)
    gradient_check.check_double_backward(
        f, (x, W), numpy.array(rng.randn()), (rng.randn(4, 3), rng.randn(5, 3)),
        atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize('tree, match', [
    ((0, 2), 'missing'),
    ((0, 0), 'twice'),
    ((0, 1, 2), 'pair'),
    ((0, -1), 'non-negative int'),
    ((0, 'a'), 'non-negative int'),
])
def test_bad_trees(tree, match):
    with pytest.raises(ValueError, match=match):
        TreeParser(tree)


def test_bad_inputs():
    tree = ((0, 1), 2)
    W = numpy.zeros((2, 3))
    x = numpy.zeros((2, 3))
    t = numpy.array([0, 1], numpy.int32)
    with pytest.raises(ValueError, match=r'word ids must be in \[0, 3\)'):
        F.binary_hierarchical_softmax(x, numpy.array([0, 3], 'i'), W, tree)
    with pytest.raises(TypeError, match='W must be'):
        F.binary_hierarchical_softmax(x, t, numpy.zeros((3, 3)), tree)
    with pytest.raises(TypeError, match='x must be'):
        F.binary_hierarchical_softmax(x[0], t, W, tree)
    with pytest.raises(TypeError, match='t must be'):
        F.binary_hierarchical_softmax(x, t[:1], W, tree)
