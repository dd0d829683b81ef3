"""Batch normalization with batch statistics, and with fixed statistics."""
import numpy

from cpuframe import backend
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.math._reduction import normalize_axis
from cpuframe.functions.normalization import _standardize
from cpuframe.utils import type_check
from cpuframe.variable import Variable


def _normalize_axis(axis, x_ndim, gamma_ndim, label):
    """The reduced axes: Chainer's default is ``(0,)`` plus trailing axes."""
    if axis is None:
        return (0,) + tuple(range(gamma_ndim + 1, x_ndim))
    return normalize_axis(axis, x_ndim, label)


def _check_param_types(in_types, axis, label, names):
    """Type check of ``x`` and per-channel parameters (named ``names``)."""
    x_type = in_types[0]
    params = in_types[1:]
    type_check.expect(x_type.dtype.kind == 'f')
    for p in params:
        type_check.expect(p.dtype.kind == 'f',
                          p.dtype == params[0].dtype,
                          p.shape == params[0].shape)
    x_ndim = type_check.eval(x_type.ndim)
    gamma_ndim = type_check.eval(params[0].ndim)
    if axis is None:
        type_check.expect(x_type.ndim >= params[0].ndim + 1)
    axes = _normalize_axis(axis, x_ndim, gamma_ndim, label)
    key_axes = tuple(i for i in range(x_ndim) if i not in axes)
    type_check.expect(params[0].ndim == len(key_axes))
    x_shape = type_check.eval(x_type.shape)
    expected = tuple(x_shape[i] for i in key_axes)
    if type_check.eval(params[0].shape) != expected:
        raise type_check.InvalidType(
            '{}.shape == x.shape without the normalized axes {} = {}'.format(
                names[0], axes, expected),
            '{}.shape = {}, x.shape = {}'.format(
                names[0], type_check.eval(params[0].shape), x_shape))
    return axes


def _keep_shape(x_shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(x_shape))


def _expander(ndim, axes):
    """Chainer's ``expander``: indexes a per-channel array (of the kept
    axes) so that it broadcasts against x."""
    return tuple(None if i in axes else slice(None) for i in range(ndim))


def _intel64_layout_ok(x, gamma, axis, label):
    """Whether oneDNN's (N, C, spatial...) batch normalization fits.

    oneDNN normalizes over every axis but 1, for 0 to 3 spatial axes, with
    per-channel (C,) parameters: Chainer's default ``axis`` for a 1-D gamma.
    """
    if not 2 <= x.ndim <= 5 or gamma.ndim != 1 or x.size == 0:
        return False
    try:
        axes = _normalize_axis(axis, x.ndim, gamma.ndim, label)
    except (TypeError, ValueError):
        return False
    return axes == (0,) + tuple(range(2, x.ndim))


def _like_input(array, like):
    """``array`` as NumPy when ``like`` is a NumPy array (the caller's type)."""
    return array if intel64.is_native_array(like) else \
        intel64.to_numpy(array)


def _as_input_type(array, like):
    """The NumPy ``array`` in the type (and storage) of the input ``like``."""
    if not intel64.is_native_array(like):
        return array
    if like.storage_dtype == 'bfloat16':
        return intel64.native().to_bfloat16(array)
    return intel64.from_numpy(numpy.ascontiguousarray(array))


# Where oneDNN's batch normalization and the NumPy path part (issue 29):
# oneDNN sums (x - mean) * gy before scaling by r = 1 / sqrt(var + eps)
# (the NumPy path scales first), so a variance that overflows float32
# (r = 0) or a large x - mean beside a large gy overflows there (0 * inf =
# NaN over a whole channel, inf where the reference is finite), and in
# blocked layouts an inf or NaN in one channel turned its neighbours' y
# NaN. The route keeps inputs whose statistics and gradient sums are far
# from float32's limit; the rest (rare) is computed by the NumPy path. The
# checks read per-channel figures, except one scan of gy when oneDNN is to
# write gx over it (it could not be recomputed after).
_SAFE = float(numpy.finfo(numpy.float32).max) / 16


def _statistics_finite(mean, var):
    return bool(numpy.isfinite(mean).all() and numpy.isfinite(var).all())


def _deviation_bound(inv_std, m):
    """A bound of |x - mean| per channel: sqrt(m * var) <= sqrt(m) / r."""
    r = numpy.asarray(inv_std, numpy.float64).ravel()
    with numpy.errstate(divide='ignore'):
        return numpy.sqrt(float(m)) / r


class _BatchNormalizationImpl:
    """How a BatchNormalization call computes (Chainer 7's interface).

    ``forward`` returns ``(y, y_layout, running_mean, running_var, mean,
    var, inv_std, forward_data)`` and ``backward`` returns
    ``(gx, gx_layout, ggamma, gbeta)``; ``mean``, ``var`` and ``inv_std``
    have gamma's shape, ``expander`` indexes them to broadcast with x,
    ``axis`` is the tuple of reduced axes and the layouts are None (plain
    arrays).  ``forward_data`` is handed from forward to backward.
    """

    def forward(self, axis, gamma, x, x_layout, xp, expander, beta, eps,
                decay, running_mean, running_var):
        raise NotImplementedError()

    def backward(self, axis, gamma, gy, x, x_layout, xp, expander, mean,
                 inv_std, eps, var, forward_data):
        raise NotImplementedError()


class GeneralBatchNormalizationImpl(_BatchNormalizationImpl):
    """The array-module (NumPy) implementation, meant to be subclassed.

    An ``impl_selector(batch_norm_func, inputs)`` given to
    :class:`BatchNormalization` returns the implementation of one call;
    subclasses usually override ``get_mean_and_var`` and
    ``get_ggamma_and_gbeta`` (e.g. to take the statistics over several
    processes, as ChainerMN's multi-node batch normalization does).
    """

    def forward(self, axis, gamma, x, x_layout, xp, expander, beta, eps,
                decay, running_mean, running_var):
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        mean, var = self.get_mean_and_var(axis, gamma, x, xp, dtype)
        inv_std = 1 / xp.sqrt(var.astype(dtype, copy=False) +
                              dtype.type(eps))
        scale = gamma.astype(dtype, copy=False) * inv_std
        y = (x.astype(dtype, copy=False) - mean[expander]) * scale[expander]
        y += beta.astype(dtype, copy=False)[expander]
        if running_mean is not None:
            m = x.size // gamma.size
            adjust = m / max(m - 1.0, 1.0)  # the unbiased variance
            running_mean *= decay
            running_mean += (1 - decay) * mean
            running_var *= decay
            running_var += (1 - decay) * adjust * var
        return (y.astype(x.dtype, copy=False), x_layout, running_mean,
                running_var, mean, var, inv_std, None)

    def get_mean_and_var(self, axis, gamma, x, xp, interm_dtype):
        """The batch mean and (biased) variance over ``axis``."""
        mean = x.mean(axis=axis, dtype=interm_dtype)
        var = x.var(axis=axis, dtype=interm_dtype)
        return mean, var

    def get_ggamma_and_gbeta(self, axis, gamma, gy, x_hat, xp):
        """``(gbeta, ggamma)``: the sums of ``gy`` and ``gy * x_hat``."""
        gbeta = gy.sum(axis=axis, dtype=gamma.dtype)
        ggamma = (gy * x_hat).sum(axis=axis, dtype=gamma.dtype)
        return gbeta, ggamma

    def backward(self, axis, gamma, gy, x, x_layout, xp, expander, mean,
                 inv_std, eps, var, forward_data):
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        x_hat = (x.astype(dtype, copy=False) - mean[expander]) * \
            inv_std[expander]
        gbeta, ggamma = self.get_ggamma_and_gbeta(axis, gamma, gy, x_hat, xp)
        inv_m = dtype.type(1.0 / (x.size // gamma.size))
        scale = (gamma.astype(dtype, copy=False) * inv_std)[expander]
        gx = scale * (gy - (x_hat * ggamma.astype(dtype, copy=False)[
            expander] + gbeta.astype(dtype, copy=False)[expander]) * inv_m)
        return gx.astype(x.dtype, copy=False), x_layout, ggamma, gbeta


def _impl_selector(batch_norm_func, inputs):
    """The default selector: cpuframe's own NumPy/oneDNN routes."""
    return None


class BatchNormalizationGrad(FunctionNode):
    """``(gx, ggamma, gbeta)`` of batch normalization, in closed form.

    With ``x_hat`` and ``r = 1 / sqrt(var + eps)`` of the forward pass and
    ``m`` elements per channel: ``gbeta = sum(gy)``,
    ``ggamma = sum(gy * x_hat)`` and
    ``gx = gamma * r * (gy - (gbeta + x_hat * ggamma) / m)``.
    Its own gradient is built of FunctionNodes (any order works).
    """

    bf16_inputs = (0, 2)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1, 2), ())

    def __init__(self, axes, eps, mean, inv_std, intel64_ctx=None,
                 overwrite_gy=False, impl=None, forward_data=None, var=None):
        self.axes = axes
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std
        # The oneDNN forward's context (its batch statistics), if it ran.
        self._intel64_ctx = intel64_ctx
        # gy is given up (donated by the backward engine): the oneDNN route
        # may write gx over it.
        self.overwrite_gy = overwrite_gy
        # A selected implementation (impl_selector) computes the gradient.
        self._impl = impl
        self._forward_data = forward_data
        self._var = var

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'gy'))
        type_check.expect(in_types[0].shape == in_types[2].shape)

    def forward(self, inputs):
        x, gamma, gy = inputs
        if self._impl is not None:
            return self._forward_impl(x, gamma, gy)
        axes = self.axes
        keep = _keep_shape(x.shape, axes)
        dtype = self.inv_std.dtype
        m = _standardize.reduced_size(x.shape, axes)
        x_hat = (x.astype(dtype, copy=False) - self.mean) * self.inv_std
        gy_c = gy.astype(dtype, copy=False)
        gbeta = gy_c.sum(axis=axes, keepdims=True)
        ggamma = (gy_c * x_hat).sum(axis=axes, keepdims=True)
        scale = gamma.reshape(keep).astype(dtype, copy=False) * self.inv_std
        gx = scale * (gy_c - (x_hat * ggamma + gbeta) * dtype.type(1.0 / m))
        return (gx.astype(x.dtype, copy=False),
                ggamma.reshape(gamma.shape).astype(gamma.dtype, copy=False),
                gbeta.reshape(gamma.shape).astype(gamma.dtype, copy=False))

    def _forward_impl(self, x, gamma, gy):
        shape = gamma.shape
        expander = _expander(x.ndim, self.axes)
        gx, _, ggamma, gbeta = self._impl.backward(
            self.axes, gamma, gy, x, None, backend.get_array_module(x),
            expander, self.mean.reshape(shape), self.inv_std.reshape(shape),
            self.eps, self._var, self._forward_data)
        return (gx, ggamma.astype(gamma.dtype, copy=False),
                gbeta.astype(gamma.dtype, copy=False))

    def intel64_supports(self, inputs):
        return self._intel64_ctx is not None and intel64.all_float32(inputs)

    def forward_intel64(self, inputs):
        x, gamma, gy = inputs
        m = _standardize.reduced_size(x.shape, self.axes)
        bound = _deviation_bound(self.inv_std, m)
        overwrite = self.overwrite_gy and self._gy_small(gy, m, bound)
        gx, ggamma, gbeta = intel64.native().batch_normalization_backward(
            x, gamma, gy, self._intel64_ctx, overwrite_gy=overwrite)
        if not self._sums_safe(ggamma, gbeta, bound):
            # gy is intact (not overwritten): the reference computes it.
            gx, ggamma, gbeta = self.forward(
                tuple(intel64.to_numpy(a) for a in inputs))
            return (_as_input_type(gx, x), _as_input_type(ggamma, gamma),
                    _as_input_type(gbeta, gamma))
        # Each gradient in the type of its input (gamma's for beta's too).
        return (_like_input(gx, x), _like_input(ggamma, gamma),
                _like_input(gbeta, gamma))

    @staticmethod
    def _gy_small(gy, m, bound):
        """Whether every |gy| is small enough that oneDNN's sums pass
        ``_sums_safe``: m * |gy| * |x - mean| and its product with
        |x - mean| again stay below float32's limit (one scan of gy)."""
        dev = max(1.0, float(bound.max()))
        limit = _SAFE / (float(m) ** 1.5 * dev * dev)
        return limit > 0 and intel64.all_within(gy, -limit, limit)

    @staticmethod
    def _sums_safe(ggamma, gbeta, bound):
        ggamma = numpy.asarray(ggamma, numpy.float64).ravel()
        if not (numpy.isfinite(ggamma).all() and
                numpy.isfinite(numpy.asarray(gbeta)).all()):
            return False
        # gx reads (x - mean) * ggamma: it must not overflow either.
        return bool((bound * numpy.abs(ggamma) < _SAFE).all())

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        x, gamma, gy = self.get_retained_inputs()
        ggx, gggamma, ggbeta = grad_outputs
        keep = _keep_shape(x.shape, self.axes)
        g_x, g_gamma, g_gy = _standardize.double_grad(
            x, reshape(gamma, keep), gy, ggx, reshape(gggamma, keep),
            reshape(ggbeta, keep), self.axes, self.eps,
            need_x=0 in indexes, need_gamma=1 in indexes,
            need_gy=2 in indexes, stats=(self.mean, self.inv_std))
        from cpuframe.functions.array.cast import cast
        ret = []
        for i in indexes:
            if i == 0:
                g, like = g_x, x
            elif i == 1:
                g, like = reshape(g_gamma, gamma.shape), gamma
            else:
                g, like = g_gy, gy
            # Computed in x's dtype; each gradient in its input's (float32
            # gamma beside a float64 x, as in Chainer).
            if g is not None and g.dtype != like.dtype:
                g = cast(g, like.dtype)
            ret.append(g)
        return tuple(ret)


class BatchNormalization(FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with batch moments.

    Updates ``running_mean`` and ``running_var`` in place, when given.
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    def __init__(self, eps=2e-5, mean=None, var=None, decay=0.9, axis=None,
                 impl_selector=_impl_selector):
        self.running_mean = mean
        self.running_var = var
        self.eps = eps
        self.decay = decay
        self.axis = axis
        self.mean = None
        self.inv_std = None
        self._intel64_ctx = None
        # impl_selector(self, inputs) returns the implementation of this
        # call (a GeneralBatchNormalizationImpl, say), or None for
        # cpuframe's own routes; Chainer 7's hook, used by ChainerMN.
        self._impl_selector = impl_selector
        self._impl = None
        self.var = None
        self.forward_data = None

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'beta'))
        self._axes = _check_param_types(in_types, self.axis, self.label,
                                        ('gamma', 'beta'))
        shape = type_check.eval(in_types[1].shape)
        for name, stat in (('running_mean', self.running_mean),
                           ('running_var', self.running_var)):
            if stat is not None and tuple(stat.shape) != shape:
                raise type_check.InvalidType(
                    '{}.shape == gamma.shape = {}'.format(name, shape),
                    '{}.shape = {}'.format(name, tuple(stat.shape)))

    def _select_impl(self, inputs):
        if self._impl_selector is _impl_selector:
            return None
        x, gamma, _ = inputs
        axes = _normalize_axis(self.axis, x.ndim, gamma.ndim, self.label)
        self._axes = axes
        self.key_axis = tuple(i for i in range(x.ndim) if i not in axes)
        self.expander = _expander(x.ndim, axes)
        return self._impl_selector(self, inputs)

    def forward(self, inputs):
        x, gamma, beta = inputs
        axes = _normalize_axis(self.axis, x.ndim, gamma.ndim, self.label)
        self._axes = axes
        if self._impl_selector is not _impl_selector:
            self._impl = self._select_impl(inputs)
            if self._impl is not None:
                return self._forward_impl(x, gamma, beta)
        keep = _keep_shape(x.shape, axes)
        dtype = _standardize.compute_dtype(x.dtype, gamma.dtype)
        mean, inv_std, xc, var = _standardize.moments(
            x, axes, self.eps, dtype, return_var=True)
        scale = gamma.reshape(keep).astype(dtype, copy=False) * inv_std
        y = xc * scale + beta.reshape(keep).astype(dtype, copy=False)
        self.mean, self.inv_std = mean, inv_std
        self.retain_inputs((0, 1))
        self._update_running(mean, var, x.shape, gamma.shape)
        return y.astype(x.dtype, copy=False),

    def _forward_impl(self, x, gamma, beta):
        axes = self._axes
        (y, _, running_mean, running_var, mean, var, inv_std,
         self.forward_data) = self._impl.forward(
            axis=axes, gamma=gamma, x=x, x_layout=None,
            xp=backend.get_array_module(x), expander=self.expander,
            beta=beta, eps=self.eps, decay=self.decay,
            running_mean=self.running_mean, running_var=self.running_var)
        self.running_mean, self.running_var = running_mean, running_var
        keep = _keep_shape(x.shape, axes)
        self.mean = mean.reshape(keep)
        self.inv_std = inv_std.reshape(keep)
        self.var = var
        self.retain_inputs((0, 1))
        return y,

    def intel64_supports(self, inputs):
        if self._impl_selector is not _impl_selector:
            return False  # a selected implementation runs on NumPy arrays
        x, gamma, _ = inputs
        return intel64.all_float32(inputs) and \
            _intel64_layout_ok(x, gamma, self.axis, self.label)

    # ('auto': from a few tens of thousands of elements of x)
    intel64_profitable = intel64.size_rule('batch_normalization', 0)

    def forward_intel64(self, inputs):
        x, gamma, beta = inputs
        axes = _normalize_axis(self.axis, x.ndim, gamma.ndim, self.label)
        self._axes = axes
        y, mean, var, self._intel64_ctx = \
            intel64.native().batch_normalization_forward(
                x, gamma, beta, self.eps)
        # Plain (C,) tensors: views, no copies.
        mean, var = numpy.asarray(mean), numpy.asarray(var)
        if not _statistics_finite(mean, var):
            # An inf or NaN in x, or a variance beyond float32: the NumPy
            # path's result, and its backward (see _SAFE).
            self._intel64_ctx = None
            with numpy.errstate(all='ignore'):
                y, = self.forward(tuple(intel64.to_numpy(a) for a in inputs))
            return _as_input_type(y, x),
        keep = _keep_shape(x.shape, axes)
        # What the NumPy backward (and the double backward) use.
        self.mean = mean.reshape(keep)
        self.inv_std = (1 / numpy.sqrt(var + numpy.float32(self.eps))).reshape(
            keep)
        self.retain_inputs((0, 1))
        self._update_running(mean, var, x.shape, gamma.shape)
        return y,

    def _update_running(self, mean, var, x_shape, shape):
        m = _standardize.reduced_size(x_shape, self._axes)
        decay = self.decay
        if self.running_mean is not None:
            self.running_mean *= decay
            self.running_mean += (1 - decay) * mean.reshape(shape)
        if self.running_var is not None:
            # The running variance takes the unbiased estimate.
            adjust = m / max(m - 1.0, 1.0)
            self.running_var *= decay
            self.running_var += (1 - decay) * adjust * var.reshape(shape)

    accepts_donated_grads = True

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        return BatchNormalizationGrad(
            self._axes, self.eps, self.mean, self.inv_std, self._intel64_ctx,
            overwrite_gy=self.donated_grad_outputs[0], impl=self._impl,
            forward_data=self.forward_data, var=self.var,
        ).apply((x, gamma, grad_outputs[0]))


_BN_KWARGS = ('eps', 'running_mean', 'running_var', 'decay', 'axis')


def batch_normalization(x, gamma, beta, **kwargs):
    """Batch normalization with the statistics of the batch.

    Normalizes ``x`` over the batch axis (and every axis after the
    channel axes) and applies a per-channel affine map::

        y = gamma * (x - mean) / sqrt(var + eps) + beta

    ``mean`` and ``var`` (the biased variance) are taken over ``axis``.
    Always uses the batch statistics (also under ``config.train = False``;
    use :func:`fixed_batch_normalization` for given statistics).

    Args:
        x (Variable or array): Input, e.g. ``(n, c)`` or ``(n, c, h, w)``.
        gamma (Variable or array): Scale, of the shape of ``x`` without
            the normalized axes (``(c,)`` by default).
        beta (Variable or array): Shift, of the shape of ``gamma``.
        eps (float): Added to the variance (default ``2e-5``).
        running_mean (array or None): Updated in place to
            ``decay * running_mean + (1 - decay) * mean``.
        running_var (array or None): Updated in place to
            ``decay * running_var + (1 - decay) * m / (m - 1) * var``
            (the unbiased variance over the ``m`` elements per channel).
        decay (float): Decay of the running averages (default 0.9).
        axis (int, tuple of ints or None): Axes normalized over; None means
            ``(0,)`` plus the axes after those ``gamma`` covers, e.g.
            ``(0, 2, 3)`` for ``(n, c, h, w)`` with ``gamma`` of ``(c,)``.

    Returns:
        Variable of the shape of ``x``.

    >>> x = np.array([[1., 2.], [3., 6.]], np.float32)
    >>> F.batch_normalization(x, np.ones(2, np.float32),
    ...                       np.zeros(2, np.float32)).array.round(3)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    """
    if 'train' in kwargs:
        raise ValueError(
            'batch_normalization: the train argument is not supported '
            'anymore; use cpuframe.using_config(\'train\', ...)')
    unknown = sorted(set(kwargs) - set(_BN_KWARGS))
    if unknown:
        raise TypeError('batch_normalization() got unexpected keyword '
                        'argument(s) {}'.format(', '.join(unknown)))
    running_mean = kwargs.get('running_mean')
    running_var = kwargs.get('running_var')
    if isinstance(running_mean, Variable):
        running_mean = running_mean.array
    if isinstance(running_var, Variable):
        running_var = running_var.array
    return BatchNormalization(
        kwargs.get('eps', 2e-5), running_mean, running_var,
        kwargs.get('decay', 0.9), kwargs.get('axis')).apply(
            (x, gamma, beta))[0]


class FixedBatchNormalization(FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta``, statistics given.

    The gradient is built of FunctionNodes (any order works).
    """

    bf16_inputs = (0,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1, 3, 4), ())

    def __init__(self, eps=2e-5, axis=None):
        self.eps = eps
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gamma', 'beta', 'mean', 'var'))
        self._axes = _check_param_types(in_types, self.axis, self.label,
                                        ('gamma', 'beta', 'mean', 'var'))

    def forward(self, inputs):
        x, gamma, beta, mean, var = inputs
        axes = _normalize_axis(self.axis, x.ndim, gamma.ndim, self.label)
        self._axes = axes
        keep = _keep_shape(x.shape, axes)
        xp = backend.get_array_module(x)
        dtype = _standardize.compute_dtype(x.dtype, gamma.dtype)
        inv_std = 1 / xp.sqrt(var.astype(dtype, copy=False) +
                              dtype.type(self.eps))
        scale = (gamma.astype(dtype, copy=False) * inv_std).reshape(keep)
        y = (x - mean.astype(dtype, copy=False).reshape(keep)) * scale
        y += beta.astype(dtype, copy=False).reshape(keep)
        return y.astype(x.dtype, copy=False),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and \
            _intel64_layout_ok(inputs[0], inputs[1], self.axis, self.label)

    # ('auto': from a few tens of thousands of elements of x)
    intel64_profitable = intel64.size_rule('batch_normalization', 0)

    def forward_intel64(self, inputs):
        x, gamma, beta, mean, var = inputs
        self._axes = _normalize_axis(self.axis, x.ndim, gamma.ndim,
                                     self.label)
        # On the device the output is computed when first read, so that a
        # relu consuming it first is fused into the primitive.
        return intel64.native().batch_normalization_inference(
            x, gamma, beta, mean, var, self.eps,
            defer=intel64.may_defer(inputs)),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.cast import cast
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.sqrt import rsqrt
        from cpuframe.functions.math.sum import sum as sum_
        x, gamma, mean, var = self.get_retained_inputs()
        gy, = grad_outputs
        axes = self._axes
        keep = _keep_shape(x.shape, axes)
        shape = gamma.shape
        # Computed in x's dtype (as Chainer): float32 gamma, mean and var
        # beside a float64 x are cast up, and each gradient back down.
        dtypes = tuple(node.dtype for node in self.inputs)
        if gamma.dtype != x.dtype:
            gamma = cast(gamma, x.dtype)
        if mean.dtype != x.dtype:
            mean = cast(mean, x.dtype)
        if var.dtype != x.dtype:
            var = cast(var, x.dtype)
        if gy.dtype != x.dtype:
            gy = cast(gy, x.dtype)
        r = rsqrt(var + self.eps)
        gamma_r = gamma * r
        ret = {}
        if 0 in indexes:
            ret[0] = gy * reshape(gamma_r, keep)
        if 1 in indexes or 4 in indexes:
            x_hat = (x - reshape(mean, keep)) * reshape(r, keep)
            gy_xhat = reshape(sum_(gy * x_hat, axis=axes), shape)
            if 1 in indexes:
                ret[1] = gy_xhat
            if 4 in indexes:
                ret[4] = gy_xhat * gamma_r * r * -0.5
        if 2 in indexes or 3 in indexes:
            gbeta = reshape(sum_(gy, axis=axes), shape)
            if 2 in indexes:
                ret[2] = gbeta
            if 3 in indexes:
                ret[3] = -gbeta * gamma_r
        out = []
        for i in indexes:
            g = ret[i]
            out.append(g if g.dtype == dtypes[i] else cast(g, dtypes[i]))
        return tuple(out)


def fixed_batch_normalization(x, gamma, beta, mean, var, eps=2e-5,
                              axis=None):
    """Batch normalization with given statistics (inference mode).

    ::

        y = gamma * (x - mean) / sqrt(var + eps) + beta

    with ``gamma``, ``beta``, ``mean`` and ``var`` broadcast along the
    normalized axes as in :func:`batch_normalization`.  Differentiable with
    respect to all five inputs.

    Args:
        x (Variable or array): Input.
        gamma, beta (Variable or array): Scale and shift.
        mean, var (Variable or array): Statistics, of the shape of ``gamma``.
        eps (float): Added to ``var`` (default ``2e-5``).
        axis (int, tuple of ints or None): As in :func:`batch_normalization`.

    Returns:
        Variable of the shape of ``x``.

    >>> x = np.array([[1., 3.]], np.float32)
    >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
    >>> F.fixed_batch_normalization(x, one, zero, one, one, eps=0).array
    array([[0., 2.]], dtype=float32)
    """
    return FixedBatchNormalization(eps, axis).apply(
        (x, gamma, beta, mean, var))[0]
