"""The mdarray's NumPy side: the boundary (``to_numpy``/``from_numpy``,
``numpy.asarray``) and the protocols attached to the native Tensor class when
the module loads (ufuncs and arithmetic on the physical buffers, array
functions, indexing, pickling)."""
import numbers
import sys

import numpy

_pkg = sys.modules[__package__]  # the package: mdarray and the loaded module live there


def is_native_array(array):
    """True for arrays of the Intel64 device's native tensor type (mdarray)."""
    # Before the first use, the placeholder's check loads the module when
    # ``array`` is a native tensor made by someone importing it directly.
    return type(array) is not numpy.ndarray and isinstance(array, _pkg.mdarray)


def to_numpy(array):
    """``array`` as a NumPy array (the boundary; a no-op for ndarrays)."""
    if is_native_array(array):
        view = array.plain_view()
        return numpy.asarray(array) if view is None else view
    return array


def from_numpy(array):
    """A float32 ndarray as an mdarray (plain layout, a copy)."""
    _pkg.check_ideep_available()
    return _pkg.mdarray.from_numpy(numpy.asarray(array, dtype=numpy.float32))



# Ufuncs computed on the physical buffers when every array operand has the
# output's shape: each maps equal layouts element by element.
_ELEMENTWISE = frozenset([
    numpy.add, numpy.subtract, numpy.multiply, numpy.divide,
    numpy.true_divide, numpy.power, numpy.float_power, numpy.sqrt,
    numpy.square, numpy.maximum, numpy.minimum, numpy.fmax, numpy.fmin,
    numpy.negative, numpy.positive, numpy.absolute, numpy.fabs, numpy.sign,
    numpy.exp, numpy.expm1, numpy.log, numpy.log1p, numpy.reciprocal,
    numpy.tanh, numpy.sin, numpy.cos, numpy.copysign, numpy.cbrt,
])
_SCALAR_TYPES = (numbers.Number, numpy.generic)


def _is_operand(x):
    return is_native_array(x) or isinstance(x, (numpy.ndarray,) + _SCALAR_TYPES)


def _elementwise(ufunc, inputs, out):
    """The ufunc on raw views; NotImplemented when it does not apply."""
    tensor_type = _pkg.mdarray
    out_t = None
    if out is not None:
        if len(out) != 1 or not isinstance(out[0], tensor_type):
            return NotImplemented
        out_t = out[0]
    ref = out_t
    if ref is None:
        for x in inputs:
            if isinstance(x, tensor_type):
                ref = x
                break
    if ref is None or ref.dtype != numpy.float32:
        return NotImplemented
    bf16 = [isinstance(x, tensor_type) and x.storage_dtype != 'float32'
            for x in inputs]
    if any(bf16) or (out_t is not None and out_t.storage_dtype != 'float32'):
        # bf16 storage (mixed_bf16 activations). The sum of two bf16 ones
        # (gradient accumulation in backward) stays bf16, on oneDNN's sum
        # (float32 accumulation, rounded once), in the first one's layout;
        # with a float32 operand it is float32 (below), as on NumPy.
        if ufunc is numpy.add and len(inputs) == 2 and all(bf16) and all(
                x.shape == ref.shape for x in inputs) and (
                out_t is None or out_t.storage_dtype != 'float32'):
            total = _pkg.native().sum(list(inputs))
            if out_t is None:
                return total
            out_t.copy_from(total)   # (in place: a += b)
            return out_t
        if out_t is not None and out_t.storage_dtype != 'float32':
            # through NumPy, written back rounded by copy_from
            return NotImplemented
        # Otherwise float32 in the operands' own layouts (no transposition):
        # the result is float32, as the NumPy path's would be.
        inputs = tuple(_pkg.native().to_float32(x) if b else x
                       for x, b in zip(inputs, bf16))
        if ref is not None and ref.storage_dtype != 'float32':
            ref = inputs[bf16.index(True)]
    shape = ref.shape
    ops = []
    probe = []  # the operands at a padding position: 0 for every array
    for x in inputs:
        if isinstance(x, tensor_type):
            if x.shape != shape:
                return NotImplemented
            if not x.same_layout(ref):
                x = x.reorder_to_layout_of(ref)
            ops.append(x.raw_view())
            probe.append(numpy.float32(0))
        elif isinstance(x, numpy.ndarray):
            if x.ndim == 0 and x.dtype.kind in 'biuf':
                ops.append(x)
                probe.append(x)
                continue
            if x.shape != shape or x.dtype != numpy.float32:
                return NotImplemented
            t = tensor_type.empty_like(ref)
            t.copy_from(x)
            ops.append(t.raw_view())
            probe.append(numpy.float32(0))
        elif isinstance(x, _SCALAR_TYPES) and not isinstance(x, complex):
            ops.append(x)
            probe.append(x)
        else:
            return NotImplemented
    if out_t is None:
        out_t = tensor_type.empty_like(ref)
    if out_t.has_padding:
        # The zeros of a blocked layout's padding take part too (0 / 0 and
        # the like): silence what they raise, then restore the zeros unless
        # the ufunc maps zeros (and these scalars) to zero anyway, as the
        # optimizers' updates do (a + b, a * s, a / (sqrt(b) + eps), ...).
        with numpy.errstate(divide='ignore', invalid='ignore'):
            ufunc(*ops, out=out_t.raw_view())
            keeps_zeros = ufunc(*probe) == 0
        if not keeps_zeros:
            out_t.zero_padding()
    elif ufunc is numpy.add and len(ops) == 2 and _large_f32_pair(ops):
        # Gradient accumulation's case: NumPy's add is single-threaded.
        _pkg.native().add_f32(out_t.raw_view(), ops[0], ops[1])
    else:
        ufunc(*ops, out=out_t.raw_view())
    return out_t


# From this many floats the native add (on the OpenMP team) takes over.
_NATIVE_ADD_MIN = 1 << 18


def _large_f32_pair(ops):
    return all(isinstance(o, numpy.ndarray) and o.dtype == numpy.float32 and
               o.size >= _NATIVE_ADD_MIN and o.flags.c_contiguous for o in ops)


def _unwrap(obj):
    """Tensors (also inside lists, tuples and dicts) converted to NumPy."""
    if is_native_array(obj):
        return numpy.asarray(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unwrap(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _unwrap(v) for k, v in obj.items()}
    return obj


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    out = kwargs.pop('out', None)
    if method == '__call__' and not kwargs and ufunc in _ELEMENTWISE:
        result = _elementwise(ufunc, inputs, out)
        if result is not NotImplemented:
            return result
    if not all(_is_operand(x) or x is None for x in inputs):
        return NotImplemented
    inputs = tuple(_unwrap(x) for x in inputs)
    if out is None:
        return getattr(ufunc, method)(*inputs, **kwargs)
    outs = tuple(x.to_numpy() if is_native_array(x) else x for x in out)
    result = getattr(ufunc, method)(*inputs, out=outs, **kwargs)
    for dst, tmp in zip(out, outs):
        if is_native_array(dst):
            dst.copy_from(tmp)
    if is_native_array(out[0]) and len(out) == 1:
        return out[0]
    return result


def _copyto(dst, src, casting='same_kind', where=True):
    if is_native_array(dst) and where is True:
        if is_native_array(src) or isinstance(src, numpy.ndarray):
            if tuple(src.shape) == dst.shape and src.dtype == numpy.float32:
                dst.copy_from(src)
                return None
        tmp = numpy.empty(dst.shape, numpy.float32)
        numpy.copyto(tmp, _unwrap(src), casting=casting)
        dst.copy_from(tmp)
        return None
    if is_native_array(dst):
        tmp = numpy.asarray(dst).copy()
        numpy.copyto(tmp, _unwrap(src), casting=casting, where=_unwrap(where))
        dst.copy_from(tmp)
        return None
    return numpy.copyto(dst, _unwrap(src), casting=casting, where=_unwrap(where))


def _like(fill):
    def make(a, dtype=None, order='K', subok=True, shape=None, *args):
        if is_native_array(a) and shape is None and not args and (
                dtype is None or numpy.dtype(dtype) == numpy.float32):
            if fill == 0:
                return _pkg.mdarray.zeros_like(a)
            t = _pkg.mdarray.empty_like(a)
            if fill is not None:
                t.fill(fill)
            return t
        return NotImplemented
    return make


def _full_like(a, fill_value, dtype=None, order='K', subok=True, shape=None):
    if is_native_array(a) and shape is None and (
            dtype is None or numpy.dtype(dtype) == numpy.float32):
        t = _pkg.mdarray.empty_like(a)
        t.fill(fill_value)
        return t
    return NotImplemented


_FUNCTIONS = {
    numpy.zeros_like: _like(0),
    numpy.ones_like: _like(1),
    numpy.empty_like: _like(None),
    numpy.full_like: _full_like,
    numpy.copyto: _copyto,
}


def _array_function(self, func, types, args, kwargs):
    handler = _FUNCTIONS.get(func)
    if handler is not None:
        result = handler(*args, **kwargs)
        if result is not NotImplemented:
            return result
    return func(*_unwrap(args), **_unwrap(kwargs))


def _array(self, dtype=None, copy=None):
    a = None if copy is True else self.plain_view()
    if a is None:
        if copy is False:
            raise ValueError(
                'mdarray.__array__: a {} layout of {} needs a copy (a reorder) '
                'to become a NumPy array'.format(self.format,
                                                 self.storage_dtype))
        a = self.to_numpy()
    if dtype is not None and numpy.dtype(dtype) != a.dtype:
        a = a.astype(dtype)
    return a


def _fill(self, value):
    if self.storage_dtype != 'float32':
        self.copy_from(numpy.full(self.shape, value, numpy.float32))
        return
    self.raw_view().fill(value)
    if self.has_padding:
        self.zero_padding()


def _astype(self, dtype, order='K', casting='unsafe', subok=True, copy=True):
    if numpy.dtype(dtype) == numpy.float32:
        if self.storage_dtype != 'float32':  # float32 storage asked for
            return _pkg.native().to_float32(self)
        return self.copy() if copy else self
    return numpy.asarray(self).astype(dtype, order=order, casting=casting)


def _getitem(self, key):
    return numpy.asarray(self)[key]


def _setitem(self, key, value):
    value = _unwrap(value)
    full = key is Ellipsis or (isinstance(key, slice) and key == slice(None))
    if full and isinstance(value, _SCALAR_TYPES):
        self.fill(value)
        return
    if full and isinstance(value, numpy.ndarray) and value.shape == self.shape:
        self.copy_from(value.astype(numpy.float32, copy=False))
        return
    if self.is_plain and self.storage_dtype == 'float32':
        numpy.asarray(self)[key] = value
        return
    tmp = self.to_numpy()
    tmp[key] = value
    self.copy_from(tmp)


def _len(self):
    if not self.shape:
        raise TypeError('len() of a 0-d mdarray')
    return self.shape[0]


def _repr(self):
    body = numpy.array2string(numpy.asarray(self), separator=', ',
                              prefix='mdarray(')
    return 'mdarray({}, format={!r})'.format(body, self.format)


def _reduce(self):
    return _pkg._rebuild_mdarray, (self.to_numpy(),)


def _binary(ufunc):
    def op(self, other):
        if not _is_operand(other):
            return NotImplemented
        return ufunc(self, other)

    def rop(self, other):
        if not _is_operand(other):
            return NotImplemented
        return ufunc(other, self)

    def iop(self, other):
        if not _is_operand(other):
            return NotImplemented
        return ufunc(self, other, out=(self,))
    return op, rop, iop


def _boundary_method(name):
    def method(self, *args, **kwargs):
        return getattr(numpy.asarray(self), name)(*_unwrap(args),
                                                  **_unwrap(kwargs))
    method.__name__ = name
    method.__doc__ = 'numpy.ndarray.{} on the NumPy view (the boundary).'.format(
        name)
    return method


_BOUNDARY_METHODS = (
    'sum', 'mean', 'max', 'min', 'prod', 'std', 'var', 'argmax', 'argmin',
    'all', 'any', 'clip', 'dot', 'reshape', 'ravel', 'flatten', 'squeeze',
    'transpose', 'swapaxes', 'tolist', 'item', 'cumsum', 'round', 'nonzero',
    'take', 'repeat', 'tobytes', 'view',
)


def add_protocols(cls):
    cls.__array_priority__ = 1000
    cls.__array_ufunc__ = _array_ufunc
    cls.__array_function__ = _array_function
    cls.__array__ = _array
    cls.__len__ = _len
    cls.__iter__ = lambda self: iter(numpy.asarray(self))
    cls.__repr__ = _repr
    cls.__str__ = lambda self: str(numpy.asarray(self))
    cls.__reduce__ = _reduce
    cls.__copy__ = lambda self: self.copy()
    cls.__deepcopy__ = lambda self, memo: self.copy()
    cls.__getitem__ = _getitem
    cls.__setitem__ = _setitem
    cls.__bool__ = lambda self: bool(numpy.asarray(self))
    cls.__float__ = lambda self: float(numpy.asarray(self))
    cls.__int__ = lambda self: int(numpy.asarray(self))
    cls.fill = _fill
    cls.astype = _astype
    cls.T = property(lambda self: numpy.asarray(self).T)
    cls.itemsize = 4
    cls.strides = property(lambda self: numpy.asarray(self).strides)
    for name, ufunc in (('add', numpy.add), ('sub', numpy.subtract),
                        ('mul', numpy.multiply),
                        ('truediv', numpy.true_divide),
                        ('pow', numpy.power)):
        op, rop, iop = _binary(ufunc)
        setattr(cls, '__{}__'.format(name), op)
        setattr(cls, '__r{}__'.format(name), rop)
        setattr(cls, '__i{}__'.format(name), iop)
    cls.__neg__ = lambda self: numpy.negative(self)
    cls.__pos__ = lambda self: self.copy()
    cls.__abs__ = lambda self: numpy.absolute(self)
    for name, ufunc in (('lt', numpy.less), ('le', numpy.less_equal),
                        ('gt', numpy.greater), ('ge', numpy.greater_equal)):
        setattr(cls, '__{}__'.format(name),
                (lambda f: lambda self, other: f(numpy.asarray(self),
                                                 _unwrap(other)))(ufunc))
    for name in _BOUNDARY_METHODS:
        setattr(cls, name, _boundary_method(name))
