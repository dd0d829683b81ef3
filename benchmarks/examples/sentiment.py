#!/usr/bin/env python
# A recursive neural network over parse trees, as Chainer users write it (the
# shape of Chainer's examples/sentiment/train_sentiment.py: one EmbedID at the
# leaves, one Linear combining two children with tanh, a 5-way label at every
# node, softmax cross entropy summed over a batch of trees, AdaGrad with
# WeightDecay). Many tiny ops per sentence: the framework's per-op cost is
# the time. Synthetic trees (the Stanford treebank is not downloaded).
# Prints one JSON line: the training loop's seconds.
import argparse
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import optimizers


class RecursiveNet(chainer.Chain):

    def __init__(self, n_vocab, n_units, n_label=5):
        super(RecursiveNet, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l = L.Linear(n_units * 2, n_units)
            self.w = L.Linear(n_units, n_label)

    def leaf(self, x):
        return self.embed(x)

    def node(self, left, right):
        return F.tanh(self.l(F.concat((left, right))))

    def label(self, v):
        return self.w(v)


def traverse(model, node, evaluate, root=True):
    """Returns (loss, vector) of a subtree; counts (correct, total) at the root."""
    if isinstance(node['node'], int):
        word = model.xp.array([node['node']], np.int32)
        loss = 0
        v = model.leaf(word)
    else:
        left, right = node['node']
        left_loss, left_v = traverse(model, left, evaluate, root=False)
        right_loss, right_v = traverse(model, right, evaluate, root=False)
        v = model.node(left_v, right_v)
        loss = left_loss + right_loss
    y = model.label(v)
    label = model.xp.array([node['label']], np.int32)
    loss += F.softmax_cross_entropy(y, label)
    predict = chainer.backends.cuda.to_cpu(y.array).argmax(1)
    evaluate['total'] += 1
    evaluate['correct'] += int(predict[0] == node['label'])
    return loss, v


def random_tree(rng, n_vocab, n_leaves):
    if n_leaves == 1:
        word = int(rng.randint(n_vocab))
        return {'node': word, 'label': word % 5}
    k = int(rng.randint(1, n_leaves))
    left = random_tree(rng, n_vocab, k)
    right = random_tree(rng, n_vocab, n_leaves - k)
    return {'node': (left, right),
            'label': (left['label'] + right['label']) % 5}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--unit', '-u', type=int, default=30)
    parser.add_argument('--batchsize', '-b', type=int, default=25)
    parser.add_argument('--iterations', '-i', type=int, default=8)
    parser.add_argument('--leaves', type=int, default=12)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    n_vocab = 500
    trees = [random_tree(rng, n_vocab, args.leaves)
             for _ in range(args.batchsize * args.iterations)]
    device = chainer.get_device(args.device)
    model = RecursiveNet(n_vocab, args.unit)
    model.to_device(device)
    device.use()
    optimizer = optimizers.AdaGrad(lr=0.1)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001))

    start = time.perf_counter()
    evaluate = {'correct': 0, 'total': 0}
    for i in range(args.iterations):
        batch = trees[i * args.batchsize:(i + 1) * args.batchsize]
        loss = 0
        for tree in batch:
            tree_loss, _ = traverse(model, tree, evaluate)
            loss += tree_loss
        model.cleargrads()
        loss.backward()
        optimizer.update()
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds, 'loss': float(loss.array),
                      'nodes': evaluate['total']}))


if __name__ == '__main__':
    main()
