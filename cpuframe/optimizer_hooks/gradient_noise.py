"""Annealed Gaussian noise added to gradients."""
import numpy

from cpuframe import backend
from cpuframe.optimizers._checks import check_real


def exponential_decay_noise(xp, shape, dtype, hook, opt):
    """Gaussian noise of variance ``hook.eta / (1 + opt.t) ** 0.55``.

    The annealing schedule of `Adding Gradient Noise Improves Learning for
    Very Deep Networks <https://arxiv.org/abs/1511.06807>`_; ``opt`` is the
    update rule (its ``t`` counts the parameter's updates).
    """
    std = numpy.sqrt(hook.eta / numpy.power(1 + opt.t, 0.55))
    return xp.random.normal(0, std, shape).astype(dtype)


class GradientNoise:
    """Add noise to every gradient.

    Args:
        eta (float): the noise parameter (the variance at step 0).
        noise_func (callable): ``noise_func(xp, shape, dtype, hook, rule)``
            returning the noise array; :func:`exponential_decay_noise` by
            default.

    Attributes:
        eta (float): the noise parameter.
        noise_func (callable): the noise generator.
        timing (str): ``'pre'`` (before the update) or ``'post'``.
        call_for_each_param (bool): True: called with each ``(rule, param)``.
    """

    name = 'GradientNoise'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, eta, noise_func=exponential_decay_noise):
        check_real('GradientNoise', 'eta', eta, low=0)
        if not callable(noise_func):
            raise TypeError('GradientNoise: noise_func must be callable, got '
                            '{!r}'.format(noise_func))
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule, param):
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(g)
        with backend.using_device(param.device):
            noise = self.noise_func(xp, g.shape, g.dtype, self, rule)
            g += noise
