#!/usr/bin/env python
# Skip-gram word2vec with negative sampling, as Chainer users write it (the
# shape of Chainer's examples/word2vec/train_word2vec.py: an EmbedID of the
# centre words, L.NegativeSampling over the context words, windows of 5,
# batch 1000, Adam), on a synthetic corpus of 20,000 words from a
# 5,000-word vocabulary with a Zipf-like frequency. Prints one JSON line.
import argparse
import collections
import json
import time

import chainer
import chainer.functions as F
import chainer.initializers as I
import chainer.links as L
import numpy as np
from chainer import optimizers


class SkipGram(chainer.Chain):

    def __init__(self, n_vocab, n_units, counts):
        super(SkipGram, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(
                n_vocab, n_units, initialW=I.Uniform(1. / n_units))
            self.loss_func = L.NegativeSampling(n_units, counts, 5)
            self.loss_func.W.array[...] = 0

    def forward(self, x, contexts):
        e = self.embed(contexts)
        batch_size, n_context, n_units = e.shape
        x = F.broadcast_to(x[:, None], (batch_size, n_context))
        e = F.reshape(e, (batch_size * n_context, n_units))
        x = F.reshape(x, (batch_size * n_context,))
        return self.loss_func(e, x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--unit', '-u', type=int, default=100)
    parser.add_argument('--window', '-w', type=int, default=5)
    parser.add_argument('--batchsize', '-b', type=int, default=1000)
    parser.add_argument('--iterations', '-i', type=int, default=20)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    n_vocab = 5000
    p = 1.0 / np.arange(1, n_vocab + 1)
    corpus = rng.choice(n_vocab, size=20000, p=p / p.sum()).astype(np.int32)
    counts = collections.Counter(corpus.tolist())
    counts = [counts.get(w, 0) + 1 for w in range(n_vocab)]
    device = chainer.get_device(args.device)
    model = SkipGram(n_vocab, args.unit, counts)
    model.to_device(device)
    device.use()
    optimizer = optimizers.Adam()
    optimizer.setup(model)

    w = args.window
    offsets = np.concatenate([np.arange(-w, 0), np.arange(1, w + 1)])
    start = time.perf_counter()
    for _ in range(args.iterations):
        position = rng.randint(w, len(corpus) - w, size=args.batchsize)
        center = device.send(corpus[position])
        contexts = device.send(corpus[position[:, None] + offsets])
        loss = model(center, contexts)
        model.cleargrads()
        loss.backward()
        optimizer.update()
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds,
                      'loss': float(loss.array) / args.batchsize}))


if __name__ == '__main__':
    main()
