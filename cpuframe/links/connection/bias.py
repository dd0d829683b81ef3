"""Broadcasted elementwise addition with a (learned) bias."""
from cpuframe import link, variable
from cpuframe.links.connection._axis_broadcast import broadcast_along
from cpuframe.variable import as_variable


class Bias(link.Link):
    """``x + b``, with ``b`` broadcast along ``x``'s axes from ``axis`` on.

    ``b.shape`` must equal ``x.shape[axis:axis + b.ndim]``.  With ``shape``
    given, ``b`` is a learned parameter (initialized to 0) and the link
    takes one input; without it the link takes ``(x, b)``.

    Args:
        axis (int): the first axis of ``x`` that ``b`` is aligned with.
        shape (tuple of ints): the shape of the learned ``b``, or None.
    """

    def __init__(self, axis=1, shape=None):
        super().__init__()
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(0, shape)
        self.axis = axis

    def forward(self, *xs):
        if len(xs) == 1:
            if not hasattr(self, 'b'):
                raise ValueError('Bias: the link has no learned b (shape was '
                                 'None); call it with (x, b)')
            x, b = xs[0], self.b
        elif len(xs) == 2:
            x, b = xs
        else:
            raise ValueError('Bias: accepts only one or two inputs, got {}'
                             .format(len(xs)))
        x = as_variable(x)
        b = as_variable(b)
        return x + broadcast_along('Bias', x, b, self.axis)
