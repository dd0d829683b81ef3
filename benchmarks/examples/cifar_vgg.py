#!/usr/bin/env python
# A VGG-style convnet on CIFAR-sized images, as Chainer users write it (the
# shape of Chainer's examples/cifar/models/VGG.py: blocks of 3x3
# convolutions with batch normalization and ReLU, max pooling, dropout, a
# classifier of two Linear layers; L.Classifier, MomentumSGD with
# WeightDecay), at a quarter of VGG16's width, batch 64, synthetic 32x32
# images of 10 classes. Prints one JSON line.
import argparse
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np


class Block(chainer.Chain):

    def __init__(self, out_channels, ksize, pad=1):
        super(Block, self).__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(None, out_channels, ksize, pad=pad,
                                        nobias=True)
            self.bn = L.BatchNormalization(out_channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class VGG(chainer.Chain):

    def __init__(self, n_class=10, width=16):
        super(VGG, self).__init__()
        w = width
        with self.init_scope():
            self.block1_1 = Block(w, 3)
            self.block1_2 = Block(w, 3)
            self.block2_1 = Block(2 * w, 3)
            self.block2_2 = Block(2 * w, 3)
            self.block3_1 = Block(4 * w, 3)
            self.block3_2 = Block(4 * w, 3)
            self.block4_1 = Block(8 * w, 3)
            self.block4_2 = Block(8 * w, 3)
            self.fc1 = L.Linear(None, 8 * w, nobias=True)
            self.bn_fc1 = L.BatchNormalization(8 * w)
            self.fc2 = L.Linear(None, n_class, nobias=True)

    def forward(self, x):
        h = self.block1_1(x)
        h = F.dropout(h, ratio=0.3)
        h = self.block1_2(h)
        h = F.max_pooling_2d(h, ksize=2, stride=2)
        h = self.block2_1(h)
        h = F.dropout(h, ratio=0.4)
        h = self.block2_2(h)
        h = F.max_pooling_2d(h, ksize=2, stride=2)
        h = self.block3_1(h)
        h = F.dropout(h, ratio=0.4)
        h = self.block3_2(h)
        h = F.max_pooling_2d(h, ksize=2, stride=2)
        h = self.block4_1(h)
        h = F.dropout(h, ratio=0.4)
        h = self.block4_2(h)
        h = F.max_pooling_2d(h, ksize=2, stride=2)
        h = F.dropout(h, ratio=0.5)
        h = self.fc1(h)
        h = self.bn_fc1(h)
        h = F.relu(h)
        h = F.dropout(h, ratio=0.5)
        return self.fc2(h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--width', type=int, default=16)
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--iterations', '-i', type=int, default=8)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    labels = rng.randint(10, size=512).astype(np.int32)
    images = (rng.rand(10, 3, 32, 32)[labels] +
              0.5 * rng.rand(512, 3, 32, 32)).astype(np.float32)
    device = chainer.get_device(args.device)
    model = L.Classifier(VGG(10, args.width))
    model.to_device(device)
    device.use()
    optimizer = chainer.optimizers.MomentumSGD(0.05)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(5e-4))

    start = time.perf_counter()
    for _ in range(args.iterations):
        idx = rng.randint(len(images), size=args.batchsize)
        x = device.send(images[idx])
        t = device.send(labels[idx])
        optimizer.update(model, x, t)
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds,
                      'loss': float(model.loss.array),
                      'accuracy': float(model.accuracy.array)}))


if __name__ == '__main__':
    main()
