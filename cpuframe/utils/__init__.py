"""Utilities (Chainer's ``chainer.utils``)."""
import contextlib
import shutil
import tempfile

import numpy

from cpuframe import backend
from cpuframe.utils import collections_abc  # noqa: F401
from cpuframe.utils.array import size_of_shape, sum_to  # noqa: F401
from cpuframe.utils.conv import get_conv_outsize, get_deconv_outsize  # noqa: F401
from cpuframe.utils.error import _format_array_props  # noqa: F401
from cpuframe.utils.experimental import experimental  # noqa: F401
from cpuframe.utils.meta import enable_final, final  # noqa: F401
from cpuframe.utils.nondeterministic import nondeterministic  # noqa: F401
from cpuframe.utils.sparse import CooMatrix, get_order, to_coo  # noqa: F401
from cpuframe.utils.walker_alias import WalkerAlias  # noqa: F401


def force_array(x, dtype=None):
    """Turn a NumPy scalar result back into a 0-dim array (of ``dtype``)."""
    if type(x) is numpy.ndarray:  # the common case, first
        if dtype is not None and x.dtype != dtype:
            return x.astype(dtype, copy=False)
        return x
    if numpy.isscalar(x) or isinstance(x, numpy.generic):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype, value):
    """Cast a scalar or array ``value`` to ``dtype``."""
    if numpy.isscalar(value):
        return dtype.type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


@contextlib.contextmanager
def tempdir(**kwargs):
    """A temporary directory for the ``with`` block, removed afterwards.

    Keyword arguments go to :func:`tempfile.mkdtemp`, except
    ``ignore_errors`` which goes to :func:`shutil.rmtree`.
    """
    ignore_errors = kwargs.pop('ignore_errors', False)
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=ignore_errors)


def _xp(*arrays):
    return backend.get_array_module(*arrays)


from cpuframe.utils import conv_nd, precision  # noqa: E402,F401 (bound as in Chainer)
