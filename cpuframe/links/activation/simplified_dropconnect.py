"""Fully-connected layer with simplified dropconnect regularization."""
import numpy

from cpuframe import initializers, link, variable
from cpuframe.functions.noise.simplified_dropconnect import (
    simplified_dropconnect,
)


class SimplifiedDropconnect(link.Link):
    """Fully-connected layer with simplified dropconnect regularization.

    Holds ``W`` ``(out_size, in_size)`` and ``b`` ``(out_size,)`` of
    :func:`~cpuframe.functions.simplified_dropconnect`.

    Notice: as in Chainer, this averages before the activation rather
    than sampling from a Gaussian as the paper does.

    Args:
        in_size (int or None): Input size; None infers it from the first
            input.
        out_size (int): Output size.
        ratio (float): Dropconnect ratio.
        nobias (bool): No bias.
        initialW: Initializer of ``W`` (default ``HeNormal(1/sqrt(2))``).
        initial_bias: Initializer of ``b`` (default zero).

    >>> l = L.SimplifiedDropconnect(3, 2)
    >>> l(np.ones((4, 3), np.float32), train=False).shape
    (4, 2)
    """

    def __init__(self, in_size, out_size, ratio=.5, nobias=False,
                 initialW=None, initial_bias=None):
        super().__init__()
        self.out_size = out_size
        self.ratio = ratio
        if initialW is None:
            initialW = initializers.HeNormal(1. / numpy.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(
                initializers._get_initializer(initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                self.b = variable.Parameter(
                    initializers.Zero() if initial_bias is None else
                    initializers._get_initializer(initial_bias), out_size)

    def _initialize_params(self, in_size):
        self.W.initialize((self.out_size, in_size))

    def printable_specs(self):
        return (('out_size', self.out_size), ('ratio', self.ratio),
                ('nobias', self.b is None))

    def forward(self, x, train=True, mask=None, use_batchwise_mask=True):
        """Applies the layer; see :func:`simplified_dropconnect`.

        A ``mask`` given here is also kept as the persistent ``mask`` (the
        first one given), as Chainer does.
        """
        if self.W.array is None:
            self._initialize_params(x.size // x.shape[0])
        if mask is not None and 'mask' not in self.__dict__:
            self.add_persistent('mask', mask)
        return simplified_dropconnect(x, self.W, self.b, self.ratio, train,
                                      mask, use_batchwise_mask)
