"""Binary hierarchical softmax layer."""
import collections
import heapq

import numpy

import cpuframe
from cpuframe import initializers, link, variable
from cpuframe.functions.loss.hierarchical_softmax import (
    TreeParser,
    binary_hierarchical_softmax,
)


class BinaryHierarchicalSoftmax(link.Link):
    """Hierarchical softmax over a binary tree of word ids.

    A tree is a word id (a leaf) or a pair ``(left, right)`` of trees, e.g.
    ``((0, 1), 2)``; its leaves must be the ids ``0 .. n - 1`` once each.
    Each internal node owns a row of ``W``; the probability of a word is the
    product of ``sigmoid(+-W[node] . x)`` along its path from the root.
    :meth:`create_huffman_tree` builds a tree from word counts.

    Args:
        in_size (int): dimension of the input vectors.
        tree: the tree of word ids.
        dtype: parameter dtype (default ``cpuframe.config.dtype``).

    Attributes:
        W (~cpuframe.Parameter): ``(number of internal nodes, in_size)``,
            initialized uniformly in ``[-1, 1)``.
    """

    def __init__(self, in_size, tree, dtype=None):
        super().__init__()
        dtype = numpy.dtype(cpuframe.get_dtype(dtype))
        self._parser = TreeParser(tree)
        with self.init_scope():
            self.W = variable.Parameter(initializers.Uniform(1, dtype),
                                        (self._parser.size, in_size))

    def printable_specs(self):
        return (('in_size', self.W.shape[1]),
                ('n_words', self._parser.n_words))

    def forward(self, x, t):
        """Loss ``-sum_i log P(t[i] | x[i])`` as a scalar Variable."""
        return binary_hierarchical_softmax(x, t, self.W, self._parser)

    @staticmethod
    def create_huffman_tree(word_counts):
        """Huffman tree (nested pairs) from ``{word: count}``.

        Frequent words get short paths.  Ties are broken by insertion order
        so the result is deterministic.

        >>> L.BinaryHierarchicalSoftmax.create_huffman_tree(
        ...     {0: 8, 1: 5, 2: 6, 3: 4})
        ((3, 1), (2, 0))
        """
        if isinstance(word_counts, collections.abc.Mapping):
            items = list(word_counts.items())
        else:
            raise TypeError('create_huffman_tree: word_counts must be a '
                            'mapping from word to count, got {}'.format(
                                type(word_counts).__name__))
        if not items:
            raise ValueError('create_huffman_tree: empty vocabulary')
        heap = [(count, i, word) for i, (word, count) in enumerate(items)]
        heapq.heapify(heap)
        next_id = len(heap)
        while len(heap) > 1:
            c1, _, n1 = heapq.heappop(heap)
            c2, _, n2 = heapq.heappop(heap)
            heapq.heappush(heap, (c1 + c2, next_id, (n1, n2)))
            next_id += 1
        return heap[0][2]
