"""Swish activation with a learned ``beta``."""
from cpuframe import initializers, link, variable
from cpuframe.functions.activation.swish import swish


class Swish(link.Link):
    """``y = x * sigmoid(beta * x)`` with a learned ``beta`` of ``beta_shape``.

    ``beta`` is broadcast along ``x``'s axes from 1 on
    (``beta.shape == x.shape[1:1 + beta.ndim]``).  With ``beta_shape=None``
    the shape is taken from the first input as ``x.shape[1:]``.

    Args:
        beta_shape (tuple of ints or None): the shape of ``beta``.
        beta_init: the initial value of ``beta`` (a scalar, an array or an
            initializer); 1.0 by default.
    """

    def __init__(self, beta_shape, beta_init=1.0):
        super().__init__()
        with self.init_scope():
            self.beta = variable.Parameter(
                initializers._get_initializer(beta_init))
            if beta_shape is not None:
                self._initialize_params(beta_shape)

    def _initialize_params(self, beta_shape):
        if isinstance(beta_shape, int):
            beta_shape = (beta_shape,)
        self.beta.initialize(tuple(beta_shape))

    def forward(self, x):
        if self.beta.array is None:
            if len(x.shape) < 2:
                raise ValueError(
                    'Swish: cannot infer beta_shape from an input of shape '
                    '{} (needs at least 2 dimensions)'.format(tuple(x.shape)))
            self._initialize_params(x.shape[1:])
        return swish(x, self.beta)
