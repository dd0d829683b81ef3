"""Binary hierarchical softmax over a binary tree of word ids."""
import numpy

from cpuframe import backend
from cpuframe.variable import as_array


class TreeParser:
    """Flattens a binary tree into per-word paths of (node, code) pairs.

    A tree is either a leaf (an int word id) or a pair ``(left, right)`` of
    trees.  Internal nodes are numbered in pre-order from 0 (the root);
    going to a left child has code ``+1``, to a right child ``-1``.

    Attributes:
        size (int): number of internal nodes (rows of the weight matrix).
        paths, codes, begins: ``paths[begins[w]:begins[w + 1]]`` are the
            nodes on word ``w``'s path, ``codes[...]`` the turns taken.
    """

    def __init__(self, tree):
        self._paths = {}
        self._next = 0
        self._walk(tree, [], [])
        if not self._paths:
            raise ValueError('binary_hierarchical_softmax: empty tree')
        n_words = max(self._paths) + 1
        if sorted(self._paths) != list(range(n_words)):
            missing = sorted(set(range(n_words)) - set(self._paths))
            raise ValueError('binary_hierarchical_softmax: tree leaves must '
                             'be the ids 0..{} once each, missing {}'.format(
                                 n_words - 1, missing[:10]))
        self.size = self._next
        lengths = [len(self._paths[w][0]) for w in range(n_words)]
        self.begins = numpy.concatenate(
            [[0], numpy.cumsum(lengths)]).astype(numpy.int32)
        self.paths = numpy.array(
            [n for w in range(n_words) for n in self._paths[w][0]],
            numpy.int32)
        self.codes = numpy.array(
            [c for w in range(n_words) for c in self._paths[w][1]],
            numpy.float32)

    @property
    def n_words(self):
        return len(self.begins) - 1

    def _walk(self, node, path, code):
        if isinstance(node, tuple):
            if len(node) != 2:
                raise ValueError('binary_hierarchical_softmax: an internal '
                                 'node must be a pair, got {!r}'.format(node))
            node_id = self._next
            self._next += 1
            self._walk(node[0], path + [node_id], code + [1.0])
            self._walk(node[1], path + [node_id], code + [-1.0])
            return
        if isinstance(node, (bool, numpy.bool_)) or not isinstance(
                node, (int, numpy.integer)) or node < 0:
            raise ValueError('binary_hierarchical_softmax: a leaf must be a '
                             'non-negative int word id, got {!r}'.format(node))
        if int(node) in self._paths:
            raise ValueError('binary_hierarchical_softmax: word id {} '
                             'appears twice in the tree'.format(node))
        self._paths[int(node)] = (path, code)


def binary_hierarchical_softmax(x, t, W, tree):
    """Loss of binary hierarchical softmax, summed over the batch.

    The probability of word ``w`` is the product over the internal nodes
    ``n`` on its path from the root of ``sigmoid(c_n * W[n] . x)``, where
    ``c_n`` is +1 when the path turns left at ``n`` and -1 when it turns
    right; these probabilities sum to 1 over the words.  The loss is
    ``-sum_i log P(t[i] | x[i])``.

    Args:
        x: float inputs ``(batch, in_size)``.
        t: integer word ids ``(batch,)``.
        W: weights ``(tree size, in_size)``, one row per internal node.
        tree: the tree as nested pairs of word ids (see
            :class:`~cpuframe.links.BinaryHierarchicalSoftmax`), or a
            :class:`TreeParser` built from one.

    Returns:
        A scalar Variable, differentiable (twice) by ``x`` and ``W``.

    >>> W = np.array([[1., 0.], [0., 1.]], np.float32)
    >>> x = np.array([[0., 0.]], np.float32)
    >>> F.binary_hierarchical_softmax(x, np.array([2], np.int32), W,
    ...                               ((0, 1), 2)).array
    array(0.6931472, dtype=float32)
    """
    from cpuframe.functions.activation.softplus import softplus
    from cpuframe.functions.array.get_item import get_item
    from cpuframe.functions.connection.embed_id import embed_id
    from cpuframe.functions.math.sum import sum as sum_

    parser = tree if isinstance(tree, TreeParser) else TreeParser(tree)
    xa, ta, Wa = as_array(x), as_array(t), as_array(W)
    if xa.ndim != 2 or xa.dtype.kind != 'f':
        raise TypeError('binary_hierarchical_softmax: x must be a 2-D float '
                        'array, got shape {} dtype {}'.format(xa.shape,
                                                              xa.dtype))
    if ta.ndim != 1 or ta.dtype.kind not in 'iu' or len(ta) != len(xa):
        raise TypeError('binary_hierarchical_softmax: t must be a 1-D '
                        'integer array of length {}, got shape {} dtype '
                        '{}'.format(len(xa), ta.shape, ta.dtype))
    if Wa.shape != (parser.size, xa.shape[1]) or Wa.dtype != xa.dtype:
        raise TypeError('binary_hierarchical_softmax: W must be {} of dtype '
                        '{}, got shape {} dtype {}'.format(
                            (parser.size, xa.shape[1]), xa.dtype, Wa.shape,
                            Wa.dtype))
    xp = backend.get_array_module(xa)
    t_np = numpy.asarray(ta.get() if hasattr(ta, 'get') else ta)
    if ((t_np < 0) | (t_np >= parser.n_words)).any():
        raise ValueError('binary_hierarchical_softmax: word ids must be in '
                         '[0, {}), got {}'.format(parser.n_words,
                                                  t_np[(t_np < 0) | (
                                                      t_np >= parser.n_words)]
                                                  [:5]))
    begins = parser.begins[t_np]
    lengths = parser.begins[t_np + 1] - begins
    rows = numpy.repeat(numpy.arange(len(t_np)), lengths)
    offsets = numpy.arange(int(lengths.sum())) - numpy.repeat(
        numpy.cumsum(lengths) - lengths, lengths)
    flat = begins[rows] + offsets
    nodes = xp.asarray(parser.paths[flat])
    codes = xp.asarray(parser.codes[flat].astype(xa.dtype))
    wx = sum_(embed_id(nodes, W) * get_item(x, xp.asarray(rows)), axis=1)
    # -log sigmoid(c * wx) = softplus(-c * wx)
    return sum_(softplus(wx * -codes))
