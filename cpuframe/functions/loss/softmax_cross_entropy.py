"""Softmax cross entropy: log-softmax over the class axis, then the NLL.

The class axis is axis 1; any axes after it are positions (pixels) that
each get their own label.  The log-softmax is computed here with the
log-sum-exp shift, so neither a large nor a very negative score overflows.
"""
import numpy

from cpuframe import backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_reduce
from cpuframe.utils import type_check
from cpuframe.variable import Variable

_NAME = 'softmax_cross_entropy'


def _expand_class_axis(a):
    """``(N, d1, ...)`` -> ``(N, 1, d1, ...)``, to broadcast over classes."""
    return a.reshape(a.shape[:1] + (1,) + a.shape[1:])


def _shifted_exp(xp, x):
    """``z = x - max_c x``, ``e = exp(z)`` and ``s = sum_c e`` (kept axis)."""
    z = x - x.max(axis=1, keepdims=True)
    e = xp.exp(z)
    return z, e, e.sum(axis=1, keepdims=True)


def _softmax_array(xp, x):
    _, e, s = _shifted_exp(xp, x)
    e /= s
    return e


def _one_hot(xp, t, n_class, dtype):
    """One-hot of labels ``t`` (N, d...) along a new axis 1 of ``n_class``."""
    classes = xp.arange(n_class).reshape((1, n_class) + (1,) * (t.ndim - 1))
    return (classes == _expand_class_axis(t)).astype(dtype)


def _subtract_at_labels(xp, a, t, f):
    """``a[n, t[n, ...], ...] -= f[n, ...]`` in place (``f`` broadcasts)."""
    if xp is numpy and a.ndim == 2:
        # (2-D: plain indexing, several times faster than the along-axis
        # helpers on small arrays; the same subtraction)
        rows = numpy.arange(a.shape[0])
        a[rows, t] = a[rows, t] - (f.reshape(-1) if numpy.ndim(f) else f)
        return
    idx = _expand_class_axis(t)
    if xp is numpy:
        picked = numpy.take_along_axis(a, idx, axis=1)
        numpy.put_along_axis(a, idx, picked - f, axis=1)
    else:
        a -= _one_hot(xp, t, a.shape[1], a.dtype) * f


class _Softmax(FunctionNode):
    """Softmax over axis 1, used by the double-backward of the loss."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].ndim >= 2)

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(
            _softmax_array(backend.get_array_module(x), x), x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.sum import sum as sum_
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return y * (gy - sum_(y * gy, axis=1, keepdims=True)),


class SoftmaxCrossEntropy(FunctionNode):
    """Softmax over axis 1 followed by the cross entropy with labels ``t``."""

    def __init__(self, normalize=True, cache_score=True, class_weight=None,
                 ignore_label=-1, reduce='mean',
                 soft_target_loss='cross-entropy'):
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.soft_target_loss = soft_target_loss
        self._y = None
        self._coeff = None
        self._lse = None  # the rows' log-sum-exp, from the intel64 route
        self._x_scores = None  # x of the intel64 route, for ``y``
        self._y_scores = None

    @property
    def y(self):
        """The softmax of the scores after forward (Chainer's ``y``).

        Kept when ``cache_score`` is True (None otherwise, or before
        forward).  The oneDNN route keeps only the rows' log-sum-exp, so
        there ``y`` is computed on first read.
        """
        if self._y is not None:
            return self._y
        if self._y_scores is None and self.cache_score and \
                self._lse is not None and self._x_scores is not None:
            x = intel64.to_numpy(self._x_scores)
            lse = numpy.asarray(intel64.to_numpy(self._lse)).reshape(-1, 1)
            self._y_scores = utils.force_array(numpy.exp(x - lse), x.dtype)
            self._x_scores = None
        return self._y_scores

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('class_weight',)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2)
        if type_check.eval(t_type).dtype.kind == 'i':
            type_check.expect(
                t_type.ndim == x_type.ndim - 1,
                x_type.shape[0] == t_type.shape[0],
                x_type.shape[2:] == t_type.shape[1:])
            if self.class_weight is not None:
                type_check.expect(x_type.shape[1] == type_check.Constant(
                    len(self.class_weight), 'class_weight.shape[0]'))
        else:
            # A float t is a soft target: one distribution per position.
            type_check.expect(t_type.dtype.kind == 'f',
                              x_type.shape == t_type.shape)
            if self.class_weight is not None:
                raise type_check.InvalidType(
                    'class_weight is None for soft targets',
                    'class_weight of shape {}'.format(
                        self.class_weight.shape),
                    msg='class_weight is not supported with soft targets '
                    '(t of dtype {})'.format(type_check.eval(t_type).dtype))

    def _labels(self, xp, x, t):
        """Checks the labels; keeps ``_t`` (ignored ones as 0) and ``_w``
        (class weight, 0 where ignored; None where it would be all ones);
        returns the mask of valid ones (None: all are, the common case,
        told by the labels' range)."""
        n_class = x.shape[1]
        if xp is numpy and self.class_weight is None and t.size:
            lo, hi = int(t.min()), int(t.max())
            if 0 <= lo and hi < n_class and not lo <= self.ignore_label <= hi:
                self.retain_inputs((0,))
                self._t = t.copy()
                # (no weight: a product by ones would change no value)
                self._w = None
                return None
        valid = t != self.ignore_label
        bad = valid & ((t < 0) | (t >= n_class))
        if bad.any():
            raise ValueError(
                '{}: each label t must satisfy 0 <= t < x.shape[1] (= {}) or '
                't == ignore_label (= {}), got t = {}'.format(
                    _NAME, n_class, self.ignore_label,
                    t[bad].ravel()[0].item()))
        self.retain_inputs((0,))
        t = xp.where(valid, t, 0)
        w = valid.astype(x.dtype)
        if self.class_weight is not None:
            w *= xp.asarray(self.class_weight, dtype=x.dtype)[t]
        self._t = t
        self._w = w
        return valid

    def _reduced(self, xp, x, log_p, valid):
        if self._w is not None:
            log_p = log_p * self._w
        if self.reduce == 'no':
            return utils.force_array(-log_p, x.dtype),
        count = (self._t.size if valid is None else int(valid.sum())) \
            if self.normalize else len(x)
        self._coeff = 1.0 / max(count, 1)
        loss = -log_p.sum() * self._coeff
        return utils.force_array(xp.asarray(loss, dtype=x.dtype)),

    # The oneDNN-side route: 2-D scores with integer labels, computed by two
    # fused passes of ours (csrc/softmax_xent.cpp) that keep only the rows'
    # log-sum-exp; the backward recomputes the softmax from x.
    def intel64_supports(self, inputs):
        x, t = inputs
        return intel64.all_float32((x,)) and x.ndim == 2 and \
            t.dtype.kind in 'iu' and x.shape[0] > 0 and x.shape[1] > 0 and \
            isinstance(t, numpy.ndarray)

    intel64_profitable = intel64.size_rule('softmax_cross_entropy', 0)

    def forward_intel64(self, inputs):
        x, t = inputs
        self._soft = False
        valid = self._labels(numpy, x, t)
        # (the kernel reads int64 labels, negative ones ignored; all valid:
        # the copy _labels kept, converted where it is not int64 already -
        # the kernel's own conversion refuses uint64 - once, for the
        # backward too)
        labels = self._t.astype(numpy.int64, copy=False) \
            if valid is None else \
            numpy.where(valid, t, -1).astype(numpy.int64)
        loss_rows, self._lse = intel64.native().softmax_cross_entropy_forward(
            x, labels)
        if self.cache_score:
            self._x_scores = x
        self._labels_i64 = labels
        return self._reduced(numpy, x, -loss_rows, valid)

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        self._soft = t.dtype.kind == 'f'
        if self._soft:
            return self._forward_soft(xp, x, t)
        valid = self._labels(xp, x, t)
        t = self._t
        if x.size == 0:
            log_p = xp.zeros(t.shape, dtype=x.dtype)
        else:
            z, e, s = _shifted_exp(xp, x)
            if xp is numpy and x.ndim == 2:
                picked = z[numpy.arange(len(t)), t].reshape(-1, 1)
            else:
                picked = xp.take_along_axis(z, _expand_class_axis(t), axis=1)
            log_p = (picked - xp.log(s)).reshape(t.shape)
            if self.cache_score:
                e /= s
                self._y = e
        return self._reduced(xp, x, log_p, valid)

    def _forward_soft(self, xp, x, t):
        self.retain_inputs((0,))
        t = t.astype(x.dtype, copy=False)
        self._t = t
        self._w = None
        pos_shape = x.shape[:1] + x.shape[2:]
        if x.size == 0:
            loss = xp.zeros(pos_shape, dtype=x.dtype)
        else:
            z, e, s = _shifted_exp(xp, x)
            # -sum_c t log y = sum_c t * log s - sum_c t z
            loss = (xp.log(s) * t.sum(axis=1, keepdims=True) -
                    (t * z).sum(axis=1, keepdims=True))
            if self.soft_target_loss == 'kl-divergence':
                positive = t > 0
                xlogx = xp.where(positive,
                                 t * xp.log(xp.where(positive, t, 1)), 0)
                loss += xlogx.sum(axis=1, keepdims=True)
            loss = loss.reshape(pos_shape)
            if self.cache_score:
                e /= s
                self._y = e
        if self.reduce == 'no':
            return utils.force_array(loss, x.dtype),
        self._coeff = 1.0 / max(utils.size_of_shape(pos_shape), 1)
        return utils.force_array(
            xp.asarray(loss.sum() * self._coeff, dtype=x.dtype)),

    def _grad_node(self):
        grad = SoftmaxCrossEntropyGrad(self._t, self._w, self._soft,
                                       self.reduce, self._coeff, self._y)
        if self._lse is not None:
            grad._lse = self._lse
            grad._labels_i64 = self._labels_i64
        return grad

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return self._grad_node().apply((x, grad_outputs[0]))[0], None

    def backward_arrays(self, indexes, grad_outputs):
        x, = self._retained_input_arrays()
        gx, = self._grad_node()._compute((x, grad_outputs[0]))
        return tuple(gx if i == 0 else None for i in indexes)


class SoftmaxCrossEntropyGrad(FunctionNode):
    """The gradient of softmax_cross_entropy by ``x``, from ``(x, gloss)``.

    With ``f`` the per-position factor (``gloss`` times the class weight,
    the ignore mask and the mean's ``1 / count``), ``gx = f * (y - onehot)``
    for labels and ``gx = f * (y * sum_c t - t)`` for soft targets, where
    ``y = softmax(x)``.  Its own backward is made of FunctionNodes, so the
    loss can be differentiated any number of times.
    """

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    def __init__(self, t, w, soft, reduce, coeff, y):
        self._t = t
        self._w = w
        self._soft = soft
        self._reduce = reduce
        self._coeff = coeff
        self._y = y

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gloss'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[1].dtype == in_types[0].dtype)

    def _factor(self, gloss):
        """Per-position factor ``f`` as an array (scalar for soft 'mean')."""
        if self._reduce == 'mean':
            g = gloss * self._coeff
            return g if self._w is None else self._w * g
        return gloss if self._w is None else self._w * gloss

    _lse = None

    def intel64_supports(self, inputs):
        return self._lse is not None and inputs[0].ndim == 2

    def intel64_profitable(self, inputs):
        return True  # the forward took the route: its log-sum-exp is here

    def forward_intel64(self, inputs):
        x, gloss = inputs
        f = numpy.broadcast_to(numpy.asarray(self._factor(gloss)), (x.shape[0],))
        return intel64.native().softmax_cross_entropy_backward(
            x, self._lse, self._labels_i64,
            numpy.ascontiguousarray(f, dtype=numpy.float32)),

    def forward(self, inputs):
        x, gloss = inputs
        xp = backend.get_array_module(x)
        if x.size == 0:
            return xp.zeros_like(x),
        y = self._y if self._y is not None else _softmax_array(xp, x)
        f = self._factor(gloss)
        if f.ndim:
            f = _expand_class_axis(f)
        if self._soft:
            gx = (y * self._t.sum(axis=1, keepdims=True) - self._t) * f
        else:
            gx = y * f
            _subtract_at_labels(xp, gx, self._t, f)
        return utils.force_array(gx, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.sum import sum as sum_
        x, gloss = self.get_retained_inputs()
        ggx, = grad_outputs
        xp = x.xp
        y = _Softmax().apply((x,))[0]
        if self._soft:
            mass = self._t.sum(axis=1, keepdims=True)
            diff = y * mass - self._t
        else:
            mass = None
            diff = y - _one_hot(xp, self._t, x.shape[1], x.dtype)
        if self._reduce == 'mean':
            const = self._coeff if self._w is None else self._w * self._coeff
        else:
            const = self._w
        ret = []
        for i in indexes:
            if i == 0:
                f = gloss if const is None else gloss * const
                if f.ndim:
                    f = f.reshape(f.shape[:1] + (1,) + f.shape[1:])
                a = ggx * y
                g = (a - y * sum_(a, axis=1, keepdims=True)) * f
                ret.append(g if mass is None else g * mass)
            else:
                h = sum_(ggx * diff, axis=1)
                if const is not None:
                    h = h * const
                ret.append(sum_(h) if self._reduce == 'mean' else h)
        return tuple(ret)


def softmax_cross_entropy(x, t, normalize=True, cache_score=True,
                          class_weight=None, ignore_label=-1, reduce='mean',
                          enable_double_backprop=False,
                          soft_target_loss='cross-entropy'):
    """Cross entropy of the softmax of ``x`` with labels ``t``.

    With ``y = log_softmax(x)`` over axis 1 and ``w`` the class weights
    (ones by default), the loss of position ``i`` (a sample, or a sample and
    a pixel for N-d ``x``) is ``l_i = -w[t_i] * y[i, t_i]``, and 0 where
    ``t_i == ignore_label``.

    Args:
        x: float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: signed integer labels of shape ``(N,)`` or ``(N, d1, ...)``,
            each in ``[0, C)`` or equal to ``ignore_label``.  A float ``t``
            of the same shape as ``x`` is a soft target (a distribution over
            the classes for each position).
        normalize (bool): with ``reduce='mean'``, divide the summed loss by
            the number of non-ignored labels (True) or by ``N`` (False).
        cache_score (bool): keep the softmax from forward for backward
            (faster, more memory).
        class_weight: a float array of shape ``(C,)`` multiplying the loss
            of each label's class (not supported with soft targets).
        ignore_label (int): the label whose positions contribute nothing.
        reduce (str): ``'mean'`` (a scalar) or ``'no'`` (the per-position
            losses, of ``t``'s shape; ``normalize`` is then unused).
        enable_double_backprop (bool): accepted for compatibility; in
            cpuframe the gradient is always differentiable again, at no
            cost to the first-order backward.
        soft_target_loss (str): with soft targets, ``'cross-entropy'``
            (``-sum_c t log softmax(x)``) or ``'kl-divergence'`` (that minus
            the entropy of ``t``).  Their ``'mean'`` divides by the number
            of positions and ignores ``normalize``.

    Returns:
        Variable: a scalar for ``reduce='mean'``, else the losses of shape
        ``t.shape`` (``x.shape`` without axis 1 for soft targets).  The loss
        is differentiable by ``x`` only.

    >>> x = np.array([[-1., 0., 1.], [2., 0., 0.]], np.float32)
    >>> t = np.array([2, 0], np.int32)
    >>> F.softmax_cross_entropy(x, t).array
    array(0.32357544, dtype=float32)
    >>> F.softmax_cross_entropy(x, np.array([2, -1], np.int32),
    ...                         reduce='no').array
    array([0.407606, 0.      ], dtype=float32)
    """
    check_reduce(_NAME, reduce, ('mean', 'no'))
    if soft_target_loss not in ('cross-entropy', 'kl-divergence'):
        raise ValueError(
            "{}: soft_target_loss must be 'cross-entropy' or "
            "'kl-divergence', got {!r}".format(_NAME, soft_target_loss))
    if class_weight is not None:
        if isinstance(class_weight, Variable):
            raise ValueError(
                '{}: class_weight must be an array, not a Variable'.format(
                    _NAME))
        if not backend.is_array(class_weight):
            raise ValueError(
                '{}: class_weight must be an array, got {}'.format(
                    _NAME, type(class_weight).__name__))
        if class_weight.ndim != 1 or class_weight.dtype.kind != 'f':
            raise ValueError(
                '{}: class_weight must be a 1-d float array, got shape {} '
                'and dtype {}'.format(_NAME, class_weight.shape,
                                      class_weight.dtype))
    return SoftmaxCrossEntropy(normalize, cache_score, class_weight,
                               ignore_label, reduce,
                               soft_target_loss).apply((x, t))[0]
