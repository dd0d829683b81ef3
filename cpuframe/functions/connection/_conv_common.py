"""What convolution and deconvolution share: option checks, shape helpers,
the bias and the NumPy-path products (im2col + one matrix product per
group), and oneDNN's right padding. Public within the package: the
(de)convolution, depthwise and dilated modules import them from here."""
import numpy

from cpuframe import _blas_threads, backend
from cpuframe.backends import intel64
from cpuframe.functions.connection._im2col import im2col
from cpuframe.utils import type_check
from cpuframe.utils.conv import as_tuple


def conv_args(ndim, stride, pad, dilate, groups, where):
    """Validate and normalize the options shared by (de)convolutions."""
    stride = as_tuple(stride, ndim, where + ': stride')
    pad = as_tuple(pad, ndim, where + ': pad')
    dilate = as_tuple(dilate, ndim, where + ': dilate')
    if any(s < 1 for s in stride):
        raise ValueError('{}: expected stride >= 1, got {}'.format(
            where, stride))
    if any(p < 0 for p in pad):
        raise ValueError('{}: expected pad >= 0, got {}'.format(where, pad))
    if any(d < 1 for d in dilate):
        raise ValueError('{}: expected dilate >= 1, got {}'.format(
            where, dilate))
    if isinstance(groups, (bool, numpy.bool_)) or int(groups) != groups or \
            groups < 1:
        raise ValueError('{}: expected groups to be an int >= 1, got '
                         '{!r}'.format(where, groups))
    return stride, pad, dilate, int(groups)


def check_ndim(ndim, where):
    if int(ndim) != ndim or ndim < 1:
        raise ValueError('{}: expected ndim >= 1 spatial axes, got {}'.format(
            where, ndim))
    return int(ndim)


def prod(values):
    n = 1
    for v in values:
        n *= v
    return n


def check_groups(shape_expr, groups, what):
    value = type_check.eval(shape_expr)
    if value % groups:
        raise type_check.InvalidType(
            '{} % groups == 0'.format(what),
            '{} % {} != 0'.format(value, groups))


def padded(pad, cover_all):
    """Whether a convolution reads zero padding around x (per-axis options)."""
    return any(cover_all) or any(p > 0 for p in pad)


def onednn_pad_r(size, ksize, outsize, stride, pad, dilate):
    """oneDNN's right padding giving ``outsize`` (cover_all's extra pad included).

    oneDNN's output size is ``(size + pad_l + pad_r - extent) // stride + 1``;
    Chainer's plain size needs ``pad_r = pad``, cover_all (or a larger
    deconvolution outsize) needs the right padding to reach the last window.
    """
    return [max(p, (o - 1) * s + (k - 1) * d + 1 - h - p)
            for h, k, o, s, p, d in zip(size, ksize, outsize, stride, pad,
                                        dilate)]


def macs(x_shape, w_shape):
    """Multiply-adds of a convolution at unit stride, about: every output
    pixel (one per input pixel) of every filter over ``C / groups`` inputs."""
    return prod(x_shape) // max(x_shape[1], 1) * prod(w_shape)


def native_weight(W):
    """The weight's mdarray when it lives on the Intel64 device, else None.

    Given to the filter-gradient node so that oneDNN writes the gradient in
    the weight's own layout (the optimizer then updates it in place).
    """
    return W if intel64.is_native_array(W) else None


def add_bias(y, b):
    if b is not None:
        y += b.reshape((1, b.shape[0]) + (1,) * (y.ndim - 2))
    return y


def bias_grad(gy):
    from cpuframe.functions.math.sum import sum as sum_
    return sum_(gy, axis=(0,) + tuple(range(2, gy.ndim)))


def _matmul(xp, a, b):
    # NumPy's BLAS on one thread for small products (see _blas_threads)
    if xp is numpy:
        return _blas_threads.matmul(a, b)
    return xp.matmul(a, b)


def conv_forward(x, W, b, stride, pad, dilate, groups, cover_all):
    """``y[n, o] = sum_{c, k} W[o, c, k] * x_padded[n, g(o)*Cg + c, s*i + d*k]``."""
    xp = backend.get_array_module(x, W)
    nd = x.ndim - 2
    n, c = x.shape[:2]
    out_c = W.shape[0]
    ksize = W.shape[2:]
    col = im2col(x, ksize, stride, pad, dilate, cover_all)
    outsize = col.shape[2 + nd:]
    cg_k = (c // groups) * prod(ksize)
    col = col.reshape(n, groups, cg_k, prod(outsize))
    # One matrix product per (image, group); the result is already NCHW.
    y = _matmul(xp, W.reshape(groups, out_c // groups, cg_k), col)
    y = y.reshape((n, out_c) + outsize).astype(x.dtype, copy=False)
    return add_bias(y, b)


def conv_grad_weight(x, gy, ksize, stride, pad, dilate, groups, cover_all,
                      dtype):
    """``gW[o, c, k] = sum_{n, i} gy[n, o, i] * col(x)[n, c, k, i]``."""
    xp = backend.get_array_module(x, gy)
    nd = x.ndim - 2
    n, c = x.shape[:2]
    out_c = gy.shape[1]
    col = im2col(x, ksize, stride, pad, dilate, cover_all)
    outsize = col.shape[2 + nd:]
    if tuple(outsize) != tuple(gy.shape[2:]):
        raise ValueError(
            'ConvolutionNDGradW: the output gradient has spatial shape {}, '
            'the convolution gives {}'.format(gy.shape[2:], outsize))
    cg, og = c // groups, out_c // groups
    cg_k = cg * prod(ksize)
    n_p = n * prod(outsize)
    # Batch and output positions become the contraction axis, so that each
    # group is one large matrix product instead of one per image.
    col = col.reshape((n, groups, cg) + col.shape[2:])
    perm = (1, 2) + tuple(range(3, 3 + nd)) + (0,) + \
        tuple(range(3 + nd, 3 + 2 * nd))
    col = col.transpose(perm).reshape(groups, cg_k, n_p)
    g = gy.reshape(n, groups, og, prod(outsize)).transpose(1, 2, 0, 3)
    g = g.reshape(groups, og, n_p)
    gW = _matmul(xp, g, col.transpose(0, 2, 1))
    return gW.reshape((out_c, cg) + tuple(ksize)).astype(dtype, copy=False)


def check_spatial(x, n, where):
    if len(x.shape[2:]) != n:
        raise ValueError(
            '{}: expected an input with {} spatial axis(es) ({} dimensions), '
            'got shape {}'.format(where, n, n + 2, tuple(x.shape)))
