#!/usr/bin/env python
# A variational autoencoder, as Chainer users write one (the shape of
# Chainer's examples/vae/train_vae.py: an MLP encoder to a Gaussian, the
# reparameterised sample, an MLP decoder with a Bernoulli likelihood,
# F.gaussian_kl_divergence and F.bernoulli_nll, Adam), on 784-dimensional
# binary data, batch 100, 500 hidden units, 20 latent. Prints one JSON line.
import argparse
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import optimizers


class VAE(chainer.Chain):

    def __init__(self, n_in, n_latent, n_h):
        super(VAE, self).__init__()
        with self.init_scope():
            self.le1 = L.Linear(n_in, n_h)
            self.le2_mu = L.Linear(n_h, n_latent)
            self.le2_ln_var = L.Linear(n_h, n_latent)
            self.ld1 = L.Linear(n_latent, n_h)
            self.ld2 = L.Linear(n_h, n_in)

    def encode(self, x):
        h1 = F.tanh(self.le1(x))
        return self.le2_mu(h1), self.le2_ln_var(h1)

    def decode(self, z):
        return self.ld2(F.tanh(self.ld1(z)))

    def loss(self, x, beta=1.0):
        mu, ln_var = self.encode(x)
        batchsize = len(mu)
        z = F.gaussian(mu, ln_var)
        rec = F.bernoulli_nll(x, self.decode(z)) / batchsize
        kl = F.gaussian_kl_divergence(mu, ln_var) / batchsize
        loss = rec + beta * kl
        chainer.report({'loss': loss, 'rec': rec, 'kl': kl}, self)
        return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--unit', '-u', type=int, default=500)
    parser.add_argument('--dim-z', '-z', type=int, default=20)
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--iterations', '-i', type=int, default=40)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    protos = rng.rand(10, 784) < 0.3
    data = (protos[rng.randint(10, size=2000)] ^
            (rng.rand(2000, 784) < 0.05)).astype(np.float32)
    device = chainer.get_device(args.device)
    model = VAE(784, args.dim_z, args.unit)
    model.to_device(device)
    device.use()
    optimizer = optimizers.Adam()
    optimizer.setup(model)

    start = time.perf_counter()
    for _ in range(args.iterations):
        x = device.send(data[rng.randint(len(data), size=args.batchsize)])
        loss = model.loss(x)
        model.cleargrads()
        loss.backward()
        optimizer.update()
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds, 'loss': float(loss.array)}))


if __name__ == '__main__':
    main()
