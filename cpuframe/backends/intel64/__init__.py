"""The intel64 backend: oneDNN through the native module ``cpuframe._dnnl``.

Whether an op runs on oneDNN is decided in one place, the FunctionNode
machinery (``FunctionNode.choose_intel64``), from ``config.use_ideep`` and
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
   (a threshold added to ``_routing.AUTO_MIN`` with the measurement that
   set it, and the rule written as data where it is a size:
   ``intel64_profitable = intel64.size_rule('your_op', 0)``, which the
   native core reads without a Python call; otherwise a method calling
   ``intel64.auto_profitable('your_op', x)``; 'auto' asks it of device
   arrays too, through ``intel64_profitable_on_device``, which an op
   overrides when its rule for NumPy arrays counts a conversion the device
   does not pay), and
   ``forward_intel64(inputs)`` calling ``intel64.native().your_function(...)``
   and returning a tuple. Declare what backward keeps once, in the class:
   ``retained_for_backward = (input indexes, output indexes)``; the
   machinery retains them whichever route runs (neither forward method then
   calls ``retain_inputs``/``retain_outputs``).
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
3. The mixed_bf16 mode (``cpuframe/_bf16.py`` states the rule): declare in
   the class which inputs the route reads in bf16 (``bf16_inputs``: the
   machinery hands them to ``forward_intel64`` as bf16-stored Tensors;
   ``bf16_weights``: the primitive converts them itself) and which outputs
   it writes in bf16 (``bf16_outputs``). The kernel must accept bf16
   Tensors for those (or ``intel64_supports`` declines them); the NumPy
   path then rounds the same arrays, and is the reference the route is
   checked against in ``tests/test_mixed_bf16.py`` (skipped where the CPU
   has no bf16 primitives). An op that declares nothing stays float32.
4. Tests in ``tests/backends/intel64/``: parity against
   ``config.use_ideep='never'`` for forward and every gradient, on NumPy
   inputs and on the Intel64 device (``intel64.mdarray.from_numpy``), with
   NaN, +-inf and huge values.
"""

from cpuframe import _native
from cpuframe.backends.intel64 import _array_protocol
from cpuframe.backends.intel64._array_protocol import (  # noqa: F401
    from_numpy,
    is_native_array,
    to_numpy,
)
from cpuframe.backends.intel64._availability import (  # noqa: F401
    NativeBackendMissingWarning,
    check_ideep_available,
    inputs_all_ready,
    is_ideep_available,
    should_use_ideep,
    unavailable_reason,
    warn_if_native_missing,
)
from cpuframe.backends.intel64._routing import (  # noqa: F401
    AUTO_MIN,
    all_float32,
    all_within,
    any_native,
    auto_profitable,
    finite_for_bf16,
    geometry_supported,
    has_nan,
    large_enough,
    may_defer,
    owns_buffer,
    size_rule,
)

# The loaded native module and its Tensor type live here, on the package;
# the submodules reach them through it (``native()``, ``mdarray``).


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
# warn_if_native_missing has warned (or found nothing to warn about).
_missing_checked = False


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
    _array_protocol.add_protocols(mod.Tensor)
    mdarray = mod.Tensor
    _dnnl = mod
    try:    # (the native core takes mdarrays as it takes NumPy arrays)
        from cpuframe import _core
    except ImportError:
        pass
    else:
        _core.set_tensor_type(mod.Tensor, mod.plain_views)



def bf16_support():
    """What ``config.dtype = cpuframe.mixed_bf16`` runs on this machine:
    ``{'mode', 'isa', 'amx', 'native'}`` (see ``cpuframe._bf16.support``)."""
    from cpuframe import _bf16
    return _bf16.support()


def _rebuild_mdarray(array):
    # Pickles of mdarrays name this function: keep it here.
    return from_numpy(array)


from cpuframe.backends.intel64._device import Intel64Device  # noqa: E402

__all__ = [
    'Intel64Device', 'mdarray', 'native', 'is_ideep_available',
    'unavailable_reason', 'check_ideep_available', 'should_use_ideep',
    'is_native_array', 'inputs_all_ready', 'all_float32', 'any_native',
    'large_enough', 'to_numpy', 'from_numpy', 'bf16_support',
]
