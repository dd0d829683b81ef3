"""Resizing of (N, C, H, W) images by bilinear or nearest interpolation."""
import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _interp_matrix(out_size, in_size, mode, align_corners, dtype):
    """(out_size, in_size) matrix M with ``out = M @ in`` along one axis."""
    dst = numpy.arange(out_size, dtype=numpy.float64)
    m = numpy.zeros((out_size, in_size), dtype=numpy.float64)
    rows = numpy.arange(out_size)
    if mode == 'nearest':
        src = numpy.minimum(numpy.floor(dst * (in_size / out_size)),
                            in_size - 1).astype(numpy.intp)
        m[rows, src] = 1
        return m.astype(dtype)
    if align_corners:
        if out_size > 1:
            src = dst * ((in_size - 1) / (out_size - 1))
        else:
            src = numpy.zeros_like(dst)
    else:
        src = numpy.maximum((dst + 0.5) * (in_size / out_size) - 0.5, 0)
    src = numpy.minimum(src, in_size - 1)
    lo = numpy.floor(src).astype(numpy.intp)
    w = src - lo
    hi = numpy.minimum(lo + 1, in_size - 1)
    # Row indices are distinct within each assignment, so += accumulates.
    m[rows, lo] += 1 - w
    m[rows, hi] += w
    return m.astype(dtype)


def _apply(x, my, mx):
    """``my @ x @ mx.T`` over the last two axes of an (N, C, H, W) array."""
    xp = backend.get_array_module(x)
    my, mx = xp.asarray(my), xp.asarray(mx)
    n, c, h, w = x.shape
    t = xp.matmul(x.reshape(n * c * h, w), mx.T)           # (NCH, W')
    t = t.reshape(n * c, h, -1)
    y = xp.matmul(my, t)                                   # (NC, H', W')
    return y.reshape(n, c, my.shape[0], mx.shape[0])


class ResizeImages(FunctionNode):
    def __init__(self, output_shape, mode, align_corners):
        self.out_H, self.out_W = output_shape
        self.mode = mode
        self.align_corners = align_corners

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4)

    def forward(self, inputs):
        x, = inputs
        _, _, h, w = x.shape
        self._in_hw = (h, w)
        self._my = _interp_matrix(self.out_H, h, self.mode,
                                  self.align_corners, x.dtype)
        self._mx = _interp_matrix(self.out_W, w, self.mode,
                                  self.align_corners, x.dtype)
        return utils.force_array(_apply(x, self._my, self._mx), x.dtype),

    def backward(self, indexes, grad_outputs):
        return ResizeImagesGrad(self._my, self._mx).apply(grad_outputs)


class ResizeImagesGrad(FunctionNode):
    """The transpose of the resize: ``my.T @ gy @ mx``."""

    def __init__(self, my, mx):
        self.my, self.mx = my, mx

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('gy',))
        type_check.expect(in_types[0].ndim == 4)

    def forward(self, inputs):
        gy, = inputs
        return utils.force_array(_apply(gy, self.my.T, self.mx.T),
                                 gy.dtype),

    def backward(self, indexes, grad_outputs):
        return ResizeImagesGrad(self.my.T, self.mx.T).apply(grad_outputs)


def resize_images(x, output_shape, mode='bilinear', align_corners=True):
    """Resize images to ``output_shape`` by interpolation (Chainer 7).

    Args:
        x: float Variable or array of shape ``(N, C, H, W)``.
        output_shape (tuple of int): ``(H_out, W_out)``, positive.
        mode (str): ``'bilinear'`` or ``'nearest'``.
        align_corners (bool): bilinear only.  ``True`` maps the corner
            pixel centres onto each other: source coordinate
            ``i * (H - 1) / (H_out - 1)``; ``False`` uses half-pixel
            centres ``(i + 0.5) * H / H_out - 0.5`` clipped to ``[0, H-1]``.
            ``'nearest'`` takes pixel ``min(floor(i * H / H_out), H - 1)``.

    Returns:
        Variable of shape ``(N, C, H_out, W_out)``.

    >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    >>> F.resize_images(x, (3, 3)).array[0, 0]
    array([[0. , 0.5, 1. ],
           [1. , 1.5, 2. ],
           [2. , 2.5, 3. ]], dtype=float32)
    """
    if mode not in ('bilinear', 'nearest'):
        raise ValueError("resize_images: mode must be 'bilinear' or "
                         "'nearest', got {!r}".format(mode))
    try:
        out_h, out_w = output_shape
        ok = all(isinstance(v, (int, numpy.integer)) and
                 not isinstance(v, bool) and v > 0 for v in (out_h, out_w))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError('resize_images: output_shape must be a pair of '
                         'positive ints, got {!r}'.format(output_shape))
    return ResizeImages((int(out_h), int(out_w)), mode,
                        bool(align_corners)).apply((x,))[0]
