#!/usr/bin/env python
# A DCGAN, as Chainer users write one (the shape of Chainer's
# examples/dcgan: a generator of Linear, Deconvolution2D and batch
# normalization, a discriminator of Convolution2D with leaky ReLU, softplus
# losses, two Adam optimizers), on 32x32 images, batch 32, at a small width
# (ch=64). Prints one JSON line.
import argparse
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import optimizers


class Generator(chainer.Chain):

    def __init__(self, n_hidden, bottom_width=4, ch=64, wscale=0.02):
        super(Generator, self).__init__()
        self.n_hidden = n_hidden
        self.ch = ch
        self.bottom_width = bottom_width
        with self.init_scope():
            w = chainer.initializers.Normal(wscale)
            self.l0 = L.Linear(n_hidden, bottom_width * bottom_width * ch,
                               initialW=w)
            self.dc1 = L.Deconvolution2D(ch, ch // 2, 4, 2, 1, initialW=w)
            self.dc2 = L.Deconvolution2D(ch // 2, ch // 4, 4, 2, 1, initialW=w)
            self.dc3 = L.Deconvolution2D(ch // 4, 3, 4, 2, 1, initialW=w)
            self.bn0 = L.BatchNormalization(bottom_width * bottom_width * ch)
            self.bn1 = L.BatchNormalization(ch // 2)
            self.bn2 = L.BatchNormalization(ch // 4)

    def make_hidden(self, batchsize, rng):
        return rng.uniform(-1, 1, (batchsize, self.n_hidden, 1, 1)).astype(
            np.float32)

    def forward(self, z):
        h = F.reshape(F.relu(self.bn0(self.l0(z))),
                      (len(z), self.ch, self.bottom_width, self.bottom_width))
        h = F.relu(self.bn1(self.dc1(h)))
        h = F.relu(self.bn2(self.dc2(h)))
        return F.sigmoid(self.dc3(h))


class Discriminator(chainer.Chain):

    def __init__(self, bottom_width=4, ch=64, wscale=0.02):
        super(Discriminator, self).__init__()
        with self.init_scope():
            w = chainer.initializers.Normal(wscale)
            self.c0 = L.Convolution2D(3, ch // 4, 3, 1, 1, initialW=w)
            self.c1 = L.Convolution2D(ch // 4, ch // 2, 4, 2, 1, initialW=w)
            self.c2 = L.Convolution2D(ch // 2, ch, 4, 2, 1, initialW=w)
            self.l4 = L.Linear(bottom_width * bottom_width * ch * 4, 1,
                               initialW=w)
            self.bn1 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2 = L.BatchNormalization(ch, use_gamma=False)

    def forward(self, x):
        h = F.leaky_relu(self.c0(x))
        h = F.leaky_relu(self.bn1(self.c1(h)))
        h = F.leaky_relu(self.bn2(self.c2(h)))
        return self.l4(h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--ch', type=int, default=64)
    parser.add_argument('--batchsize', '-b', type=int, default=32)
    parser.add_argument('--iterations', '-i', type=int, default=10)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    images = rng.rand(256, 3, 32, 32).astype(np.float32)
    device = chainer.get_device(args.device)
    gen = Generator(32, ch=args.ch)
    dis = Discriminator(ch=args.ch)
    gen.to_device(device)
    dis.to_device(device)
    device.use()
    opt_gen = optimizers.Adam(alpha=0.0002, beta1=0.5)
    opt_gen.setup(gen)
    opt_dis = optimizers.Adam(alpha=0.0002, beta1=0.5)
    opt_dis.setup(dis)

    start = time.perf_counter()
    for _ in range(args.iterations):
        x_real = device.send(
            images[rng.randint(len(images), size=args.batchsize)])
        y_real = dis(x_real)
        z = device.send(gen.make_hidden(args.batchsize, rng))
        x_fake = gen(z)
        y_fake = dis(x_fake)
        loss_dis = F.sum(F.softplus(-y_real)) / args.batchsize + \
            F.sum(F.softplus(y_fake)) / args.batchsize
        loss_gen = F.sum(F.softplus(-y_fake)) / args.batchsize
        dis.cleargrads()
        loss_dis.backward()
        opt_dis.update()
        gen.cleargrads()
        loss_gen.backward()
        opt_gen.update()
        x_fake.unchain_backward()
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds, 'loss_dis': float(loss_dis.array),
                      'loss_gen': float(loss_gen.array)}))


if __name__ == '__main__':
    main()
