"""ROI max/average pooling and ROI max/average align (Fast/Mask R-CNN).

The four functions take Chainer 7's ``(x, rois, roi_indices, outsize,
spatial_scale)`` arguments, ROIs being ``(y_min, x_min, y_max, x_max)``.
Each output value is a weighted sum of input pixels, so one forward pass
turns the ROIs (and, for the max variants, the winning pixel or sample of
each bin and channel) into a list of ``(output index, input index,
weight)`` terms; the output is that sparse linear map applied to ``x``.  The
gradient applies the transposed map to ``gy`` (:class:`_ROITransposed`),
whose own gradient is the map again, so every order of gradient is exact
for fixed maxima.
"""
import math
import numbers

import numpy

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.pooling.roi_pooling_2d import _bin
from cpuframe.utils import type_check


def _positive_int(v):
    return (not isinstance(v, bool) and isinstance(v, (int, numpy.integer))
            and v >= 1)


def _pair(v, label, name, allow_none=False):
    """``v`` as an ``(h, w)`` pair of positive ints (or ``None``)."""
    pair = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    ok = len(pair) == 2 and all(
        _positive_int(p) or (allow_none and p is None) for p in pair)
    if not ok:
        raise TypeError('{}: {} must be a positive int or a pair of positive '
                        'ints{}, got {!r}'.format(
                            label, name, ' (or None)' if allow_none else '',
                            v))
    return tuple(None if p is None else int(p) for p in pair)


def _axis_samples(start, bin_size, grid, n_bins, size):
    """Bilinear terms along one axis of every sample of every bin.

    Sample ``k`` of bin ``i`` sits at ``start + (i + (k + 0.5) / grid) *
    bin_size``.  Mask R-CNN's rule: a sample more than one pixel outside
    the map is invalid, the others are clamped to ``[0, size - 1]``.
    Returns the low and high pixel, the high pixel's weight and validity,
    each ``(n_bins, grid)``.
    """
    c = start + numpy.arange(n_bins)[:, None] * bin_size + \
        (numpy.arange(grid) + 0.5) * bin_size / grid
    valid = (c >= -1) & (c <= size)
    c = numpy.clip(c, 0, size - 1)
    low = c.astype(numpy.int64)
    return low, numpy.minimum(low + 1, size - 1), c - low, valid


class _ROIBase(FunctionNode):
    """Argument checks, the loop over ROIs and bins, and the linear map.

    A subclass gives ``_label``, ``_start_roi(roi, height, width)``, called
    once per ROI to set up its bins, and ``_bin_terms(image, i, j)``, which
    returns the terms of bin ``(i, j)`` of the current ROI (``image`` is
    ``x[roi_index]``, ``(c, h, w)``) as three arrays: channel (``None``
    where ``_shared``, the terms being the same in every channel), flat
    spatial index and weight.
    """

    _label = None
    _shared = False

    def __init__(self, outsize, spatial_scale):
        self.outh, self.outw = _pair(outsize, self._label, 'outsize')
        if isinstance(spatial_scale, bool) or not isinstance(
                spatial_scale, numbers.Real) or not spatial_scale > 0:
            raise TypeError('{}: spatial_scale must be a positive float, '
                            'got {!r}'.format(self._label, spatial_scale))
        self.spatial_scale = float(spatial_scale)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'rois', 'roi_indices'))
        x_type, roi_type, idx_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 4,
            roi_type.dtype == x_type.dtype,
            roi_type.ndim == 2,
            roi_type.shape[1] == 4,
            idx_type.dtype.kind == 'i',
            idx_type.ndim == 1,
            roi_type.shape[0] == idx_type.shape[0],
        )

    def forward(self, inputs):
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        x_cpu = numpy.asarray(backend.cpu_device.send(x))
        rois_cpu = numpy.asarray(backend.cpu_device.send(rois))
        index_cpu = numpy.asarray(backend.cpu_device.send(roi_indices))
        n, channels, height, width = x.shape
        n_out = self.outh * self.outw
        out_idx, in_idx, vals = [], [], []
        for r in range(rois_cpu.shape[0]):
            b = int(index_cpu[r])
            if not 0 <= b < n:
                raise ValueError(
                    '{}: roi_indices[{}] = {} out of range for x of batch '
                    'size {}'.format(self._label, r, b, n))
            self._start_roi(rois_cpu[r], height, width)
            for i in range(self.outh):
                for j in range(self.outw):
                    ch, pos, w = self._bin_terms(x_cpu[b], i, j)
                    if len(pos) == 0:
                        continue
                    if self._shared:
                        # Spatial terms, the same for every channel.
                        out_idx.append(numpy.full(
                            len(pos), r * n_out + i * self.outw + j))
                        in_idx.append(b * (height * width) + pos)
                        vals.append(w)
                        continue
                    o, pos, w = numpy.broadcast_arrays(
                        r * channels + ch, pos, w)
                    out_idx.append((o * n_out + i * self.outw + j).ravel())
                    in_idx.append(((b * channels + ch) * (height * width)
                                   + pos).ravel())
                    vals.append(w.ravel())
        y_shape = (rois_cpu.shape[0], channels, self.outh, self.outw)
        if out_idx:
            terms = (numpy.concatenate(out_idx), numpy.concatenate(in_idx),
                     numpy.concatenate(vals))
        else:
            terms = (numpy.zeros(0, numpy.int64),) * 2 + (numpy.zeros(0),)
        cls = _SharedMap if self._shared else _Map
        self._map = cls(terms, x.shape, y_shape)
        return xp.asarray(self._map.apply(x_cpu)),

    def backward(self, indexes, grad_outputs):
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(
                    _ROITransposed(self._map).apply(grad_outputs)[0])
            else:
                ret.append(None)
        return tuple(ret)


class _Map(object):
    """The sparse linear map ``x -> y`` as ``(out, in, weight)`` terms."""

    def __init__(self, terms, x_shape, y_shape):
        self.out_idx, self.in_idx, self.vals = terms
        self.x_shape, self.y_shape = x_shape, y_shape

    def apply(self, x):
        x = numpy.asarray(backend.cpu_device.send(x))
        size = int(numpy.prod(self.y_shape))
        y = numpy.bincount(self.out_idx, x.ravel()[self.in_idx] * self.vals,
                           minlength=size)
        return utils.force_array(y.reshape(self.y_shape).astype(x.dtype))

    def transpose(self, gy):
        gy = numpy.asarray(backend.cpu_device.send(gy))
        size = int(numpy.prod(self.x_shape))
        gx = numpy.bincount(self.in_idx, gy.ravel()[self.out_idx] * self.vals,
                            minlength=size)
        return gx.reshape(self.x_shape).astype(gy.dtype)


def _segment_sum(keys, rows, size):
    """``out[k] = sum(rows[keys == k])`` for sorted ``keys``."""
    out = numpy.zeros((size,) + rows.shape[1:], rows.dtype)
    if len(keys):
        starts = numpy.flatnonzero(numpy.r_[True, keys[1:] != keys[:-1]])
        out[keys[starts]] = numpy.add.reduceat(rows, starts, axis=0)
    return out


class _SharedMap(object):
    """A map whose spatial ``(out, in, weight)`` terms hold per channel.

    The terms come sorted by output position; the transpose visits them
    sorted by input position.  Both sums run over whole channel rows.
    """

    def __init__(self, terms, x_shape, y_shape):
        self.out_idx, self.in_idx, self.vals = terms
        self.order = numpy.argsort(self.in_idx, kind='stable')
        self.x_shape, self.y_shape = x_shape, y_shape

    def apply(self, x):
        x = numpy.asarray(backend.cpu_device.send(x))
        n, c, h, w = self.x_shape
        r, _, outh, outw = self.y_shape
        xt = x.reshape(n, c, h * w).transpose(0, 2, 1).reshape(n * h * w, c)
        y = _segment_sum(self.out_idx, xt[self.in_idx] * self.vals[:, None],
                         r * outh * outw)
        y = y.reshape(r, outh, outw, c).transpose(0, 3, 1, 2)
        return numpy.ascontiguousarray(y, dtype=x.dtype)

    def transpose(self, gy):
        gy = numpy.asarray(backend.cpu_device.send(gy))
        n, c, h, w = self.x_shape
        r, _, outh, outw = self.y_shape
        gyt = gy.transpose(0, 2, 3, 1).reshape(r * outh * outw, c)
        out, order = self.out_idx, self.order
        gx = _segment_sum(self.in_idx[order],
                          gyt[out[order]] * self.vals[order][:, None],
                          n * h * w)
        gx = gx.reshape(n, h * w, c).transpose(0, 2, 1).reshape(self.x_shape)
        return numpy.ascontiguousarray(gx, dtype=gy.dtype)


class _ROITransposed(FunctionNode):
    """``gx`` from ``gy`` through the transposed map (linear)."""

    def __init__(self, roi_map):
        self.map = roi_map

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        return xp.asarray(self.map.transpose(gy)),

    def backward(self, indexes, grad_outputs):
        return _ROIMapped(self.map).apply(grad_outputs)


class _ROIMapped(FunctionNode):
    """``ggy`` from ``ggx`` through the map itself (linear)."""

    def __init__(self, roi_map):
        self.map = roi_map

    def forward(self, inputs):
        ggx, = inputs
        xp = backend.get_array_module(ggx)
        return xp.asarray(self.map.apply(ggx)),

    def backward(self, indexes, grad_outputs):
        return _ROITransposed(self.map).apply(grad_outputs)


class _ROIPoolingBase(_ROIBase):
    """Integer bins: the ROI rounded to pixels, as Chainer's CPU code."""

    def _start_roi(self, roi, height, width):
        # round() of the NumPy scalar product (half to even).
        ymin, xmin, ymax, xmax = (int(round(v * self.spatial_scale))
                                  for v in roi)
        self._corner = ymin, xmin
        self._stride = (max(ymax - ymin, 1) / self.outh,
                        max(xmax - xmin, 1) / self.outw)
        self._size = height, width

    def _window(self, i, j):
        (ymin, xmin), (sh, sw) = self._corner, self._stride
        h0, h1 = _bin(i, sh, self._size[0], ymin)
        w0, w1 = _bin(j, sw, self._size[1], xmin)
        if h1 <= h0 or w1 <= w0:
            return None
        rows, cols = numpy.meshgrid(numpy.arange(h0, h1),
                                    numpy.arange(w0, w1), indexing='ij')
        return (rows * self._size[1] + cols).ravel()


class ROIMaxPooling2D(_ROIPoolingBase):
    """Maximum of each integer bin of each ROI (empty bin: 0)."""

    _label = 'roi_max_pooling_2d'

    def _bin_terms(self, image, i, j):
        pos = self._window(i, j)
        if pos is None:
            return None, (), ()
        patch = image.reshape(image.shape[0], -1)[:, pos]
        k = patch.argmax(axis=1)
        return (numpy.arange(image.shape[0]), pos[k],
                numpy.ones(image.shape[0]))


class ROIAveragePooling2D(_ROIPoolingBase):
    """Mean of each integer bin of each ROI (empty bin: 0)."""

    _label = 'roi_average_pooling_2d'
    _shared = True

    def _bin_terms(self, image, i, j):
        pos = self._window(i, j)
        if pos is None:
            return None, (), ()
        return None, pos, numpy.full(len(pos), 1.0 / len(pos))


class _ROIAlignBase(_ROIBase):
    """Bins of real size, sampled on a grid with bilinear interpolation."""

    def __init__(self, outsize, spatial_scale, sampling_ratio):
        super().__init__(outsize, spatial_scale)
        self.sampling_ratio = _pair(sampling_ratio, self._label,
                                    'sampling_ratio', allow_none=True)

    def _start_roi(self, roi, height, width):
        ys, xs, ye, xe = (float(v) * self.spatial_scale for v in roi)
        roi_h, roi_w = max(ye - ys, 1.0), max(xe - xs, 1.0)
        gh, gw = self.sampling_ratio
        if gh is None:
            gh = int(math.ceil(roi_h / self.outh))
        if gw is None:
            gw = int(math.ceil(roi_w / self.outw))
        self._count = gh * gw
        self._ys = _axis_samples(ys, roi_h / self.outh, gh, self.outh, height)
        self._xs = _axis_samples(xs, roi_w / self.outw, gw, self.outw, width)
        self._width = width

    def _samples(self, i, j):
        """Flat positions ``(S, 4)``, weights ``(S, 4)`` and validity
        ``(S,)`` of the samples of bin ``(i, j)``, row by row."""
        y0, y1, ly, vy = (a[i][:, None] for a in self._ys)
        x0, x1, lx, vx = (a[j][None, :] for a in self._xs)
        y0, y1 = y0 * self._width, y1 * self._width
        pos = numpy.stack([y0 + x0, y0 + x1, y1 + x0, y1 + x1], axis=-1)
        hy, hx = 1.0 - ly, 1.0 - lx
        w = numpy.stack([hy * hx, hy * lx, ly * hx, ly * lx], axis=-1)
        return pos.reshape(-1, 4), w.reshape(-1, 4), (vy & vx).ravel()


class ROIMaxAlign2D(_ROIAlignBase):
    """Largest interpolated sample of each bin (no sample in range: 0)."""

    _label = 'roi_max_align_2d'

    def _bin_terms(self, image, i, j):
        pos, w, valid = self._samples(i, j)
        pos, w = pos[valid], w[valid]
        if len(pos) == 0:
            return None, (), ()
        flat = image.reshape(image.shape[0], -1)
        values = (flat[:, pos] * w).sum(axis=2)  # (c, S)
        k = values.argmax(axis=1)  # the first of equal maxima
        return numpy.arange(image.shape[0])[:, None], pos[k], w[k]


class ROIAverageAlign2D(_ROIAlignBase):
    """Mean of the interpolated samples of each bin (out of range: 0)."""

    _label = 'roi_average_align_2d'
    _shared = True

    def _bin_terms(self, image, i, j):
        pos, w, valid = self._samples(i, j)
        if not valid.any():
            return None, (), ()
        return None, pos[valid].ravel(), w[valid].ravel() / self._count


_ARGS_DOC = """
    Args:
        x (Variable or array): Input feature map ``(n, c, h, w)``.
        rois (Variable or array): ``(R, 4)`` of ``x``'s dtype, each row
            ``(y_min, x_min, y_max, x_max)`` in the coordinates that
            ``spatial_scale`` maps onto ``x``'s.
        roi_indices (Variable or array): ``(R,)`` integers: the batch
            index in ``x`` of each ROI.
        outsize (int or (int, int)): Output ``(height, width)``;
            ``o`` means ``(o, o)``."""


def roi_max_pooling_2d(x, rois, roi_indices, outsize, spatial_scale):
    """Spatial region of interest (ROI) max pooling function.

    Like :func:`roi_pooling_2d`, with Chainer 7's ROI layout.  Each ROI is
    scaled by ``spatial_scale`` and rounded (half to even) to pixels; its
    ``max(y_max - y_min, 1)`` by ``max(x_max - x_min, 1)`` extent is cut
    into bins ``[floor(i * s), ceil((i + 1) * s))`` (``s`` the extent over
    the output size, offset by the ROI's corner, clipped to the map), and
    each bin takes its maximum per channel; an empty bin gives 0.

    {args}
        spatial_scale (float): Scale of the ROI coordinates to ``x``'s.

    Returns:
        Variable of shape ``(R, c, outh, outw)``.

    See: `Fast R-CNN <https://arxiv.org/abs/1504.08083>`_

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> rois = np.array([[0, 0, 4, 4]], np.float32)
    >>> idx = np.array([0], np.int32)
    >>> F.roi_max_pooling_2d(x, rois, idx, 2, 1.0).array
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    return ROIMaxPooling2D(outsize, spatial_scale).apply(
        (x, rois, roi_indices))[0]


def roi_average_pooling_2d(x, rois, roi_indices, outsize, spatial_scale):
    """Spatial region of interest (ROI) average pooling function.

    The bins of :func:`roi_max_pooling_2d`, each taking the mean of its
    pixels per channel instead of the maximum; an empty bin gives 0.

    {args}
        spatial_scale (float): Scale of the ROI coordinates to ``x``'s.

    Returns:
        Variable of shape ``(R, c, outh, outw)``.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> rois = np.array([[0, 0, 4, 4]], np.float32)
    >>> idx = np.array([0], np.int32)
    >>> F.roi_average_pooling_2d(x, rois, idx, 2, 1.0).array
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    """
    return ROIAveragePooling2D(outsize, spatial_scale).apply(
        (x, rois, roi_indices))[0]


def roi_max_align_2d(x, rois, roi_indices, outsize, spatial_scale,
                     sampling_ratio=None):
    """Spatial region of interest (ROI) max align function.

    As in Mask R-CNN, the ROI is scaled by ``spatial_scale`` without
    rounding; its ``max(y_max - y_min, 1)`` by ``max(x_max - x_min, 1)``
    extent is cut into ``outsize`` equal bins, each sampled on a regular
    ``sampling_ratio`` grid (the centres of its cells) by bilinear
    interpolation, and each bin takes its largest sample per channel.  A
    sample more than one pixel outside the map is skipped; a bin with no
    sample in range gives 0.

    {args}
        spatial_scale (float): Scale of the ROI coordinates to ``x``'s.
        sampling_ratio (None, int or (int, int)): Samples per bin along
            height and width; ``None`` (per axis) means
            ``ceil(roi_size / outsize)``.

    Returns:
        Variable of shape ``(R, c, outh, outw)``.

    See: `Mask R-CNN <https://arxiv.org/abs/1703.06870>`_

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> rois = np.array([[0, 0, 4, 4]], np.float32)
    >>> idx = np.array([0], np.int32)
    >>> F.roi_max_align_2d(x, rois, idx, 2, 1.0).array
    array([[[[ 7.5,  9. ],
             [13.5, 15. ]]]], dtype=float32)
    """
    return ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio).apply(
        (x, rois, roi_indices))[0]


def roi_average_align_2d(x, rois, roi_indices, outsize, spatial_scale,
                         sampling_ratio=None):
    """Spatial region of interest (ROI) average align function.

    The bins and samples of :func:`roi_max_align_2d`, each bin taking the
    mean of its ``sampling_ratio[0] * sampling_ratio[1]`` samples per
    channel; a sample more than one pixel outside the map counts as 0.

    {args}
        spatial_scale (float): Scale of the ROI coordinates to ``x``'s.
        sampling_ratio (None, int or (int, int)): Samples per bin along
            height and width; ``None`` (per axis) means
            ``ceil(roi_size / outsize)``.

    Returns:
        Variable of shape ``(R, c, outh, outw)``.

    See: `Mask R-CNN <https://arxiv.org/abs/1703.06870>`_

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> rois = np.array([[0, 0, 4, 4]], np.float32)
    >>> idx = np.array([0], np.int32)
    >>> F.roi_average_align_2d(x, rois, idx, 2, 1.0).array
    array([[[[ 5.  ,  6.75],
             [12.  , 13.75]]]], dtype=float32)
    """
    return ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio).apply(
        (x, rois, roi_indices))[0]


for _f in (roi_max_pooling_2d, roi_average_pooling_2d, roi_max_align_2d,
           roi_average_align_2d):
    _f.__doc__ = _f.__doc__.replace('    {args}', _ARGS_DOC.lstrip('\n'))
del _f
