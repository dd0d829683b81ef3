"""L2 regularization as an optimizer hook."""
from cpuframe import backend
from cpuframe.optimizers._checks import check_real


class WeightDecay:
    """Add ``rate * param`` to each gradient (L2 regularization).

    Args:
        rate (float): coefficient of the weight decay.

    Attributes:
        rate (float): coefficient of the weight decay.
        timing (str): ``'pre'`` (before the update) or ``'post'``.
        call_for_each_param (bool): True: called with each ``(rule, param)``.
    """

    name = 'WeightDecay'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate):
        check_real('WeightDecay', 'rate', rate)
        self.rate = rate

    def __call__(self, rule, param):
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        with backend.using_device(param.device):
            g += self.rate * p
