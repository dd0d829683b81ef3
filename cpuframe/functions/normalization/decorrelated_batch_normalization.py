"""Decorrelated batch normalization (Huang et al., 2018): ZCA whitening of
groups of channels with batch statistics, or with fixed ones."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import argument, type_check


def _grouped(x, groups):
    """``(b, c, *spatial)`` as ``(groups, c // groups, b * prod(spatial))``:
    group ``k`` holds channels ``k * C .. (k + 1) * C - 1``."""
    axes = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(axes).reshape(groups, x.shape[1] // groups, -1)


def _ungrouped(y, shape):
    """Inverse of :func:`_grouped` for an input of ``shape``."""
    b, c = shape[:2]
    axes = (1, 0) + tuple(range(2, len(shape)))
    return y.reshape((c, b) + tuple(shape[2:])).transpose(axes)


def _compute_dtype(dtype):
    # numpy.linalg has no float16: whiten half-precision inputs in float32
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


def _check_x(in_types, groups):
    x = in_types[0]
    type_check.expect(
        x.dtype.kind == 'f',
        x.ndim >= 2,
        x.shape[1] % groups == 0,
    )


def _check_groups(name, groups):
    if not isinstance(groups, (int, numpy.integer)) or \
            isinstance(groups, bool) or groups < 1:
        raise ValueError('{}: expected groups as an int >= 1, got '
                         '{!r}'.format(name, groups))
    return int(groups)


def _update(running, new, decay):
    """``running = decay * running + (1 - decay) * new``, in place."""
    host = backend.get_device('@numpy').send(running)
    backend.copyto(running, (decay * host + (1 - decay) * new).astype(
        host.dtype))


class DecorrelatedBatchNormalization(FunctionNode):
    """ZCA whitening with batch statistics; updates the running mean and
    projection (when given) in place."""

    def __init__(self, groups=16, eps=2e-5, mean=None, projection=None,
                 decay=0.9):
        self.groups = _check_groups('decorrelated_batch_normalization',
                                    groups)
        self.eps = eps
        self.running_mean = mean
        self.running_projection = projection
        self.decay = decay

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        _check_x(in_types, self.groups)
        c = type_check.eval(in_types[0].shape[1])
        g, C = self.groups, c // self.groups
        for name, stat, shape in (
                ('running_mean', self.running_mean, (g, C)),
                ('running_projection', self.running_projection, (g, C, C))):
            if stat is not None and tuple(stat.shape) != shape:
                raise type_check.InvalidType(
                    '{}.shape == {}'.format(name, shape),
                    '{}.shape == {}'.format(name, tuple(stat.shape)),
                    '{}: expected {} of shape (groups, C{}) = {} for {} '
                    'channels in {} groups, got {}'.format(
                        self.label, name, ', C' if len(shape) == 3 else '',
                        shape, c, g, tuple(stat.shape)))

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        cdt = _compute_dtype(x.dtype)
        xg = _grouped(x, self.groups).astype(cdt, copy=False)
        m = xg.shape[2]
        mean = xg.mean(axis=2, keepdims=True)
        xc = xg - mean
        C = xg.shape[1]
        cov = xp.matmul(xc, xc.transpose(0, 2, 1)) / cdt.type(m) + \
            cdt.type(self.eps) * xp.eye(C, dtype=cdt)
        lam, D = xp.linalg.eigh(cov)
        # the ZCA matrix Sigma^(-1/2) = D diag(lam^(-1/2)) D^T
        W = xp.matmul(D * (lam ** -0.5)[:, None, :], D.transpose(0, 2, 1))
        y = xp.matmul(W, xc)
        self._saved = (xc, lam, D, W)
        if self.running_mean is not None:
            _update(self.running_mean, mean[:, :, 0], self.decay)
        if self.running_projection is not None:
            # Chainer's scaling of the running projection, kept so that
            # statistics trained with either framework agree
            adjust = m / max(m - 1., 1.)
            _update(self.running_projection, adjust * W, self.decay)
        return utils.force_array(_ungrouped(y, x.shape), x.dtype),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return DecorrelatedBatchNormalizationGrad(
            self.groups, *self._saved).apply((gy,))


class DecorrelatedBatchNormalizationGrad(FunctionNode):
    """The gradient of the whitening with respect to ``x`` (first order).

    With the centred groups ``X`` (``C x m``), ``Sigma = X X^T / m + eps I
    = D diag(lam) D^T``, ``W = Sigma^(-1/2)`` and ``Y = W X``: for the
    output gradient ``G``, ``dW = G X^T`` and, by the Daleckii-Krein
    formula for the matrix function ``lam^(-1/2)``,
    ``dSigma = D (L o (D^T sym(dW) D)) D^T`` with
    ``L_ij = -1 / (s_i s_j (s_i + s_j))``, ``s = sqrt(lam)`` (its limit on
    equal eigenvalues included).  Then ``dX = W G + 2/m dSigma X``, and
    the centring subtracts its mean over the batch.
    """

    def __init__(self, groups, xc, lam, D, W):
        self.groups = groups
        self.xc, self.lam, self.D, self.W = xc, lam, D, W

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        xc, lam, D, W = self.xc, self.lam, self.D, self.W
        G = _grouped(gy, self.groups).astype(xc.dtype, copy=False)
        m = G.shape[2]
        gW = xp.matmul(G, xc.transpose(0, 2, 1))
        sym = (gW + gW.transpose(0, 2, 1)) / 2
        s = xp.sqrt(lam)
        L = -1 / (s[:, :, None] * s[:, None, :] *
                  (s[:, :, None] + s[:, None, :]))
        inner = xp.matmul(xp.matmul(D.transpose(0, 2, 1), sym), D) * L
        dsigma = xp.matmul(xp.matmul(D, inner), D.transpose(0, 2, 1))
        gx = xp.matmul(W, G) + (2 / m) * xp.matmul(dsigma, xc)
        gx -= gx.mean(axis=2, keepdims=True)
        return utils.force_array(_ungrouped(gx, gy.shape), gy.dtype),

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'decorrelated_batch_normalization: gradients of second order are '
            'not supported')


class FixedDecorrelatedBatchNormalization(FunctionNode):
    """``y = projection (x - mean)`` per group; inputs ``(x, mean,
    projection)``."""

    def __init__(self, groups):
        self.groups = _check_groups('fixed_decorrelated_batch_normalization',
                                    groups)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'mean', 'projection'))
        _check_x(in_types, self.groups)
        x, mean, projection = in_types
        g = self.groups
        C = type_check.eval(x.shape[1]) // g
        type_check.expect(
            mean.dtype == x.dtype,
            projection.dtype == x.dtype,
            mean.shape == (g, C),
            projection.shape == (g, C, C),
        )

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2))
        x, mean, projection = inputs
        xp = backend.get_array_module(*inputs)
        xc = _grouped(x, self.groups) - mean[:, :, None]
        y = xp.matmul(projection, xc)
        return utils.force_array(_ungrouped(y, x.shape), x.dtype),

    def backward(self, indexes, grad_outputs):
        x, mean, projection = self.get_retained_inputs()
        gy, = grad_outputs
        grads = FixedDecorrelatedBatchNormalizationGrad(self.groups).apply(
            (x, mean, projection, gy))
        return tuple(grads[i] for i in indexes)


class FixedDecorrelatedBatchNormalizationGrad(FunctionNode):
    """Inputs ``(x, mean, projection, gy)``; outputs the gradients of
    ``x``, ``mean`` and ``projection``: with ``G`` the grouped ``gy`` and
    ``X`` the grouped, centred ``x``, ``P^T G``, ``-sum_m P^T G`` and
    ``G X^T``.  Its own gradient is built of differentiable functions, so
    every order works."""

    def __init__(self, groups):
        self.groups = groups

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2, 3))
        x, mean, projection, gy = inputs
        xp = backend.get_array_module(*inputs)
        G = _grouped(gy, self.groups)
        xc = _grouped(x, self.groups) - mean[:, :, None]
        gxg = xp.matmul(projection.transpose(0, 2, 1), G)
        gproj = xp.matmul(G, xc.transpose(0, 2, 1))
        dtype = x.dtype
        return (utils.force_array(_ungrouped(gxg, x.shape), dtype),
                utils.force_array(-gxg.sum(axis=2), dtype),
                utils.force_array(gproj, dtype))

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.transpose import transpose
        from cpuframe.functions.math.basic_math import matmul
        from cpuframe.functions.math.sum import sum as sum_
        x, mean, projection, gy = self.get_retained_inputs()
        ggx, ggmean, ggproj = grad_outputs
        g = self.groups
        C = mean.shape[1]
        shape = x.shape
        perm = (1, 0) + tuple(range(2, len(shape)))

        def grouped(v):
            return reshape(transpose(v, perm), (g, C, -1))

        def ungrouped(v):
            inverse = tuple(numpy.argsort(perm))
            return transpose(reshape(v, (shape[1], shape[0]) + shape[2:]),
                             inverse)

        G = grouped(gy)
        m = G.shape[2]
        xc = grouped(x) - broadcast_to(reshape(mean, (g, C, 1)), (g, C, m))
        # the sum of <gg, output> over the three outputs, differentiated
        d_G = 0
        d_proj = 0
        if ggx is not None:
            ggxg = grouped(ggx)
            d_G = d_G + matmul(projection, ggxg)
            d_proj = d_proj + matmul(G, ggxg, transb=True)
        if ggmean is not None:
            col = broadcast_to(reshape(ggmean, (g, C, 1)), (g, C, m))
            d_G = d_G - matmul(projection, col)
            d_proj = d_proj - matmul(
                reshape(sum_(G, axis=2), (g, C, 1)),
                reshape(ggmean, (g, 1, C)))
        d_xc = None
        if ggproj is not None:
            d_G = d_G + matmul(ggproj, xc)
            d_xc = matmul(ggproj, G, transa=True)
        out = []
        for i in indexes:
            if i == 0:
                out.append(None if d_xc is None else ungrouped(d_xc))
            elif i == 1:
                out.append(None if d_xc is None else -sum_(d_xc, axis=2))
            elif i == 2:
                out.append(None if isinstance(d_proj, int) else d_proj)
            else:
                out.append(None if isinstance(d_G, int) else ungrouped(d_G))
        return tuple(out)


def decorrelated_batch_normalization(x, **kwargs):
    """decorrelated_batch_normalization(x, *, groups=16, eps=2e-5, \
running_mean=None, running_projection=None, decay=0.9)

    Decorrelated batch normalization: ZCA whitening with batch statistics.

    The ``c`` channels of ``x`` ``(b, c, ...)`` are cut into ``groups``
    groups of ``C = c / groups`` consecutive channels; each group, as a
    ``C x m`` matrix ``X`` over the ``m = b * prod(spatial)`` positions,
    is centred by its mean ``mu`` and whitened:

    .. math::
        \\Sigma = \\frac{1}{m} (X - \\mu)(X - \\mu)^T + \\epsilon I, \\quad
        Y = \\Sigma^{-1/2} (X - \\mu),

    with :math:`\\Sigma^{-1/2} = D \\Lambda^{-1/2} D^T` from the
    eigendecomposition (ZCA whitening), so each group of the output has
    zero mean and covariance close to the identity.

    Args:
        x: input ``(b, c, ...)``, ``c`` divisible by ``groups``.
        groups (int): number of channel groups.
        eps (float): added to the covariance's diagonal.
        running_mean: None, or a ``(groups, C)`` array updated in place to
            ``decay * running_mean + (1 - decay) * mu``.
        running_projection: None, or a ``(groups, C, C)`` array updated in
            place to ``decay * running_projection + (1 - decay) *
            m / (m - 1) * Sigma^(-1/2)`` (Chainer's update).
        decay (float): the decay of the running averages.

    Returns:
        Variable of ``x``'s shape and dtype (float16 is whitened in
        float32).  Only first-order gradients are supported (as in
        Chainer).

    See: `Decorrelated Batch Normalization
    <https://arxiv.org/abs/1804.08450>`_

    >>> x = np.random.RandomState(0).randn(64, 4).astype(np.float32)
    >>> y = F.decorrelated_batch_normalization(x, groups=2)
    >>> bool(abs(np.cov(y.array[:, :2].T, bias=True) - np.eye(2)).max()
    ...      < 1e-3)
    True
    """
    groups, eps, running_mean, running_projection, decay = \
        argument.parse_kwargs(
            kwargs, ('groups', 16), ('eps', 2e-5), ('running_mean', None),
            ('running_projection', None), ('decay', 0.9))
    return DecorrelatedBatchNormalization(
        groups, eps, running_mean, running_projection, decay).apply((x,))[0]


def fixed_decorrelated_batch_normalization(x, mean, projection, groups=16):
    """Decorrelated batch normalization with fixed statistics.

    Each group of ``C = c / groups`` channels of ``x`` (see
    :func:`decorrelated_batch_normalization`) becomes
    ``projection[k] @ (X_k - mean[k])`` (the test mode of
    :class:`~cpuframe.links.DecorrelatedBatchNormalization`).

    Args:
        x: input ``(b, c, ...)``.
        mean: ``(groups, C)``.
        projection: ``(groups, C, C)``.
        groups (int): number of channel groups.

    Returns:
        Variable of ``x``'s shape.  Differentiable with respect to all three
        inputs, to every order (Chainer's gradients with respect to
        ``mean`` and ``projection`` are not the derivatives; these are).

    >>> x = np.ones((3, 4), np.float32)
    >>> mean = np.ones((2, 2), np.float32)
    >>> proj = np.tile(np.eye(2, dtype=np.float32), (2, 1, 1))
    >>> F.fixed_decorrelated_batch_normalization(x, mean, proj, groups=2).array
    array([[0., 0., 0., 0.],
           [0., 0., 0., 0.],
           [0., 0., 0., 0.]], dtype=float32)
    """
    return FixedDecorrelatedBatchNormalization(groups).apply(
        (x, mean, projection))[0]
