"""Region of interest max pooling (Fast R-CNN)."""
import math

import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _bin(i, stride, size, offset):
    """The ``[start, end)`` of output bin ``i`` along one axis, clipped."""
    start = int(math.floor(i * stride)) + offset
    end = int(math.ceil((i + 1) * stride)) + offset
    return min(max(start, 0), size), min(max(end, 0), size)


class ROIPooling2D(FunctionNode):
    """Max pooling of each region of interest to ``(outh, outw)`` bins.

    Keeps the flat (``h * w``) position of each maximum; the gradient
    scatters ``gy`` there (:class:`_ROIPooling2DGrad`), whose own gradient
    gathers from the same positions.
    """

    def __init__(self, outh, outw, spatial_scale):
        for name, v in (('outh', outh), ('outw', outw)):
            if isinstance(v, bool) or not isinstance(v, (int, numpy.integer)) \
                    or v < 1:
                raise ValueError('roi_pooling_2d: {} must be a positive int, '
                                 'got {!r}'.format(name, v))
        self.outh, self.outw = int(outh), int(outw)
        self.spatial_scale = spatial_scale

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'rois'))
        x_type, roi_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 4,
            roi_type.dtype == x_type.dtype,
            roi_type.ndim == 2,
            roi_type.shape[1] == 5,
        )

    def forward(self, inputs):
        x, rois = inputs
        xp = backend.get_array_module(x)
        x_cpu = numpy.asarray(backend.cpu_device.send(x))
        rois_cpu = numpy.asarray(backend.cpu_device.send(rois))
        n, channels, height, width = x.shape
        n_rois = rois_cpu.shape[0]
        y = numpy.zeros((n_rois, channels, self.outh, self.outw), x.dtype)
        argmax = numpy.full(y.shape, -1, numpy.int64)
        scale = self.spatial_scale
        for r in range(n_rois):
            idx = int(rois_cpu[r, 0])
            if not 0 <= idx < n:
                raise ValueError(
                    'roi_pooling_2d: batch index {} of roi {} out of range '
                    'for x of batch size {}'.format(idx, r, n))
            # round() of the NumPy scalar product (half to even), as
            # Chainer's CPU code.
            xmin, ymin, xmax, ymax = (int(round(v * scale))
                                      for v in rois_cpu[r, 1:])
            roi_w = max(xmax - xmin + 1, 1)
            roi_h = max(ymax - ymin + 1, 1)
            stride_h = roi_h / self.outh
            stride_w = roi_w / self.outw
            for i in range(self.outh):
                h0, h1 = _bin(i, stride_h, height, ymin)
                if h1 <= h0:
                    continue
                for j in range(self.outw):
                    w0, w1 = _bin(j, stride_w, width, xmin)
                    if w1 <= w0:
                        continue
                    patch = x_cpu[idx, :, h0:h1, w0:w1].reshape(channels, -1)
                    k = patch.argmax(axis=1)
                    y[r, :, i, j] = patch[numpy.arange(channels), k]
                    argmax[r, :, i, j] = (h0 + k // (w1 - w0)) * width + \
                        w0 + k % (w1 - w0)
        self._x_shape = x.shape
        self._argmax = argmax
        self._batch_index = rois_cpu[:, 0].astype(numpy.int64)
        return xp.asarray(y),

    def backward(self, indexes, grad_outputs):
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_ROIPooling2DGrad(
                    self._x_shape, self._argmax,
                    self._batch_index).apply(grad_outputs)[0])
            else:
                ret.append(None)
        return tuple(ret)


class _ROIPooling2DGrad(FunctionNode):
    """``gx`` with ``gy`` added at each maximum's position (linear)."""

    def __init__(self, x_shape, argmax, batch_index):
        self.x_shape = x_shape
        self.argmax = argmax
        self.batch_index = batch_index

    def _flat_index(self):
        n, c, h, w = self.x_shape
        valid = self.argmax >= 0
        b = self.batch_index[:, None, None, None]
        ch = numpy.arange(c)[None, :, None, None]
        flat = (b * c + ch) * (h * w) + self.argmax
        return flat[valid], valid

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        flat, valid = self._flat_index()
        gx = numpy.zeros(int(numpy.prod(self.x_shape)), gy.dtype)
        gy_cpu = numpy.asarray(backend.cpu_device.send(gy))
        numpy.add.at(gx, flat, gy_cpu[valid])
        return xp.asarray(gx.reshape(self.x_shape)),

    def backward(self, indexes, grad_outputs):
        return _ROIGather(self).apply(grad_outputs)


class _ROIGather(FunctionNode):
    """``ggy`` read from ``ggx`` at each maximum's position (0 if empty)."""

    def __init__(self, grad):
        self.grad = grad

    def forward(self, inputs):
        ggx, = inputs
        xp = backend.get_array_module(ggx)
        flat, valid = self.grad._flat_index()
        out = numpy.zeros(self.grad.argmax.shape, ggx.dtype)
        out[valid] = numpy.asarray(backend.cpu_device.send(ggx)).ravel()[flat]
        return utils.force_array(xp.asarray(out)),

    def backward(self, indexes, grad_outputs):
        return self.grad.apply(grad_outputs)


def roi_pooling_2d(x, rois, outh, outw, spatial_scale):
    """Spatial region of interest (ROI) pooling function.

    Max-pools each ROI of ``x`` to a fixed ``(outh, outw)`` grid, as in
    Fast R-CNN.  A ROI ``(batch_index, x_min, y_min, x_max, y_max)`` is
    scaled by ``spatial_scale`` and rounded (Python's ``round``, half to
    even, as Chainer's CPU code) to feature-map pixels; the ROI of
    ``max(x_max - x_min + 1, 1)`` by ``max(y_max - y_min + 1, 1)`` pixels is
    cut into bins ``[floor(i * s) , ceil((i + 1) * s))`` (``s`` the ROI size
    over the output size, offset by the ROI's corner, clipped to the map)
    and each bin takes its maximum; an empty bin gives 0.

    Args:
        x (Variable or array): Input feature map ``(n, c, h, w)``.
        rois (Variable or array): ``(R, 5)`` of ``x``'s dtype: batch index
            and the corners ``x_min, y_min, x_max, y_max``.
        outh, outw (int): Output height and width.
        spatial_scale (float): Scale of the ROI coordinates to ``x``'s.

    Returns:
        Variable of shape ``(R, c, outh, outw)``.

    See: `Fast R-CNN <https://arxiv.org/abs/1504.08083>`_

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> rois = np.array([[0, 0, 0, 3, 3]], np.float32)
    >>> F.roi_pooling_2d(x, rois, 2, 2, 1.0).array
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    return ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]
