#!/usr/bin/env python
# A recurrent language model trained by truncated backprop through time, as
# Chainer users write it (the shape of Chainer's examples/ptb/train_ptb.py:
# EmbedID, two L.LSTM layers with dropout, Linear; the loss summed over
# `bprop_len` steps, backward, `unchain_backward`, gradient clipping, SGD),
# at a size where the per-step bookkeeping matters (vocabulary 1000, 100
# units, batch 20). Synthetic word ids. Prints one JSON line.
import argparse
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import optimizers


class RNNLM(chainer.Chain):

    def __init__(self, n_vocab, n_units):
        super(RNNLM, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.LSTM(n_units, n_units)
            self.l3 = L.Linear(n_units, n_vocab)
        for param in self.params():
            param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)

    def reset_state(self):
        self.l1.reset_state()
        self.l2.reset_state()

    def forward(self, x):
        h0 = self.embed(x)
        h1 = self.l1(F.dropout(h0))
        h2 = self.l2(F.dropout(h1))
        return self.l3(F.dropout(h2))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--unit', '-u', type=int, default=100)
    parser.add_argument('--vocab', type=int, default=1000)
    parser.add_argument('--batchsize', '-b', type=int, default=20)
    parser.add_argument('--bproplen', '-l', type=int, default=35)
    parser.add_argument('--iterations', '-i', type=int, default=4)
    args = parser.parse_args()

    np.random.seed(0)
    length = args.batchsize * (args.bproplen * args.iterations + 1)
    words = np.random.randint(args.vocab, size=length).astype(np.int32)
    words = words.reshape(args.batchsize, -1)
    device = chainer.get_device(args.device)
    rnn = RNNLM(args.vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False
    model.to_device(device)
    device.use()
    optimizer = optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(5.0))

    start = time.perf_counter()
    step = 0
    for _ in range(args.iterations):
        loss = 0
        for _ in range(args.bproplen):
            x = device.send(words[:, step])
            t = device.send(words[:, step + 1])
            loss += model(x, t)
            step += 1
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        optimizer.update()
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds,
                      'loss': float(loss.array) / args.bproplen}))


if __name__ == '__main__':
    main()
