"""Broadcasted elementwise multiplication with a (learned) scale."""
from cpuframe import link, variable
from cpuframe.links.connection._axis_broadcast import broadcast_along
from cpuframe.links.connection.bias import Bias
from cpuframe.variable import as_variable


class Scale(link.Chain):
    """``x * W`` (``+ b``), ``W`` broadcast along ``x``'s axes from ``axis``.

    ``W.shape`` must equal ``x.shape[axis:axis + W.ndim]``.  With
    ``W_shape`` given, ``W`` is a learned parameter (initialized to 1) and
    the link takes one input; without it the link takes ``(x, W)``.  With
    ``bias_term=True`` a child ``bias`` (a :class:`Bias` of ``W_shape``, or
    of ``bias_shape`` when ``W`` is not learned) is added after scaling.

    Args:
        axis (int): the first axis of ``x`` that ``W`` is aligned with.
        W_shape (tuple of ints): the shape of the learned ``W``, or None.
        bias_term (bool): whether to add a learned bias.
        bias_shape (tuple of ints): the bias shape when ``W_shape`` is None.
    """

    def __init__(self, axis=1, W_shape=None, bias_term=False,
                 bias_shape=None):
        super().__init__()
        self.axis = axis
        with self.init_scope():
            if W_shape is not None:
                self.W = variable.Parameter(1, W_shape)
                if bias_term:
                    self.bias = Bias(axis, W_shape)
            elif bias_term:
                if bias_shape is None:
                    raise ValueError(
                        'Scale: bias_shape should be given if W is not a '
                        'learned parameter and bias_term is True')
                self.bias = Bias(axis, bias_shape)

    def forward(self, *xs):
        if hasattr(self, 'W'):
            if len(xs) != 1:
                raise ValueError('Scale: with a learned W the link takes one '
                                 'input, got {}'.format(len(xs)))
            x, W = xs[0], self.W
        else:
            if len(xs) != 2:
                raise ValueError('Scale: without a learned W the link takes '
                                 '(x, W), got {} inputs'.format(len(xs)))
            x, W = xs
        x = as_variable(x)
        W = as_variable(W)
        z = x * broadcast_along('Scale', x, W, self.axis)
        if hasattr(self, 'bias'):
            return self.bias(z)
        return z
