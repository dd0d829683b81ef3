"""Initializers fill parameter arrays in place.

As in Chainer, each family lives in its own submodule (``constant``,
``normal``, ``uniform``, ``orthogonal``, ``sampling``) and the base class in
:mod:`cpuframe.initializer`; this package re-exports them all.
"""
import numpy

from cpuframe import backend, types  # noqa: F401
from cpuframe.configuration import config
from cpuframe.initializer import Initializer, get_fans  # noqa: F401
from cpuframe.initializers.constant import (  # noqa: F401
    Constant,
    Identity,
    NaN,
    One,
    Zero,
)
from cpuframe.initializers.normal import (  # noqa: F401
    GlorotNormal,
    HeNormal,
    LeCunNormal,
    Normal,
)
from cpuframe.initializers.orthogonal import Orthogonal  # noqa: F401
from cpuframe.initializers.sampling import (  # noqa: F401
    DownsamplingConvFilter,
    UpsamplingDeconvFilter,
)
from cpuframe.initializers.uniform import (  # noqa: F401
    GlorotUniform,
    HeUniform,
    LeCunUniform,
    Uniform,
)


def _get_initializer(initializer):
    if initializer is None:
        return None
    if numpy.isscalar(initializer) or backend.is_array(initializer):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError('initializer: expected an initializer, a scalar or '
                        'an array, got {}'.format(type(initializer).__name__))
    return initializer


def generate_array(initializer, shape, xp, dtype=None, device=None):
    """Allocate an array of ``shape`` and fill it with ``initializer``.

    The dtype is ``dtype``, else the initializer's, else ``config.dtype``.
    """
    dtype = dtype or getattr(initializer, 'dtype', None) or config.dtype
    if isinstance(shape, (int, numpy.integer)):
        shape = (int(shape),)
    array = numpy.empty(tuple(shape), dtype=numpy.dtype(dtype))
    initializer(array)
    if device is not None:
        return device.send(array)
    return backend.get_device(xp).send(array) if xp is not numpy else array
