"""Layer-wise adaptive rate scaling (LARS)."""
from cpuframe import backend
from cpuframe.optimizers._checks import check_real


class GradientLARS:
    """Scale each parameter's gradient by its layer-wise trust ratio.

    For a parameter :math:`w` with gradient :math:`g` and
    :math:`\\|w\\| >` ``threshold``:

    .. math::

        g \\leftarrow \\frac{\\|w\\|}{\\epsilon + \\|g\\| + \\beta \\|w\\|}
            (g + \\beta w)

    (`Large Batch Training of Convolutional Networks
    <https://arxiv.org/abs/1708.03888>`_); parameters whose norm is at or
    below the threshold get :math:`g + \\beta w` unscaled.

    Args:
        threshold (float): the weight norm above which gradients are scaled.
        weight_decay (float): weight decay coefficient :math:`\\beta`.
        eps (float): small value for numerical stability.

    Attributes:
        threshold, weight_decay, eps: as given.
        timing (str): ``'pre'`` (before the update) or ``'post'``.
        call_for_each_param (bool): True: called with each ``(rule, param)``.
    """

    name = 'GradientLARS'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, threshold=1e-2, weight_decay=0.0, eps=1e-9):
        check_real('GradientLARS', 'threshold', threshold, low=0)
        check_real('GradientLARS', 'weight_decay', weight_decay, low=0)
        check_real('GradientLARS', 'eps', eps, low=0)
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule, param):
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = backend.get_array_module(p)
        with backend.using_device(param.device):
            p_norm = float(xp.linalg.norm(p))
            g_norm = float(xp.linalg.norm(g))
            if p_norm > self.threshold:
                rate = p_norm / (self.eps + g_norm +
                                 self.weight_decay * p_norm)
            else:
                rate = 1.0
            g += self.weight_decay * p
            g *= g.dtype.type(rate)
