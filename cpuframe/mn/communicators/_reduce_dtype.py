"""Gradient buckets and the dtypes they are reduced in.

A bucket is one contiguous buffer holding several parameters' gradients
(or values) back to back, in the communication dtype: the parameter's own
dtype, or ``allreduce_grad_dtype`` (float16 or bfloat16 halve the bytes;
MPI has no sum for them, so they get a user-defined MPI operation that adds
in float32).
"""
import threading

import numpy

BFLOAT16 = 'bfloat16'
_HALF_KINDS = ('float16', BFLOAT16)


def parse(caller, dtype):
    """``allreduce_grad_dtype`` as None, a NumPy dtype or ``'bfloat16'``."""
    if dtype is None:
        return None
    if isinstance(dtype, str) and dtype.lower() in ('bfloat16', 'bf16'):
        return BFLOAT16
    try:
        parsed = numpy.dtype(dtype)
    except TypeError:
        parsed = None
    if parsed is None or parsed.kind != 'f':
        raise ValueError('{}: expected allreduce_grad_dtype as None, '
                         'float16, bfloat16, float32 or float64, got {!r}'
                         .format(caller, dtype))
    return parsed


def plain_mpi_dtype(dtype):
    """True for dtypes MPI sums natively; None for float16."""
    dtype = numpy.dtype(dtype)
    if dtype == numpy.float16:
        return None
    return True


def _bf16_from_f32(x):
    """float32 -> bfloat16 bits (uint16), rounding to nearest even; NaN kept."""
    bits = numpy.ascontiguousarray(x, numpy.float32).view(numpy.uint32)
    rounding = ((bits >> 16) & 1) + numpy.uint32(0x7FFF)
    out = ((bits + rounding) >> 16).astype(numpy.uint16)
    nan = numpy.isnan(x)
    if nan.any():
        out[nan] = ((bits[nan] >> 16) | 0x40).astype(numpy.uint16)
    return out


def _f32_from_bf16(bits):
    return (numpy.asarray(bits, numpy.uint16).astype(numpy.uint32)
            << 16).view(numpy.float32)


_ops_lock = threading.Lock()
_ops = {}


def _sum_op(MPI, kind):
    """A commutative MPI sum over float16 or bfloat16 (as uint16) buffers."""
    with _ops_lock:
        op = _ops.get(kind)
        if op is None:
            if kind == 'float16':
                def add(inbuf, outbuf, datatype):
                    a = numpy.frombuffer(inbuf, numpy.float16)
                    b = numpy.frombuffer(outbuf, numpy.float16)
                    b[...] = (a.astype(numpy.float32) + b).astype(numpy.float16)
            else:
                def add(inbuf, outbuf, datatype):
                    a = numpy.frombuffer(inbuf, numpy.uint16)
                    b = numpy.frombuffer(outbuf, numpy.uint16)
                    b[...] = _bf16_from_f32(_f32_from_bf16(a) + _f32_from_bf16(b))
            op = MPI.Op.Create(add, commute=True)
            _ops[kind] = op
    return op


def layout_key(array):
    """How ``array``'s elements lie in memory: for a native (intel64) array
    its oneDNN descriptor and the element count of its buffer (padding
    included); ``'c'`` for NumPy (and CuPy) arrays, packed in C order."""
    from cpuframe.backends import intel64
    if intel64.is_native_array(array):
        return (array.desc_key, array.nbytes // array.dtype.itemsize)
    return 'c'


def _flat(array, layout):
    """A writable 1-D view of ``array``'s memory in the signature's layout,
    or None when the array must be copied in logical order."""
    if layout is None:
        return None
    if isinstance(array, numpy.ndarray):
        return array.reshape(-1) if array.flags.c_contiguous else None
    from cpuframe.backends import intel64
    if intel64.is_native_array(array) and isinstance(layout, tuple) and \
            array.storage_dtype == 'float32':
        return array.raw_view()
    return None


class Bucket:
    """Some parameters' arrays packed back to back in one buffer.

    A *direct* bucket holds one large parameter: when its array is a
    C-contiguous NumPy array of the communication dtype, the collective
    works on that array in place (no packing copy); otherwise it is copied
    into the bucket's own buffer like any other.
    """

    def __init__(self, kind, slots, total, direct=False):
        self.kind = kind            # a NumPy dtype name, or 'bfloat16'
        self.slots = slots          # (entry index, offset, size, shape)
        self.direct = direct
        self._storage = numpy.uint16 if kind == BFLOAT16 else numpy.dtype(kind)
        self._total = total
        self._own = None
        self._in_place = False
        self.buffer = None

    def _own_buffer(self):
        if self._own is None:
            self._own = numpy.empty(self._total, self._storage)
        return self._own

    def mpi_buffer(self, MPI):
        """The buffer spec for mpi4py: half kinds travel as 16-bit words."""
        if self.kind in _HALF_KINDS:
            return [self.buffer, MPI.UINT16_T]
        return self.buffer    # mpi4py maps float32/float64 to MPI's types

    def mpi_op(self, MPI):
        if self.kind in _HALF_KINDS:
            return _sum_op(MPI, self.kind)
        return MPI.SUM

    def pack(self, entries, attr, copy=True):
        """Fill the buffer from the parameters' ``attr`` arrays.

        ``copy=False`` only binds the buffer (a receiver of a broadcast).
        """
        if self.direct:
            index, _, _, _, layout = self.slots[0]
            flat = _flat(getattr(entries[index][1], attr), layout)
            if (flat is not None and flat.dtype == self._storage
                    and self.kind != BFLOAT16):
                self.buffer = flat
                self._in_place = True
                return
        self.buffer = self._own_buffer()
        self._in_place = False
        if not copy:
            return
        for index, offset, size, _shape, layout in self.slots:
            array = getattr(entries[index][1], attr)
            view = self.buffer[offset:offset + size]
            flat = _flat(array, layout)
            if flat is None:
                flat = _host_view(array).reshape(-1)
            if self.kind == BFLOAT16:
                view[...] = _bf16_from_f32(flat)
            else:
                numpy.copyto(view, flat, casting='unsafe')

    def unpack(self, entries, attr, scale):
        if self._in_place:
            if scale != 1.0:
                numpy.multiply(self.buffer, self.buffer.dtype.type(scale),
                               out=self.buffer)
            _fix_padding(getattr(entries[self.slots[0][0]][1], attr))
            return
        for index, offset, size, shape, layout in self.slots:
            target = getattr(entries[index][1], attr)
            view = self.buffer[offset:offset + size]
            if self.kind == BFLOAT16:
                view = _f32_from_bf16(view)
            flat = _flat(target, layout)
            if flat is not None:
                if scale == 1.0:
                    numpy.copyto(flat, view, casting='unsafe')
                else:
                    numpy.multiply(view, scale, out=flat, casting='unsafe')
                _fix_padding(target)
            else:
                _store(target, view.reshape(shape), scale)


def _fix_padding(array):
    """Blocked layouts keep zeros in their padding; sums of them stay zero,
    but a broadcast may bring another rank's: rewrite them."""
    if getattr(array, 'has_padding', False):
        array.zero_padding()


def _host_view(array):
    if isinstance(array, numpy.ndarray):
        return array
    from cpuframe.backends import cuda, intel64
    if intel64.is_native_array(array):
        return intel64.to_numpy(array)
    if cuda.is_cupy_array(array):
        return cuda.to_cpu(array)
    return numpy.asarray(array)


def _store(target, values, scale):
    """``target[...] = values * scale``, in ``target``'s dtype and place."""
    if isinstance(target, numpy.ndarray):
        if scale == 1.0:
            numpy.copyto(target, values, casting='unsafe')
        else:
            numpy.multiply(values, scale, out=target, casting='unsafe')
        return
    result = values if scale == 1.0 else values * scale
    result = result.astype(target.dtype, copy=False)
    from cpuframe.backends import cuda
    if cuda.is_cupy_array(target):
        target[...] = cuda.to_gpu(result, device=target.device)
    else:
        target[...] = result


def make_buckets(signature, reduce_dtype, bucket_bytes, direct_bytes):
    """Group the parameters of ``signature`` (``(name, shape, dtype,
    layout)`` in order, layout None for logical order) into buckets of
    about ``bucket_bytes``, one communication dtype per bucket; a parameter
    of ``direct_bytes`` or more gets a direct bucket of its own."""
    buckets = []
    open_buckets = {}   # kind -> [slots, total]
    for index, (_, shape, dtype, layout) in enumerate(signature):
        if reduce_dtype is None:
            kind = numpy.dtype(dtype).name
        elif reduce_dtype == BFLOAT16:
            kind = BFLOAT16
        else:
            kind = reduce_dtype.name
        itemsize = 2 if kind == BFLOAT16 else numpy.dtype(kind).itemsize
        size = int(numpy.prod(shape))
        if isinstance(layout, tuple):
            size = layout[1]      # a native buffer, padding included
        slot = (index, 0, size, shape, layout)
        if size * itemsize >= direct_bytes:
            buckets.append(Bucket(kind, [slot], size, direct=True))
            continue
        slots, total = open_buckets.setdefault(kind, [[], 0])
        if slots and (total + size) * itemsize > bucket_bytes:
            buckets.append(Bucket(kind, slots, total))
            slots, total = [], 0
        slots.append((index, total, size, shape, layout))
        open_buckets[kind] = [slots, total + size]
    for kind, (slots, total) in open_buckets.items():
        if slots:
            buckets.append(Bucket(kind, slots, total))
    return buckets
