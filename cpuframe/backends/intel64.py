"""The intel64 backend: oneDNN through the native module ``cpuframe._dnnl``.

Whether an op runs on oneDNN is decided in one place, the FunctionNode
machinery (``FunctionNode._choose_intel64``), from ``config.use_ideep`` and
what the op says it supports; the helpers here answer the questions it asks.

The array of the Intel64 device is ``mdarray``: the native tensor
``cpuframe._dnnl.Tensor`` (a oneDNN memory in whatever layout the primitive
that wrote it chose) with the NumPy protocols added below.  ``numpy.asarray``
is the boundary that converts it to plain NCHW; element-wise arithmetic
(``+ - * /``, in place too, and element-wise ufuncs) runs on the physical
buffers without any reorder when the operands share a layout.

Deferred values and fusion
--------------------------
On the device a convolution returns its output Tensor before computing it
(``may_defer``); the values are computed the first time anything reads the
buffer (every C++ accessor and ``raw_view`` settles them; any write from
Python through ``raw_view``/``copy_from`` first settles every deferred
tensor, so a deferred op never sees inputs changed after it ran).  ``F.relu``
applied to such an output while it is a temporary
(``cpuframe._temporaries.claimable_by_relu``, where the rule and its
contract live: reference counts show relu's frame is its only holder, no
hook is active)
folds itself in as the convolution's oneDNN relu post-op (conv + bias + relu
in one primitive) and returns that same Tensor.  A post-op relu turns NaN
into 0, so a convolution with a NaN or infinite input declines and relu runs
separately (NumPy's NaN pattern kept).  ``CPUFRAME_INTEL64_DEFER=0`` turns
deferral off; ``deferred_stats()`` counts what happened.

Donated gradients (rule in ``cpuframe._temporaries``): the backward engine
tells a node whose class sets ``accepts_donated_grads`` which output
gradients only the engine holds (``FunctionNode.donated_grad_outputs``);
relu's backward then writes its result over that gradient
(``relu_grad(..., overwrite_gy=True)``, which also requires
``owns_buffer``: no view and no deferred op shares it).

How to add a route
------------------
1. C++ (one file per op family, e.g. ``csrc/pooling.cpp``; add it to
   CMakeLists.txt and register it in ``ops.hpp``/``module.cpp``): take inputs
   as ``TensorPtr x = as_tensor(fn, "x", obj)`` (a Tensor as it is, a float32
   ndarray wrapped without a copy), build a ``PrimitiveKey`` from everything
   the primitive depends on (use ``desc_key(x->desc())`` for input layouts),
   get the primitive from ``PrimitiveCache::global().get_or_create``, convert
   inputs with ``in_layout(x, pd.src_desc())`` (no-op when the layout already
   matches; counted in ``reorder_stats()`` otherwise), allocate outputs with
   ``Tensor::empty(pd.dst_desc(), logical_shape)`` and ``execute(prim, args)``
   (releases the GIL).  Wrap the oneDNN calls in ``guard_dnnl``.  Return
   Tensors; never convert to NumPy in C++.  Element-wise ops may run on the
   flat physical buffer (any layout: see ``eltwise.cpp``); layout-sensitive
   ones should accept the input's own layout (pass ``x->desc()`` as the
   primitive's src desc) so activations keep flowing in the layout the
   convolutions chose.  ``csrc/convolution.cpp`` is the worked example
   (including querying descs back from a cached primitive).
2. Python, in the op's FunctionNode (and its Grad nodes): ``intel64_supports
   (inputs)`` (float32 only: use ``intel64.all_float32(inputs)``, plus the
   options the kernel handles), ``intel64_profitable(inputs)`` for 'auto'
   (e.g. ``intel64.large_enough(x)``), and ``forward_intel64(inputs)``
   calling ``intel64.native().your_function(...)`` and returning a tuple.
   Call ``retain_inputs``/``retain_outputs`` exactly as ``forward`` does.
   The machinery converts: mdarray inputs of an op that does not take its
   route become NumPy arrays; outputs of a route whose inputs were all NumPy
   become NumPy arrays ("NumPy in, NumPy out"), so ``forward_intel64`` may
   simply return Tensors.  A gradient node that keeps device arrays as
   constants (e.g. ``ReLUGrad`` keeps ``y``, the filter-gradient nodes keep
   the weight as ``w_like``) overrides ``intel64_on_device(inputs)`` so that
   its output stays an mdarray.  Never read ``config.use_ideep`` in an op.
   In C++, check dtypes with ``dtype.equal(py::dtype::of<float>())`` (or
   ``as_tensor``), not ``dtype.kind()``/``itemsize()``: with pybind11 2.11
   those misread NumPy 2 descriptors.
3. Tests in ``tests/backends/intel64/``: parity against
   ``config.use_ideep='never'`` for forward and every gradient, on NumPy
   inputs and on the Intel64 device (``intel64.mdarray.from_numpy``).
"""
import numbers
import os
import sys
import threading
import warnings

import numpy

from cpuframe import _native
from cpuframe.backends._base import Device
from cpuframe.backends._cpu import _to_numpy
from cpuframe.configuration import config

_SHOULD_USE_LEVELS = ('>=auto', '==always')
# CPUFRAME_INTEL64_DEFER=0 computes every convolution output at once (no
# conv + relu fusion); for A/B measurements.
_DEFER = os.environ.get('CPUFRAME_INTEL64_DEFER', '1') != '0'


def _is_native_tensor_type(cls):
    return cls.__name__ == 'Tensor' and cls.__module__ == 'cpuframe._dnnl'


class _LazyTensorType(type):
    """Metaclass of the ``mdarray`` placeholder: defers to the native type.

    ``isinstance(x, intel64.mdarray)`` works before the backend's first use
    (as Chainer's always-present ``intel64.mdarray`` class does) without
    loading the native module for the common case of a non-native ``x``;
    attributes and calls load it and delegate to ``cpuframe._dnnl.Tensor``.
    """

    def __instancecheck__(cls, instance):
        return cls.__subclasscheck__(type(instance))

    def __subclasscheck__(cls, subclass):
        if subclass is cls:
            return True
        if _dnnl is None:
            if not any(_is_native_tensor_type(c)
                       for c in getattr(subclass, '__mro__', ())):
                return False
            _install()
        return _dnnl is not None and issubclass(subclass, _dnnl.Tensor)

    def _native_type(cls):
        mod = native()
        if mod is None:
            check_ideep_available()
        return mod.Tensor

    def __getattr__(cls, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return getattr(cls._native_type(), name)

    def __call__(cls, *args, **kwargs):
        return cls._native_type()(*args, **kwargs)


class _NotLoaded(metaclass=_LazyTensorType):
    """Stands for ``mdarray`` until the native module is loaded."""


#: The array type of the Intel64 device (``cpuframe._dnnl.Tensor`` once the
#: native module is loaded).  Before the backend's first use it is a
#: placeholder class that ``isinstance`` checks and attribute reads defer
#: to the native type, so it can be used (and imported) at any time.
mdarray = _NotLoaded
_dnnl = None


def native():
    """The ``cpuframe._dnnl`` module (with mdarray installed), or None."""
    if _dnnl is None:
        _install()
    return _dnnl


def _install():
    global _dnnl, mdarray
    mod = _native.load()
    if mod is None or _dnnl is not None:
        return
    _add_protocols(mod.Tensor)
    mdarray = mod.Tensor
    _dnnl = mod


def is_ideep_available():
    """True when the oneDNN native module loaded."""
    return native() is not None


def unavailable_reason():
    """Why the native module did not load, or ``None`` when it did."""
    return None if is_ideep_available() else _native.load_error()


def check_ideep_available():
    """Raise ``RuntimeError`` with the reason when oneDNN is not usable."""
    if not is_ideep_available():
        raise RuntimeError(
            'intel64 backend: the oneDNN native module cpuframe._dnnl could '
            'not be loaded: {}'.format(_native.load_error()))


class NativeBackendMissingWarning(UserWarning):
    """cpuframe was imported from a source checkout whose native module is
    not built, so ``config.use_ideep='auto'`` runs every op on NumPy.

    Emitted once per process, where 'auto' first needs the backend.
    """


_missing_checked = False
_missing_lock = threading.Lock()


def warn_if_native_missing():
    """Warn once per process when 'auto' falls back to NumPy because cpuframe
    was imported from a source checkout without the native module.

    Called where 'auto' needs the backend and finds it missing, not at
    ``import cpuframe``: a script that never runs a routed op (or runs with
    'never') loses nothing, and importing stays free of loading the native
    module.  Silent when ``CPUFRAME_DISABLE_NATIVE`` chose NumPy and for an
    installed package (``unavailable_reason()`` says why it did not load).
    """
    global _missing_checked
    if _missing_checked:
        return
    with _missing_lock:
        if _missing_checked:
            return
        _missing_checked = True
    if _native.disabled() or native() is not None:
        return
    root = _native.source_tree()
    if root is None:
        return
    warnings.warn(
        'cpuframe was imported from the source tree at {}, where its native '
        'module cpuframe._dnnl is not built ({}); config.use_ideep=\'auto\' '
        'therefore runs every op on NumPy, many times slower. Run Python from '
        'outside the checkout to use the installed cpuframe, or build the '
        'checkout with `pip install -e .` (or install it with `pip install '
        '.`). CPUFRAME_DISABLE_NATIVE=1 chooses the NumPy path on purpose and '
        'silences this warning.'.format(root, _native.load_error()),
        NativeBackendMissingWarning, stacklevel=_caller_outside_package())


def _caller_outside_package():
    """The ``stacklevel`` of the first caller outside cpuframe: the warning
    then names the user's line, not the machinery's."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(
            package + os.sep):
        frame = frame.f_back
        level += 1
    return level


def should_use_ideep(level):
    """Chainer's check: ``level`` is ``'>=auto'`` or ``'==always'``."""
    if level not in _SHOULD_USE_LEVELS:
        raise ValueError(
            'should_use_ideep: expected level in {}, got {!r}'.format(
                _SHOULD_USE_LEVELS, level))
    if not is_ideep_available():
        if level == '>=auto' and config.use_ideep == 'auto':
            warn_if_native_missing()
        return False
    if level == '>=auto':
        return config.use_ideep in ('auto', 'always')
    return config.use_ideep == 'always'


def is_native_array(array):
    """True for arrays of the Intel64 device's native tensor type (mdarray)."""
    # Before the first use, the placeholder's check loads the module when
    # ``array`` is a native tensor made by someone importing it directly.
    return isinstance(array, mdarray)


def may_defer(inputs):
    """Whether an op may return its output before computing it (see
    ``cpuframe._temporaries.claimable_by_relu``): only on the device (every
    input an mdarray, so every later write to them computes deferred values
    first) and not in debug mode."""
    if not _DEFER or config.debug:
        return False
    return all(x is None or is_native_array(x) for x in inputs)


def owns_buffer(array):
    """True for an mdarray that alone holds its buffer (no view, no NumPy
    memory under it): the condition, besides nothing else referring to the
    object, for overwriting it in place."""
    return is_native_array(array) and native().owns_buffer(array)


def inputs_all_ready(inputs, supported_ndim=(2, 4)):
    """True when every input is an array oneDNN can take as it is.

    ``None`` entries are ignored. An input qualifies when it is a float32
    NumPy array (or native tensor) whose ndim is in ``supported_ndim``.
    """
    if not is_ideep_available():
        return False
    for x in inputs:
        if x is None:
            continue
        if hasattr(x, 'array') and not is_native_array(x):
            x = x.array
        if not (isinstance(x, numpy.ndarray) or is_native_array(x)):
            return False
        if x.dtype != numpy.float32 or x.ndim not in supported_ndim:
            return False
    return True


def all_float32(inputs):
    """True when every non-None input is a float32 ndarray or an mdarray."""
    for x in inputs:
        if x is None or is_native_array(x):
            continue
        if not isinstance(x, numpy.ndarray) or x.dtype != numpy.float32:
            return False
    return True


def any_native(inputs):
    """True when some input lives on the Intel64 device."""
    return any(is_native_array(x) for x in inputs)


def has_nan(x):
    """Whether the float32 array or mdarray ``x`` holds a NaN.

    For routes whose oneDNN kernel drops NaN where the NumPy path keeps it
    (max pooling): they decline such inputs in ``intel64_supports``. One
    read of the array, no copy.
    """
    if is_native_array(x):
        return bool(native().has_nan(x))
    return x.size > 0 and bool(numpy.isnan(x.min()))


_FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)


def all_within(x, low=-_FLOAT32_MAX, high=_FLOAT32_MAX):
    """Whether every value of the float32 array or mdarray ``x`` lies in
    ``[low, high]`` (a NaN never does; the defaults: no NaN, no infinity).

    For routes whose oneDNN kernel treats such values otherwise than the
    NumPy path: they decline those inputs in ``intel64_supports``
    (convolutions skip the zero padding that the NumPy path multiplies,
    ``0 * inf = NaN`` there; max pooling starts from the lowest float, not
    -inf). One read of the array, no copy.
    """
    return bool(native().all_within(x, low, high))


# Strides, pads and dilations from here on take the NumPy path: oneDNN creates
# no primitive for some (stride 2**31 fails), and a window option this large
# only ever meets mostly padding; 2**20 leaves every real case routed.
_MAX_WINDOW_OPTION = 1 << 20


def geometry_supported(arrays, options=()):
    """Whether oneDNN creates a primitive for these arrays and window options.

    Every array (x, W, gy ...; None skipped) or shape tuple (a kernel size)
    must have no zero-size axis (oneDNN has no primitive for empty tensors
    or kernels, where the NumPy path computes the empty or zero result),
    and every option (stride, pad, dilation values) must lie below 2**20.
    """
    for a in arrays:
        if a is not None and 0 in (a if isinstance(a, tuple) else a.shape):
            return False
    return all(0 <= int(o) < _MAX_WINDOW_OPTION for o in options)


def large_enough(x, threshold):
    """True when ``x`` (an array or shape) has at least ``threshold`` elements.

    The usual 'auto' test: below some size the call overhead of a primitive
    outweighs its speed.
    """
    size = x.size if hasattr(x, 'size') else int(numpy.prod(x))
    return size >= threshold


def to_numpy(array):
    """``array`` as a NumPy array (the boundary; a no-op for ndarrays)."""
    if is_native_array(array):
        return numpy.asarray(array)
    return array


def from_numpy(array):
    """A float32 ndarray as an mdarray (plain layout, a copy)."""
    check_ideep_available()
    return mdarray.from_numpy(numpy.asarray(array, dtype=numpy.float32))


def _rebuild_mdarray(array):
    return from_numpy(array)


# ---------------------------------------------------------------------------
# The Intel64 device
# ---------------------------------------------------------------------------

class Intel64Device(Device):
    """The oneDNN device (``'@intel64'``).

    float32 arrays of 1 to 12 dimensions sent here become ``mdarray``s;
    others (integer labels, float64, 0-dim) stay NumPy arrays, which the
    NumPy path computes as usual.
    """

    xp = numpy
    name = '@intel64'

    def __init__(self):
        check_ideep_available()

    @property
    def supported_array_types(self):
        return (numpy.ndarray, numpy.generic, mdarray)

    def send_array(self, array):
        if is_native_array(array):
            return array
        array = _to_numpy(array)
        if isinstance(array, numpy.ndarray) and \
                array.dtype == numpy.float32 and 1 <= array.ndim <= 12:
            return mdarray.from_numpy(array)
        return array


# ---------------------------------------------------------------------------
# NumPy protocols of mdarray
# ---------------------------------------------------------------------------

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
    tensor_type = mdarray
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
        native().add_f32(out_t.raw_view(), ops[0], ops[1])
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
                return mdarray.zeros_like(a)
            t = mdarray.empty_like(a)
            if fill is not None:
                t.fill(fill)
            return t
        return NotImplemented
    return make


def _full_like(a, fill_value, dtype=None, order='K', subok=True, shape=None):
    if is_native_array(a) and shape is None and (
            dtype is None or numpy.dtype(dtype) == numpy.float32):
        t = mdarray.empty_like(a)
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
    if self.is_plain and copy is not True:
        a = self.raw_view()[:self.size].reshape(self.shape)
    else:
        if copy is False:
            raise ValueError(
                'mdarray.__array__: a {} layout needs a copy (a reorder) to '
                'become a NumPy array'.format(self.format))
        a = self.to_numpy()
    if dtype is not None and numpy.dtype(dtype) != a.dtype:
        a = a.astype(dtype)
    return a


def _fill(self, value):
    self.raw_view().fill(value)
    if self.has_padding:
        self.zero_padding()


def _astype(self, dtype, order='K', casting='unsafe', subok=True, copy=True):
    if numpy.dtype(dtype) == numpy.float32:
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
    if self.is_plain:
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
    return _rebuild_mdarray, (self.to_numpy(),)


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


def _add_protocols(cls):
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


__all__ = [
    'Intel64Device', 'mdarray', 'native', 'is_ideep_available',
    'unavailable_reason', 'check_ideep_available', 'should_use_ideep',
    'is_native_array', 'inputs_all_ready', 'all_float32', 'any_native',
    'large_enough', 'to_numpy', 'from_numpy',
]
