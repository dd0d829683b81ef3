"""Layer normalization of batches of vectors."""
from cpuframe.function_node import FunctionNode
from cpuframe.functions.normalization import _standardize
from cpuframe.utils import type_check


class LayerNormalization(FunctionNode):
    """``y = gamma * standardize(x) + beta`` over the units of each row.

    Forward is one pass; the gradient is made of the closed-form
    ``StandardizeGrad`` and simple FunctionNodes (any order works).
    """

    _axes = (1,)

    def __init__(self, eps=1e-5):
        self.eps = eps

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 2,
            gamma_type.ndim == 1,
            beta_type.ndim == 1,
            gamma_type.dtype == x_type.dtype,
            beta_type.dtype == x_type.dtype,
            gamma_type.shape[0] == x_type.shape[1],
            beta_type.shape == gamma_type.shape,
        )

    def forward(self, inputs):
        x, gamma, beta = inputs
        dtype = _standardize.compute_dtype(x.dtype)
        mean, inv_std, xc = _standardize.moments(x, self._axes, self.eps,
                                                 dtype)
        self.mean, self.inv_std = mean, inv_std
        self.retain_inputs((0, 1))
        y = xc * inv_std
        y *= gamma
        y += beta
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.sum import sum as sum_
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_standardize.StandardizeGrad(
                    self._axes, self.eps, self.mean, self.inv_std).apply(
                        (x, gy * gamma))[0])
            elif i == 1:
                x_hat = _standardize.Standardize(self._axes, self.eps).apply(
                    (x,))[0]
                ret.append(sum_(gy * x_hat, axis=0))
            else:
                ret.append(sum_(gy, axis=0))
        return tuple(ret)


def layer_normalization(x, gamma, beta, eps=1e-5):
    """Layer normalization (Ba et al., 2016) of a batch of vectors.

    Each row of ``x`` is standardized over its units, then scaled and
    shifted per unit::

        y[i, j] = gamma[j] * (x[i, j] - mean_i) / sqrt(var_i + eps) + beta[j]

    with ``mean_i`` and ``var_i`` (biased) taken over row ``i``.

    Args:
        x (Variable or array): Input of shape ``(batch, units)``.
        gamma (Variable or array): Scale, shape ``(units,)``.
        beta (Variable or array): Shift, shape ``(units,)``.
        eps (float): Added to the variance.

    Returns:
        Variable of shape ``(batch, units)``.

    >>> x = np.array([[1., 3.]], np.float32)
    >>> F.layer_normalization(x, np.ones(2, np.float32),
    ...                       np.zeros(2, np.float32), eps=0).array
    array([[-1.,  1.]], dtype=float32)
    """
    return LayerNormalization(eps).apply((x, gamma, beta))[0]
