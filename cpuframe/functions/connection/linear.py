"""Fully connected layer, Chainer's ``linear``: ``y = x W^T + b``.

``LinearFunction`` and its two gradient nodes close under differentiation:
the gradient of each is made of the other two (and itself), so gradients of
any order stay matrix products.
"""
import numpy

from cpuframe import _bf16, _blas_threads, backend, utils
from cpuframe.backends import intel64
from cpuframe.configuration import config, mixed_bf16
from cpuframe.function_node import FunctionNode
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.math import sum as _sum
from cpuframe.utils import type_check

# 'auto' on NumPy arrays: never.
#
# On float32 NumPy arrays the route is one oneDNN sgemm on the arrays
# (``_sgemm``, on oneDNN's OpenMP team), not the inner product, whose
# reorder of a plain weight into its blocked layout on every call made it
# 0.3-0.8x NumPy's speed from 64x512x512 up. Alone, sgemm beats NumPy's
# BLAS (under cpuframe's one-thread rule, ``_blas_threads``) at every
# size measured (Zen 3, 2 vCPU, best of 7 blocks, µs, BLAS / sgemm: the
# forward x W^T of 32x64x64 12.4 / 7.2, 100x100x100 57.7 / 28.1,
# 100x784x100 287 / 162, 128x512x512 566 / 517, 64x4096x4096
# 22622 / 22187; ``benchmarks/overhead/gemm.py``). Inside training steps
# it was not shown to: interleaved A/B runs in one process of the same
# step (an MNIST MLP, MLPs of 256 and 1024 units) read 0.87 to 1.10 from
# one run to the next on that shared machine, for thresholds from 1M to
# 4M multiply-adds, and below ~500K the step was slower (1.08-1.25: the
# route's cost and the team's threads). So 'auto' keeps NumPy's BLAS on
# NumPy arrays; 'always' takes sgemm.
_profitable = intel64.size_rule(None)


def _sgemm(a, b, name):
    """``a @ b`` for float32 NumPy matrices on oneDNN's sgemm
    (``gemm_arrays``; errors name ``name``): each operand read in place
    where it is C-contiguous or the transpose of a C-contiguous array."""
    ta = not a.flags.c_contiguous
    if ta:
        a = a.T if a.flags.f_contiguous else numpy.ascontiguousarray(a.T)
    tb = not b.flags.c_contiguous
    if tb:
        b = b.T if b.flags.f_contiguous else numpy.ascontiguousarray(b.T)
    return intel64.native().gemm_arrays(a, b, ta, tb, name)


def _float32_arrays(*arrays):
    # (the route's own GEMM on NumPy arrays: _sgemm)
    for a in arrays:
        if type(a) is not numpy.ndarray or a.dtype != numpy.float32:
            return False
    return True


def _profitable_on_device(m, k, n):
    """'auto' on device arrays: oneDNN from ``AUTO_MIN['linear_on_device']``
    multiply-adds on; below, NumPy's BLAS on views of the plain buffers."""
    return intel64.auto_profitable('linear_on_device', m * k * n)


def _matmul(a, b, dtype):
    if type(a) is numpy.ndarray and type(b) is numpy.ndarray:
        # (NumPy's BLAS on one thread for a small product: _blas_threads)
        if a.ndim == 2 and a.shape[1] == 1 and b.ndim == 2:
            # An inner dimension of 1 (the weight gradient of a batch of
            # one): NumPy's matmul takes 5-7x dot's time there (NumPy 2.4,
            # 512x1 by 1x128: 119-177 vs 21 us), and both give the single
            # product per element (the same values).
            return _blas_threads.dot(a, b).astype(dtype, copy=False)
        return utils.force_array(_blas_threads.matmul(a, b)).astype(
            dtype, copy=False)
    xp = backend.get_array_module(a, b)
    return utils.force_array(xp.matmul(a, b)).astype(dtype, copy=False)


class LinearFunction(FunctionNode):
    """``y = x W^T (+ b)`` for ``x`` ``(N, I)``, ``W`` ``(O, I)``, ``b`` ``(O,)``."""

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    bf16_inputs = (0,)
    bf16_weights = (1,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        type_check.argname(in_types, ('x', 'W') if n_in == 2 else
                           ('x', 'W', 'b'))
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype.kind == 'f',
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    def forward(self, inputs):
        x, W = inputs[0], inputs[1]
        y = _matmul(x, W.T, x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and intel64.geometry_supported(inputs)

    intel64_profitable = _profitable
    # (x.shape[0] * x.shape[1] * W.shape[0] multiply-adds)
    intel64_profitable_on_device = intel64.size_rule(
        'linear_on_device', (0, 0), (0, 1), (1, 0))

    def forward_intel64(self, inputs):
        if _float32_arrays(*inputs):
            y = _sgemm(inputs[0], inputs[1].T, 'linear_forward')
            if len(inputs) == 3:
                y += inputs[2]    # (as the NumPy path adds it)
            return y,
        b = inputs[2] if len(inputs) == 3 else None
        return intel64.native().linear_forward(inputs[0], inputs[1], b),

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(LinearGradData(x.dtype).apply((W, gy))[0])
        if 1 in indexes:
            w_like = W.array if intel64.is_native_array(W.array) else None
            ret.append(LinearGradWeight(W.dtype, w_like).apply((x, gy))[0])
        if 2 in indexes:
            ret.append(_sum.sum(gy, axis=0))
        return tuple(ret)

    def backward_arrays(self, indexes, grad_outputs):
        x, W = self._retained_input_arrays()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(LinearGradData(x.dtype)._compute((W, gy))[0])
        if 1 in indexes:
            w_like = W if intel64.is_native_array(W) else None
            ret.append(LinearGradWeight(W.dtype, w_like)._compute((x, gy))[0])
        if 2 in indexes:
            ret.append(_sum.Sum(axis=0)._compute((gy,))[0])
        return tuple(ret)

    def _accumulates_into(self, sums):
        # (in place only into a device array: _accumulate_weight_grad)
        return self._accumulates_into_device_arrays(
            LinearFunction, self._forward_dtype is mixed_bf16 or
            config.dtype is mixed_bf16, sums)

    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        # A weight used at every step of an unrolled RNN: its gradient is
        # added into the sum so far (when only the engine holds it) by the
        # GEMM that computes it, on the intel64 route.
        if 1 in indexes:
            k = indexes.index(1)
            gW = _accumulate_weight_grad(
                self.get_retained_inputs(), grad_outputs[0],
                self.donated_grad_input(k, grad_inputs))
            if gW:
                return self._accumulate_rest(
                    indexes, grad_outputs, grad_inputs, {k: grad_inputs[k]})
        return super().backward_accumulate(indexes, grad_outputs, grad_inputs)


def _accumulate_weight_grad(retained, gy, acc):
    """Add ``gy^T x`` into ``acc`` in place (True) where the intel64 route
    of LinearGradWeight would compute it and ``acc`` is a plain mdarray."""
    if acc is None or not intel64.is_native_array(acc) or not acc.is_plain:
        return False
    x, W = retained
    w = W.array
    if acc.shape != w.shape or acc.dtype != numpy.float32 or (
            intel64.is_native_array(w) and not w.is_plain):
        return False
    w_like = w if intel64.is_native_array(w) else None
    node = LinearGradWeight(W.dtype, w_like)
    arrays = (x.array, gy.array)
    if node._function_hooks() or not node.choose_intel64(arrays):
        return False
    if _bf16.active():
        # as LinearGradWeight's route reads them in the mode: bf16
        arrays = _bf16.to_bf16_inputs(node, arrays)
    intel64.native().linear_backward_weights(*arrays, False, w_like, acc)
    return True


class LinearGradData(FunctionNode):
    """``gx = gy W``: the input gradient of ``LinearFunction``."""

    bf16_inputs = (1,)   # (W, gy)
    bf16_weights = (0,)
    bf16_outputs = (0,)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    def __init__(self, x_dtype):
        self.x_dtype = numpy.dtype(x_dtype)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('W', 'gy'))
        w_type, gy_type = in_types
        type_check.expect(
            w_type.dtype.kind == 'f', gy_type.dtype.kind == 'f',
            w_type.ndim == 2, gy_type.ndim == 2,
            gy_type.shape[1] == w_type.shape[0])

    def forward(self, inputs):
        W, gy = inputs
        return _matmul(gy, W, self.x_dtype),

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and self.x_dtype == numpy.float32 and \
            intel64.geometry_supported(inputs)

    intel64_profitable = _profitable
    # (gy.shape[0] * W.shape[0] * W.shape[1] multiply-adds of W, gy)
    intel64_profitable_on_device = intel64.size_rule(
        'linear_on_device', (1, 0), (0, 0), (0, 1))

    def forward_intel64(self, inputs):
        W, gy = inputs
        if _float32_arrays(W, gy) and self.x_dtype == numpy.float32:
            return _sgemm(gy, W, 'linear_backward_data'),
        return intel64.native().linear_backward_data(gy, W),

    def backward(self, indexes, grad_outputs):
        W, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        if 0 in indexes:
            # d<ggx, gy W>/dW = gy^T ggx
            ret.append(LinearGradWeight(W.dtype).apply((ggx, gy))[0])
        if 1 in indexes:
            # d<ggx, gy W>/dgy = ggx W^T
            ret.append(LinearFunction().apply((ggx, W))[0])
        return tuple(ret)


class LinearGradWeight(FunctionNode):
    """``gW = gy^T x``: the weight gradient of ``LinearFunction``.

    ``w_like`` is the weight's mdarray, whose layout the intel64 route gives
    the gradient (so that the optimizer updates the pair in place).
    """

    bf16_inputs = (0, 1)

    # (inputs, outputs) backward keeps, whichever route runs
    retained_for_backward = ((0, 1), ())

    def __init__(self, w_dtype, w_like=None):
        self.w_dtype = numpy.dtype(w_dtype)
        self.w_like = w_like

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gy'))
        x_type, gy_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f', gy_type.dtype.kind == 'f',
            x_type.ndim == 2, gy_type.ndim == 2,
            x_type.shape[0] == gy_type.shape[0])

    def forward(self, inputs):
        x, gy = inputs
        return _matmul(gy.T, x, self.w_dtype),

    def intel64_on_device(self, inputs):
        return self.w_like is not None or intel64.any_native(inputs)

    def intel64_supports(self, inputs):
        return intel64.all_float32(inputs) and self.w_dtype == numpy.float32 and \
            intel64.geometry_supported(inputs)

    intel64_profitable = _profitable

    def intel64_profitable_on_device(self, inputs):
        x, gy = inputs
        if self.w_like is not None and not self.w_like.is_plain:
            return True  # the gradient in the weight's own (blocked) layout
        return _profitable_on_device(x.shape[0], x.shape[1], gy.shape[1])

    def forward_intel64(self, inputs):
        x, gy = inputs
        if self.w_like is None and _float32_arrays(x, gy):
            return _sgemm(gy.T, x, 'linear_backward_weights'),
        gW, _ = intel64.native().linear_backward_weights(x, gy, False,
                                                         self.w_like)
        return gW,

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret = []
        if 0 in indexes:
            # d<ggW, gy^T x>/dx = gy ggW
            ret.append(LinearGradData(x.dtype).apply((ggW, gy))[0])
        if 1 in indexes:
            # d<ggW, gy^T x>/dgy = x ggW^T
            ret.append(LinearFunction().apply((x, ggW))[0])
        return tuple(ret)


def linear(x, W, b=None, n_batch_axes=1):
    """Linear (fully connected) transformation, ``y = x W^T + b``.

    ``x`` is ``(s_1, ..., s_B, ...)`` where the first ``n_batch_axes`` axes
    are batch axes and the remaining ones are flattened into the
    ``in_size`` features; ``W`` is ``(out_size, in_size)`` and ``b``
    ``(out_size,)`` or None.  The output is ``(s_1, ..., s_B, out_size)``.

    Args:
        x: input Variable or array, floating point, ``ndim > n_batch_axes``.
        W: weight matrix ``(out_size, in_size)``.
        b: bias ``(out_size,)`` or None.
        n_batch_axes (int): number of leading batch axes (>= 1).

    >>> x = np.zeros((4, 3), np.float32)
    >>> W = np.zeros((2, 3), np.float32)
    >>> F.linear(x, W).shape
    (4, 2)
    >>> F.linear(np.zeros((4, 5, 3), np.float32), W, n_batch_axes=2).shape
    (4, 5, 2)
    """
    if isinstance(n_batch_axes, (bool, numpy.bool_)) or \
            int(n_batch_axes) != n_batch_axes or n_batch_axes < 1:
        raise ValueError('linear: expected n_batch_axes to be an int >= 1, '
                         'got {!r}'.format(n_batch_axes))
    n_batch_axes = int(n_batch_axes)
    if x.ndim <= n_batch_axes:
        raise type_check.InvalidType(
            'x.ndim > n_batch_axes',
            '{} <= {}'.format(x.ndim, n_batch_axes),
            'Invalid operation is performed in: LinearFunction (Forward)\n\n'
            'linear: expected x with more than n_batch_axes={} dimensions, '
            'got shape {}'.format(n_batch_axes, tuple(x.shape)))
    batch_shape = tuple(x.shape[:n_batch_axes])
    if x.ndim != 2:
        x = reshape(x, (utils.size_of_shape(batch_shape),
                        utils.size_of_shape(x.shape[n_batch_axes:])))
    args = (x, W) if b is None else (x, W, b)
    y, = LinearFunction().apply(args)
    if n_batch_axes > 1:
        y = reshape(y, batch_shape + (y.shape[1],))
    return y
