"""A tiny VAE written as Chainer's VAE example writes it (D.Normal with
log_scale, D.Bernoulli(logit=...), D.Independent, kl_divergence against a
standard normal prior, reparameterised sampling) learns binary patterns."""
import numpy

import cpuframe
import cpuframe.distributions as D
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import optimizers


class VAE(cpuframe.Chain):

    def __init__(self, n_in, n_latent, n_h):
        super().__init__()
        with self.init_scope():
            self.enc = L.Linear(n_in, n_h)
            self.mu = L.Linear(n_h, n_latent)
            self.ln_sigma = L.Linear(n_h, n_latent)
            self.dec1 = L.Linear(n_latent, n_h)
            self.dec2 = L.Linear(n_h, n_in)
        self.n_latent = n_latent

    def encode(self, x):
        h = F.tanh(self.enc(x))
        return D.Independent(D.Normal(loc=self.mu(h),
                                      log_scale=self.ln_sigma(h)))

    def decode(self, z):
        return D.Independent(D.Bernoulli(logit=self.dec2(F.tanh(
            self.dec1(z)))), reinterpreted_batch_ndims=1)

    def loss(self, x):
        q_z = self.encode(x)
        z = q_z.sample(1)[0]
        p_x = self.decode(z)
        prior = D.Independent(D.Normal(
            numpy.zeros((x.shape[0], self.n_latent), numpy.float32),
            numpy.ones((x.shape[0], self.n_latent), numpy.float32)))
        reconstr = F.mean(p_x.log_prob(x))
        kl = F.mean(cpuframe.kl_divergence(q_z, prior))
        return -(reconstr - kl), reconstr, kl


def _data(rs, n):
    protos = (rs.rand(4, 16) > 0.5).astype(numpy.float32)
    idx = rs.randint(0, 4, n)
    flip = rs.rand(n, 16) < 0.03
    return numpy.where(flip, 1 - protos[idx], protos[idx]), protos


def test_vae_learns_binary_patterns():
    numpy.random.seed(0)
    rs = numpy.random.RandomState(0)
    x, protos = _data(rs, 256)
    model = VAE(16, 2, 32)
    opt = optimizers.Adam(alpha=1e-2)
    opt.setup(model)
    losses = []
    for _ in range(300):
        batch = x[rs.randint(0, 256, 64)]
        loss, _, kl = model.loss(batch)
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    first, last = numpy.mean(losses[:20]), numpy.mean(losses[-20:])
    # 16 fair bits cost 16 log 2 = 11.1 nats; the patterns cost far less
    assert first > 9.0
    assert last < 0.5 * first and last < 5.0
    # the decoded mean of the encoded mean reconstructs the prototypes
    with cpuframe.using_config('enable_backprop', False):
        z = model.encode(protos).mean
        recon = model.decode(z).distribution.p.array
    assert ((recon > 0.5) == (protos > 0.5)).mean() > 0.95
    assert float(kl.array) > 0.1     # the latent code is used
