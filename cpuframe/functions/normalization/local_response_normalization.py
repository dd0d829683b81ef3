"""Local response normalization across channels (AlexNet)."""
from cpuframe.backends import intel64
from cpuframe.configuration import config
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _channel_window_sum(a, half_n):
    """``s[:, i] = sum of a[:, j] for |i - j| <= half_n`` (clipped at the ends)."""
    s = a.copy()
    for i in range(1, half_n + 1):
        s[:, i:] += a[:, :-i]
        s[:, :-i] += a[:, i:]
    return s


class LocalResponseNormalizationGrad(FunctionNode):
    """Gradient of :class:`LocalResponseNormalization` (not differentiable).

    ``gx = gy * u ** -beta - 2 alpha beta x W(y gy / u)`` with ``W`` the
    channel window sum and ``u = k + alpha W(x ** 2)`` of the forward pass.
    """

    # mixed_bf16: oneDNN's bf16 backward reads x and gy and recomputes y
    # in float32 (the reference below does the same from the rounded x)
    bf16_inputs = (0, 2)
    bf16_outputs = (0,)

    def __init__(self, lrn):
        self.lrn = lrn

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'y', 'gy'))
        type_check.expect(in_types[0].shape == in_types[2].shape)

    def forward(self, inputs):
        x, y, gy = inputs
        lrn = self.lrn
        if lrn.unit is None or self._bf16_forward:
            # the forward ran on oneDNN; in mixed_bf16 y unrounded, from x
            lrn._compute_unit(x)
            if self._bf16_forward:
                y = x * lrn.scale
        summed = _channel_window_sum(y * gy / lrn.unit, lrn.n // 2)
        gx = gy * lrn.scale
        gx -= x.dtype.type(2 * lrn.alpha * lrn.beta) * x * summed
        return gx,

    def intel64_supports(self, inputs):
        ctx = self.lrn._intel64_ctx
        return ctx is not None and ctx.training and \
            intel64.all_float32(inputs)

    def forward_intel64(self, inputs):
        x, _, gy = inputs
        return intel64.native().lrn_backward(x, gy, self.lrn._intel64_ctx),

    def backward(self, indexes, grad_outputs):
        # As in Chainer: no closed form is provided for the second order.
        raise NotImplementedError(
            '{}: double backpropagation of local_response_normalization is '
            'not supported'.format(self.label))


class LocalResponseNormalization(FunctionNode):
    """``y = x / (k + alpha * W(x ** 2)) ** beta`` across channels."""

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0,), (0,))

    def __init__(self, n=5, k=2, alpha=1e-4, beta=.75):
        if int(n) != n or n < 1:
            raise ValueError('{}: expected an int n >= 1, got {!r}'.format(
                self.label, n))
        self.n = int(n)
        self.k = k
        self.alpha = alpha
        self.beta = beta
        self.unit = None
        self.scale = None
        self._intel64_ctx = None

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].ndim >= 2)

    def _compute_unit(self, x):
        dtype = x.dtype.type
        unit = _channel_window_sum(x * x, self.n // 2)
        unit *= dtype(self.alpha)
        unit += dtype(self.k)
        self.unit = unit
        self.scale = unit ** dtype(-self.beta)

    def forward(self, inputs):
        x, = inputs
        self._compute_unit(x)
        return x * self.scale,

    def intel64_supports(self, inputs):
        # oneDNN's window is local_size = 2 * (n // 2) + 1 channels centred
        # on each channel, Chainer's n // 2 on each side for odd and even n
        # alike; its alpha is divided by local_size (the C++ side
        # multiplies it back).
        # Some of oneDNN's LRN kernels (the AVX2 ones among them) slide the
        # window as a running sum, so one NaN or infinity there (or a square
        # that overflows, |x| > ~1.8e19) spoils every later channel, where
        # the NumPy path keeps it to the window: such inputs take the NumPy
        # path (one read of x).
        x, = inputs
        return intel64.all_float32(inputs) and 2 <= x.ndim <= 5 and \
            x.size > 0 and intel64.all_within(x, -_LARGEST_SQUARABLE,
                                              _LARGEST_SQUARABLE)

    intel64_profitable = intel64.size_rule('local_response_normalization', 0)

    def forward_intel64(self, inputs):
        x, = inputs
        y, self._intel64_ctx = intel64.native().lrn_forward(
            x, self.n, self.k, self.alpha, self.beta,
            bool(config.enable_backprop))
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        return LocalResponseNormalizationGrad(self).apply(
            (x, y, grad_outputs[0]))


# Beyond this, x * x (and a window sum of five) overflows float32.
_LARGEST_SQUARABLE = 1e18


def local_response_normalization(x, n=5, k=2, alpha=1e-4, beta=.75):
    """Local response normalization across neighbouring channels.

    For an input with ``N`` channels (axis 1)::

        y_i = x_i / (k + alpha * sum_{j = max(0, i - n // 2)}
                                   ^{min(N - 1, i + n // 2)} x_j ** 2) ** beta

    (``n // 2`` channels on each side; an even ``n`` sums ``n + 1``
    channels, as Chainer's CPU code does).  Only first-order gradients
    are supported, as in Chainer.

    Args:
        x (Variable or array): Input of shape ``(n, c, ...)``.
        n (int): Window width.
        k (float): Additive constant.
        alpha (float): Scale of the sum of squares.
        beta (float): Exponent.

    Returns:
        Variable of the shape of ``x``.

    See Section 3.3 of Krizhevsky et al., ImageNet Classification with Deep
    Convolutional Neural Networks (2012).

    >>> x = np.ones((1, 3), np.float32)
    >>> F.local_response_normalization(x, n=3, k=1, alpha=1, beta=1).array
    array([[0.33333334, 0.25      , 0.33333334]], dtype=float32)
    """
    return LocalResponseNormalization(n, k, alpha, beta).apply((x,))[0]
