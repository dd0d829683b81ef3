"""L1 regularization as an optimizer hook."""
from cpuframe import backend
from cpuframe.optimizers._checks import check_real


class Lasso:
    """Add ``rate * sign(param)`` to each gradient (L1 regularization).

    Args:
        rate (float): coefficient of the regularization.

    Attributes:
        rate (float): coefficient of the regularization.
        timing (str): ``'pre'`` (before the update) or ``'post'``.
        call_for_each_param (bool): True: called with each ``(rule, param)``.
    """

    name = 'Lasso'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate):
        check_real('Lasso', 'rate', rate)
        self.rate = rate

    def __call__(self, rule, param):
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = backend.get_array_module(p)
        with backend.using_device(param.device):
            g += self.rate * xp.sign(p)
