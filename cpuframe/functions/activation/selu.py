"""Scaled exponential linear unit."""
from cpuframe.functions.activation.elu import elu


def selu(x, alpha=1.6732632423543772848170429916717,
         scale=1.0507009873554804934193349852946):
    """Scaled exponential linear unit (Klambauer et al., 2017), elementwise.

    .. math:: y = \\lambda x \\text{ if } x \\ge 0, \\quad
              y = \\lambda \\alpha (e^x - 1) \\text{ if } x < 0

    i.e. ``scale * elu(x, alpha)``.  The defaults are the values that make
    the activations self-normalizing.

    Args:
        x: a float Variable or array of any shape.
        alpha (float): ``alpha`` of the negative part.
        scale (float): the overall scale ``lambda``.

    Returns:
        A Variable of the same shape and dtype.

    >>> F.selu(np.array([0., 1.])).array
    array([0.        , 1.05070099])
    """
    return elu(x, alpha) * scale
