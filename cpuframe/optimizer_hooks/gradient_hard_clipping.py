"""Element-wise clipping of gradients."""
from cpuframe import backend
from cpuframe.optimizers._checks import check_real


class GradientHardClipping:
    """Clip every gradient element into ``[lower_bound, upper_bound]``.

    Args:
        lower_bound (float): the smallest allowed value.
        upper_bound (float): the largest allowed value.

    Attributes:
        lower_bound (float): the smallest allowed value.
        upper_bound (float): the largest allowed value.
        timing (str): ``'pre'`` (before the update) or ``'post'``.
        call_for_each_param (bool): True: called with each ``(rule, param)``.
    """

    name = 'GradientHardClipping'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, lower_bound, upper_bound):
        check_real('GradientHardClipping', 'lower_bound', lower_bound)
        check_real('GradientHardClipping', 'upper_bound', upper_bound)
        if lower_bound > upper_bound:
            raise ValueError(
                'GradientHardClipping: lower_bound must be <= upper_bound, '
                'got {} > {}'.format(lower_bound, upper_bound))
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule, param):
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        with backend.using_device(param.device):
            xp.clip(grad, self.lower_bound, self.upper_bound, out=grad)
