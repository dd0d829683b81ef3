"""Bilinear layer."""
import numpy

from cpuframe import initializers, link, variable
from cpuframe.functions.connection.bilinear import bilinear


class Bilinear(link.Link):
    """``y_k = e1^T W_k e2 + V1_k^T e1 + V2_k^T e2 + b_k``.

    W is (left_size, right_size, out_size); with ``nobias`` only the
    bilinear term is used.  ``initial_bias`` is a tuple (V1, V2, b).
    """

    def __init__(self, left_size, right_size, out_size, nobias=False,
                 initialW=None, initial_bias=None):
        super().__init__()
        self.in_sizes = (left_size, right_size)
        self.nobias = nobias
        with self.init_scope():
            shape = (left_size, right_size, out_size)
            if isinstance(initialW, numpy.ndarray) and initialW.shape != shape:
                raise ValueError('Bilinear: expected initialW of shape {}, got '
                                 '{}'.format(shape, initialW.shape))
            W_init = initializers._get_initializer(initialW) or \
                initializers.HeNormal(1.0 / numpy.sqrt(2))
            self.W = variable.Parameter(W_init, shape)
            if not nobias:
                if initial_bias is None:
                    V1 = V2 = b = initializers.Zero()
                elif isinstance(initial_bias, tuple) and len(initial_bias) == 3:
                    V1, V2, b = (initializers._get_initializer(v)
                                 for v in initial_bias)
                else:
                    raise ValueError('Bilinear: expected initial_bias as a '
                                     'tuple (V1, V2, b), got {!r}'.format(
                                         type(initial_bias).__name__))
                self.V1 = variable.Parameter(V1, (left_size, out_size))
                self.V2 = variable.Parameter(V2, (right_size, out_size))
                self.b = variable.Parameter(b, out_size)

    def forward(self, e1, e2):
        if self.nobias:
            return bilinear(e1, e2, self.W)
        return bilinear(e1, e2, self.W, self.V1, self.V2, self.b)
