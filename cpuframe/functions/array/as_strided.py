"""A strided view of the memory under an array, with gradients."""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _root(array):
    """The ndarray that owns the memory ``array`` views (looking through
    the wrapper ``numpy.lib.stride_tricks.as_strided`` puts in between)."""
    while True:
        base = array.base
        if not isinstance(base, numpy.ndarray):
            base = getattr(base, 'base', None)
        if not isinstance(base, numpy.ndarray):
            return array
        array = base


def _positions(shape, strides, offset):
    """The element index (in the root buffer) of every element of a view."""
    pos = numpy.full(shape, offset, dtype=numpy.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        idx = numpy.arange(n, dtype=numpy.int64) * s
        pos += idx.reshape((n,) + (1,) * (len(shape) - axis - 1))
    return pos


class _Geometry:
    """Where an array's elements lie in its root buffer, in elements."""

    def __init__(self, array):
        if not isinstance(array, numpy.ndarray):
            raise TypeError('as_strided: only numpy.ndarray is supported, '
                            'got {}'.format(type(array).__name__))
        item = array.itemsize
        root = _root(array)
        offset = array.__array_interface__['data'][0] - \
            root.__array_interface__['data'][0]
        if offset % item or any(s % item for s in array.strides):
            raise ValueError('as_strided: the array is not aligned to its '
                             'itemsize')
        self.shape = array.shape
        self.strides = tuple(s // item for s in array.strides)
        self.storage_offset = offset // item
        if not (root.flags.c_contiguous or root.flags.f_contiguous):
            raise ValueError('as_strided: cannot find the contiguous buffer '
                             'under the array')
        self.buffer_size = root.nbytes // item
        self.root = root

    def positions(self):
        return _positions(self.shape, self.strides, self.storage_offset)


class AsStrided(FunctionNode):
    """``y[i] = buffer[storage_offset + sum(i_k * strides_k)]`` over the
    buffer under ``x`` (strides and offset counted in elements)."""

    def __init__(self, shape, strides, storage_offset=None):
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset
        if len(self.shape) != len(self.strides):
            raise ValueError('as_strided: shape and strides must have the '
                             'same length')

    @property
    def label(self):
        return 'AsStrided'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)

    def forward(self, inputs):
        x, = inputs
        geo = _Geometry(x)
        if self.storage_offset is None:
            self.storage_offset = geo.storage_offset
        pos = _positions(self.shape, self.strides, self.storage_offset)
        if pos.size:
            if pos.min() < 0:
                raise ValueError(
                    'Out of buffer: too small index was specified')
            if pos.max() >= geo.buffer_size:
                raise ValueError(
                    'Out of buffer: too large index was specified')
        flat = numpy.ndarray((geo.buffer_size,), x.dtype,
                             geo.root.reshape(-1, order='A').data)
        self._input_positions = geo.positions()
        self._output_positions = pos
        return flat[pos].copy(),

    def backward(self, indexes, grad_outputs):
        return AsStridedGrad(self._input_positions,
                             self._output_positions).apply(grad_outputs)


class AsStridedGrad(FunctionNode):
    """The gradient of :class:`AsStrided`: the output gradient summed per
    buffer element, read back at the input's elements (divided among the
    input elements that share one buffer element)."""

    def __init__(self, input_positions, output_positions):
        self.input_positions = input_positions
        self.output_positions = output_positions

    def forward(self, inputs):
        gy, = inputs
        if gy.dtype.kind != 'f':
            raise TypeError('Only float is supported for back propagation')
        pin, pout = self.input_positions, self.output_positions
        if pin.size == 0:
            return numpy.zeros(pin.shape, gy.dtype),
        lo = min(pin.min(), pout.min()) if pout.size else pin.min()
        hi = max(pin.max(), pout.max()) if pout.size else pin.max()
        storage = numpy.zeros(hi - lo + 1, gy.dtype)
        numpy.add.at(storage, (pout - lo).ravel(), gy.ravel())
        gx = storage[pin - lo]
        count = numpy.bincount((pin - lo).ravel(), minlength=storage.size)
        if (count > 1).any():  # input elements sharing memory
            gx = gx / count[pin - lo]
        return gx.astype(gy.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError(
            'as_strided does not support double backpropagation')


def as_strided(x, shape, strides, storage_offset=None):
    """A view of the memory buffer under ``x`` with the given ``shape``,
    ``strides`` and ``storage_offset``, counted in elements (not bytes, as
    :func:`numpy.lib.stride_tricks.as_strided` counts them).

    The layout of ``x`` itself only matters through where its elements lie
    in the buffer; ``storage_offset`` defaults to that of ``x``.  The
    result is a copy (writing to it leaves ``x`` alone).  The gradient of
    an element of the buffer is the sum over the output elements reading
    it; input elements sharing one buffer element share that gradient
    equally.  Only NumPy arrays; no double backpropagation.

    >>> x = cpuframe.Variable(np.arange(4, dtype=np.float32))
    >>> y = F.as_strided(x, (3, 2), (1, 1), 0)
    >>> y.array
    array([[0., 1.],
           [1., 2.],
           [2., 3.]], dtype=float32)
    >>> y.grad = np.ones((3, 2), dtype=np.float32)
    >>> y.backward()
    >>> x.grad
    array([1., 2., 2., 1.], dtype=float32)
    """
    return AsStrided(shape, strides, storage_offset).apply((x,))[0]
