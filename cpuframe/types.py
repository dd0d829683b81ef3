"""Type aliases for annotations (Chainer's ``chainer.types``).

They describe what cpuframe's functions accept; nothing checks them at run
time.
"""
import numbers
import typing as tp

if tp.TYPE_CHECKING:  # for type checkers only: no import cycle at run time
    from types import ModuleType  # noqa: F401

    import numpy  # noqa: F401

    from cpuframe import backend  # noqa: F401
    from cpuframe.backends import cuda  # noqa: F401

Shape = tp.Tuple[int, ...]
"""A concrete array shape."""

ShapeSpec = tp.Union[int, tp.Sequence[int]]
"""A shape as functions accept it: an int or a sequence of ints."""

DTypeSpec = tp.Union[tp.Any]
"""Anything ``numpy.dtype`` accepts."""

NdArray = tp.Union['numpy.ndarray', 'cuda.ndarray']
"""The array types of :func:`cpuframe.get_array_types`."""

Xp = tp.Union[tp.Any]
"""An array module (``numpy`` or ``cupy``)."""


class AbstractInitializer(tp.Protocol):
    """An :class:`~cpuframe.Initializer` or any callable filling an array
    in place (for static type checkers)."""

    dtype = None  # type: tp.Optional[DTypeSpec]

    def __call__(self, array: NdArray) -> None:
        pass


ScalarValue = tp.Union['numpy.generic', bytes, str, memoryview,
                       numbers.Number]
"""The scalars :func:`numpy.isscalar` accepts."""

InitializerSpec = tp.Union[AbstractInitializer, ScalarValue, 'numpy.ndarray']
"""What a link accepts as an initializer: an initializer, a scalar or an
array."""

DeviceSpec = tp.Union['backend.Device', 'cuda.Device', str,
                      tp.Tuple[str, int], 'ModuleType',
                      tp.Tuple['ModuleType', int]]
"""The device specifiers :func:`cpuframe.get_device` accepts."""

CudaDeviceSpec = tp.Union['cuda.Device', int, 'numpy.integer']
"""For the deprecated ``cuda.get_device``; prefer :data:`DeviceSpec`."""
