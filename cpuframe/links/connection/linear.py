"""Fully connected layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.connection.linear import linear


def _init_bias(initial_bias):
    if initial_bias is None:
        return initializers.Zero()
    return initializers._get_initializer(initial_bias)


class Linear(link.Link):
    """``y = x W^T + b`` with ``W`` of shape (out_size, in_size).

    ``Linear(out_size)`` and ``Linear(None, out_size)`` infer ``in_size``
    from the first input.  ``initialW`` defaults to LeCunNormal, the bias
    to zero; ``nobias=True`` drops the bias.
    """

    def __init__(self, in_size, out_size=None, nobias=False, initialW=None,
                 initial_bias=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.in_size = in_size
        self.out_size = out_size
        with self.init_scope():
            W_init = initializers._get_initializer(initialW) or \
                initializers.LeCunNormal()
            self.W = variable.Parameter(W_init)
            if in_size is not None:
                self._initialize_params(in_size)
            self.b = None if nobias else variable.Parameter(
                _init_bias(initial_bias), out_size)

    def _initialize_params(self, in_size):
        self.W.initialize((self.out_size, in_size))

    @classmethod
    def from_params(cls, W, b=None, nobias=False):
        """A Linear whose parameters are copies of ``W`` (out_size,
        in_size) and ``b`` (arrays or Variables); ``nobias`` drops the
        bias whatever ``b`` is (Chainer 7)."""
        out_size, in_size = W.shape
        if b is not None and out_size != b.size:
            raise ValueError('`out_size` does not match the size of `b`')
        return cls(in_size, out_size, nobias,
                   initialW=variable.as_array(W),
                   initial_bias=variable.as_array(b))

    def printable_specs(self):
        return (('in_size', self.in_size), ('out_size', self.out_size),
                ('nobias', self.b is None))

    def forward(self, x, n_batch_axes=1):
        if self.W.array is None:
            in_size = 1
            for s in x.shape[n_batch_axes:]:
                in_size *= s
            self.in_size = in_size
            self._initialize_params(in_size)
        return linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
