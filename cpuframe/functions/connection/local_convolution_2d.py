"""Two-dimensional local (unshared-weight) convolution."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.functions.connection import _im2col
from cpuframe.utils import type_check
from cpuframe.utils.conv import pair


def _columns(x, ksize, stride):
    """``x`` as ``(out_h * out_w, n, c * kh * kw)`` patches (an array)."""
    col = _im2col.im2col(x, ksize, stride, 0)
    n, c, kh, kw, oh, ow = col.shape
    return col.reshape(n, c * kh * kw, oh * ow).transpose(2, 0, 1)


class LocalConvolution2D(FunctionNode):
    """``y[n, o, i, j] = sum_{c, dy, dx} W[o, i, j, c, dy, dx] *
    x[n, c, i * sy + dy, j * sx + dx] + b[o, i, j]``.

    One matrix product per output position, batched over positions.  The
    backward is made of :func:`im2col`, its adjoint and matmuls, so every
    order of gradient works.
    """

    def __init__(self, stride=1):
        self.stride = pair(stride, 'local_convolution_2d: stride')
        if min(self.stride) < 1:
            raise ValueError('local_convolution_2d: stride must be >= 1, '
                             'got {}'.format(self.stride))

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('stride',)

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        type_check.argname(in_types, ('x', 'W') if n_in == 2 else
                           ('x', 'W', 'b'))
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            w_type.ndim == 6,
            x_type.shape[1] == w_type.shape[3],
        )
        size = type_check.eval(x_type.shape)[2:]
        w_shape = type_check.eval(w_type.shape)
        out = tuple((s - k) // st + 1 for s, k, st in
                    zip(size, w_shape[4:], self.stride))
        if out != tuple(w_shape[1:3]):
            raise type_check.InvalidType(
                'W.shape[1:3] == the output size (x.shape[2:] - '
                'W.shape[4:]) // stride + 1',
                'W.shape = {}, x.shape[2:] = {}, stride = {}: output size '
                '{}'.format(w_shape, size, self.stride, out))
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(b_type.dtype == x_type.dtype,
                              b_type.ndim == 3)
            b_shape = type_check.eval(b_type.shape)
            if tuple(b_shape) != tuple(w_shape[:3]):
                raise type_check.InvalidType(
                    'b.shape == W.shape[:3] = {}'.format(w_shape[:3]),
                    'b.shape = {}'.format(b_shape))

    def forward(self, inputs):
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        c_o, oh, ow, c, kh, kw = W.shape
        n = x.shape[0]
        col = _columns(x, (kh, kw), self.stride)
        Wm = W.reshape(c_o, oh * ow, c * kh * kw).transpose(1, 2, 0)
        y = xp.matmul(col, Wm)                       # (P, n, c_o)
        y = y.transpose(1, 2, 0).reshape(n, c_o, oh, ow)
        if len(inputs) == 3:
            y = y + inputs[2]
        return xp.ascontiguousarray(y, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.im2col import Col2Im, im2col
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.transpose import transpose
        from cpuframe.functions.math.basic_math import _matmul
        from cpuframe.functions.math.sum import sum as sum_
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        n, c, h, w = x.shape
        c_o, oh, ow, _, kh, kw = W.shape
        p, k = oh * ow, c * kh * kw
        gy_p = transpose(reshape(gy, (n, c_o, p)), (2, 0, 1))   # (P, n, c_o)
        ret = []
        if 0 in indexes:
            Wm = transpose(reshape(W, (c_o, p, k)), (1, 2, 0))  # (P, K, c_o)
            gcol = _matmul(gy_p, Wm, False, True)               # (P, n, K)
            gcol = reshape(transpose(gcol, (1, 2, 0)), (n, k, oh, ow))
            ret.append(Col2Im((kh, kw), self.stride, (0, 0), (h, w), (1, 1),
                              False).apply((gcol,))[0])
        if 1 in indexes:
            col = im2col(x, (kh, kw), self.stride)
            col = transpose(reshape(col, (n, k, p)), (2, 0, 1))  # (P, n, K)
            gWm = _matmul(col, gy_p, True, False)                # (P, K, c_o)
            ret.append(reshape(transpose(gWm, (2, 0, 1)), W.shape))
        if 2 in indexes:
            ret.append(sum_(gy, axis=0))
        return tuple(ret)


def local_convolution_2d(x, W, b=None, stride=1):
    """Two-dimensional local convolution (unshared weights).

    Like :func:`convolution_2d` without padding, except that a different
    filter is applied at each output position::

        y[n, o, i, j] = sum_{c, dy, dx} W[o, i, j, c, dy, dx]
                        * x[n, c, i * sy + dy, j * sx + dx] + b[o, i, j]

    Args:
        x (Variable or array): Input of shape ``(n, c_I, h, w)``.
        W (Variable or array): Filters of shape
            ``(c_O, h_O, w_O, c_I, k_H, k_W)`` with
            ``h_O = (h - k_H) // s_Y + 1`` and ``w_O = (w - k_W) // s_X + 1``.
        b (Variable or array): Bias of shape ``(c_O, h_O, w_O)`` (optional).
        stride (int or pair of ints): Stride of filter applications.

    Returns:
        Variable of shape ``(n, c_O, h_O, w_O)``.

    >>> x = np.ones((1, 2, 3, 3), np.float32)
    >>> W = np.ones((4, 2, 2, 2, 2, 2), np.float32)
    >>> F.local_convolution_2d(x, W).shape
    (1, 4, 2, 2)
    """
    args = (x, W) if b is None else (x, W, b)
    return LocalConvolution2D(stride).apply(args)[0]
