#!/usr/bin/env python
# A sequence-to-sequence model, as Chainer users write it (the shape of
# Chainer's examples/seq2seq/seq2seq.py: EmbedID over concatenated sequences
# split back with F.split_axis, L.NStepLSTM encoder and decoder, F.pad_sequence
# of the targets, softmax cross entropy with ignore_label, Adam), on batches
# of 64 synthetic sentence pairs of 5-20 words. Prints one JSON line.
import argparse
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import optimizers

UNK = 0
EOS = 1


def sequence_embed(embed, xs):
    x_len = [len(x) for x in xs]
    x_section = np.cumsum(x_len[:-1])
    ex = embed(F.concat(xs, axis=0))
    return F.split_axis(ex, x_section, 0)


class Seq2seq(chainer.Chain):

    def __init__(self, n_layers, n_source_vocab, n_target_vocab, n_units):
        super(Seq2seq, self).__init__()
        with self.init_scope():
            self.embed_x = L.EmbedID(n_source_vocab, n_units)
            self.embed_y = L.EmbedID(n_target_vocab, n_units)
            self.encoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.decoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.W = L.Linear(n_units, n_target_vocab)

    def forward(self, xs, ys):
        xs = [x[::-1] for x in xs]
        eos = self.xp.array([EOS], np.int32)
        ys_in = [F.concat([eos, y], axis=0) for y in ys]
        ys_out = [F.concat([y, eos], axis=0) for y in ys]
        exs = sequence_embed(self.embed_x, xs)
        eys = sequence_embed(self.embed_y, ys_in)
        batch = len(xs)
        hx, cx, _ = self.encoder(None, None, exs)
        _, _, os = self.decoder(hx, cx, eys)
        concat_os = F.concat(os, axis=0)
        concat_ys_out = F.concat(ys_out, axis=0)
        loss = F.sum(F.softmax_cross_entropy(
            self.W(concat_os), concat_ys_out, reduce='no')) / batch
        chainer.report({'loss': loss}, self)
        return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--unit', '-u', type=int, default=64)
    parser.add_argument('--layer', '-l', type=int, default=2)
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--iterations', '-i', type=int, default=10)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    n_vocab = 800
    pairs = []
    for _ in range(args.batchsize * args.iterations):
        n = rng.randint(5, 21)
        x = rng.randint(2, n_vocab, size=n).astype(np.int32)
        y = ((x * 7 + 3) % (n_vocab - 2) + 2).astype(np.int32)
        pairs.append((x, y[:rng.randint(5, 21)]))
    device = chainer.get_device(args.device)
    model = Seq2seq(args.layer, n_vocab, n_vocab, args.unit)
    model.to_device(device)
    device.use()
    optimizer = optimizers.Adam()
    optimizer.setup(model)

    start = time.perf_counter()
    for i in range(args.iterations):
        batch = pairs[i * args.batchsize:(i + 1) * args.batchsize]
        xs = [device.send(x) for x, _ in batch]
        ys = [device.send(y) for _, y in batch]
        loss = model(xs, ys)
        model.cleargrads()
        loss.backward()
        optimizer.update()
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds, 'loss': float(loss.array)}))


if __name__ == '__main__':
    main()
