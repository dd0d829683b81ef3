"""Clipping of the global gradient norm."""
import math

import numpy

from cpuframe import backend
from cpuframe.optimizers._checks import check_real


def _sum_sqnorm(arrays):
    total = 0.0
    for x in arrays:
        x = x.ravel()
        if x.dtype == numpy.float16:
            x = x.astype(numpy.float32)  # float16 squares overflow early
        total += float(x.dot(x))
    return total


class GradientClipping:
    """Rescale all gradients so that their global L2 norm is at most
    ``threshold``.

    The norm is taken over every gradient of the target together:
    :math:`\\|g\\| = \\sqrt{\\sum_p \\|g_p\\|^2}`; when it exceeds the
    threshold each gradient is multiplied by ``threshold / ||g||``.

    Args:
        threshold (float): the largest allowed L2 norm.

    Attributes:
        threshold (float): the largest allowed L2 norm.
        timing (str): ``'pre'`` (before the update) or ``'post'``.
    """

    name = 'GradientClipping'
    timing = 'pre'

    def __init__(self, threshold):
        check_real('GradientClipping', 'threshold', threshold, low=0)
        self.threshold = threshold

    def __call__(self, opt):
        params = [p for p in opt.target.params(include_uninit=False)
                  if p.grad is not None]
        norm = math.sqrt(_sum_sqnorm([p.grad for p in params]))
        if norm == 0:
            return
        rate = self.threshold / norm
        if rate >= 1:
            return
        for param in params:
            grad = param.grad
            with backend.using_device(param.device):
                grad *= grad.dtype.type(rate)
