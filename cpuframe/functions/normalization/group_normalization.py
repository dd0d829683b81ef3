"""Group normalization: standardize groups of channels of each sample."""
from cpuframe.function_node import FunctionNode
from cpuframe.functions.normalization import _standardize
from cpuframe.utils import type_check


class GroupNormalization(FunctionNode):
    """``y = gamma * standardize_groups(x) + beta``, per-channel affine.

    The channels of each sample are split into ``groups`` contiguous
    groups; each group (with all its spatial positions) is standardized
    on its own.  The gradient is made of the closed-form
    ``StandardizeGrad`` and simple FunctionNodes (any order works).
    """

    _axes = (2,)

    def __init__(self, groups, eps=1e-5):
        if isinstance(groups, bool) or int(groups) != groups or groups < 1:
            raise ValueError('{}: expected groups as an int >= 1, got {!r}'
                             .format(self.label, groups))
        self.groups = int(groups)
        self.eps = eps

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('groups',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim >= 2,
            gamma_type.ndim == 1,
            beta_type.ndim == 1,
            gamma_type.dtype == x_type.dtype,
            beta_type.dtype == x_type.dtype,
            x_type.shape[1] == gamma_type.shape[0],
            beta_type.shape == gamma_type.shape,
            x_type.shape[1] % self.groups == 0,
        )

    def _grouped(self, shape):
        return (shape[0], self.groups, -1)

    def _channel_shape(self, shape):
        return (1, shape[1]) + (1,) * (len(shape) - 2)

    def forward(self, inputs):
        x, gamma, beta = inputs
        dtype = _standardize.compute_dtype(x.dtype)
        xr = x.reshape(self._grouped(x.shape))
        mean, inv_std, xc = _standardize.moments(xr, self._axes, self.eps,
                                                 dtype)
        self.mean, self.inv_std = mean, inv_std
        self.retain_inputs((0, 1))
        y = (xc * inv_std).reshape(x.shape)
        channel = self._channel_shape(x.shape)
        y *= gamma.reshape(channel)
        y += beta.reshape(channel)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.sum import sum as sum_
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        grouped = self._grouped(x.shape)
        others = (0,) + tuple(range(2, x.ndim))
        ret = []
        for i in indexes:
            if i == 0:
                g = gy * reshape(gamma, self._channel_shape(x.shape))
                gx = _standardize.StandardizeGrad(
                    self._axes, self.eps, self.mean, self.inv_std).apply(
                        (reshape(x, grouped), reshape(g, grouped)))[0]
                ret.append(reshape(gx, x.shape))
            elif i == 1:
                x_hat = _standardize.Standardize(self._axes, self.eps).apply(
                    (reshape(x, grouped),))[0]
                ret.append(sum_(gy * reshape(x_hat, x.shape), axis=others))
            else:
                ret.append(sum_(gy, axis=others))
        return tuple(ret)


def group_normalization(x, groups, gamma, beta, eps=1e-5):
    """Group normalization (Wu and He, 2018).

    The ``c`` channels of each sample are split into ``groups`` groups of
    ``c // groups`` consecutive channels; each group is standardized over
    its channels and spatial positions, then every channel is scaled and
    shifted::

        y[n, ch, ...] = gamma[ch] * (x[n, ch, ...] - mean[n, g])
                        / sqrt(var[n, g] + eps) + beta[ch],  g = ch // (c // groups)

    Args:
        x (Variable or array): Input of shape ``(n, c, ...)``.
        groups (int): Number of groups; must divide ``c``.
        gamma (Variable or array): Scale, shape ``(c,)``.
        beta (Variable or array): Shift, shape ``(c,)``.
        eps (float): Added to the variance.

    Returns:
        Variable of the shape of ``x``.

    >>> x = np.array([[1., 3., 0., 4.]], np.float32)
    >>> one, zero = np.ones(4, np.float32), np.zeros(4, np.float32)
    >>> F.group_normalization(x, 2, one, zero, eps=0).array
    array([[-1.,  1., -1.,  1.]], dtype=float32)
    """
    return GroupNormalization(groups, eps).apply((x, gamma, beta))[0]
