"""Image to columns: every convolution patch laid out along the channels."""
from cpuframe.function_node import FunctionNode
from cpuframe.functions.connection import _im2col
from cpuframe.utils import type_check
from cpuframe.utils.conv import pair


class Im2Col(FunctionNode):
    """``(n, c, h, w) -> (n, c * kh * kw, out_h, out_w)``.

    The gradient is :class:`Col2Im` (summing each column entry back into
    the pixel it came from), whose own gradient is :class:`Im2Col` again.
    """

    def __init__(self, ksize, stride, pad, cover_all, dilate):
        self.ksize = pair(ksize, 'im2col: ksize')
        self.stride = pair(stride, 'im2col: stride')
        self.pad = pair(pad, 'im2col: pad')
        self.dilate = pair(dilate, 'im2col: dilate')
        self.cover_all = cover_all
        for name, v, low in (('ksize', self.ksize, 1),
                             ('stride', self.stride, 1),
                             ('pad', self.pad, 0),
                             ('dilate', self.dilate, 1)):
            if min(v) < low:
                raise ValueError('im2col: {} must be >= {}, got {}'.format(
                    name, low, v))

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('ksize', 'stride', 'pad', 'cover_all', 'dilate')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4)
        size = type_check.eval(x.shape)[2:]
        out = _im2col.conv_outsize(size, self.ksize, self.stride, self.pad,
                                   self.dilate, self.cover_all)
        if min(out) < 1:
            raise type_check.InvalidType(
                'output size >= 1 on both spatial axes',
                'output size {} for x.shape[2:] = {}, ksize={}, stride={}, '
                'pad={}, dilate={}'.format(out, size, self.ksize,
                                           self.stride, self.pad,
                                           self.dilate))

    def forward(self, inputs):
        x, = inputs
        self._size = x.shape[2:]
        col = _im2col.im2col(x, self.ksize, self.stride, self.pad,
                             self.dilate, self.cover_all)
        n, c, kh, kw, oh, ow = col.shape
        return col.reshape(n, c * kh * kw, oh, ow),

    def backward(self, indexes, grad_outputs):
        return Col2Im(self.ksize, self.stride, self.pad, self._size,
                      self.dilate, self.cover_all).apply(grad_outputs)


class Col2Im(FunctionNode):
    """The adjoint of :class:`Im2Col`: columns summed back into an image."""

    def __init__(self, ksize, stride, pad, size, dilate, cover_all):
        self.ksize = ksize
        self.stride = stride
        self.pad = pad
        self.size = size
        self.dilate = dilate
        self.cover_all = cover_all

    def forward(self, inputs):
        gy, = inputs
        n, ckk, oh, ow = gy.shape
        kh, kw = self.ksize
        col = gy.reshape(n, ckk // (kh * kw), kh, kw, oh, ow)
        return _im2col.col2im(col, self.stride, self.pad, self.size,
                              self.dilate),

    def backward(self, indexes, grad_outputs):
        return Im2Col(self.ksize, self.stride, self.pad, self.cover_all,
                      self.dilate).apply(grad_outputs)


def im2col(x, ksize, stride=1, pad=0, cover_all=False, dilate=1):
    """Extracts the patches of an image into the channel axis.

    ``y[n, (c * kh + dy) * kw + dx, i, j]`` is
    ``x[n, c, i * sy + dy * dh - ph, j * sx + dx * dw - pw]`` (zero where
    that falls into the padding): the patch a convolution with kernel
    ``ksize`` sees at output position ``(i, j)``, flattened channel-major.

    Args:
        x (Variable or array): Input image of shape ``(n, c, h, w)``.
        ksize (int or pair of ints): Size of the patches.
        stride (int or pair of ints): Stride of the patches.
        pad (int or pair of ints): Zero padding of both sides.
        cover_all (bool): Extend the far side so that every pixel is in a
            patch (as in ``convolution_2d``).
        dilate (int or pair of ints): Dilation of the patches.

    Returns:
        Variable of shape ``(n, c * kh * kw, out_h, out_w)``.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> F.im2col(x, 2, stride=2).shape
    (1, 4, 2, 2)
    """
    return Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))[0]
