"""Converters: turn a minibatch (a list of examples) into arrays on a device.

``concat_examples`` is the default converter of updaters and evaluators.
A converter is any callable ``converter(batch, device)``; the
``converter()`` decorator makes a function into a ``Converter`` that is
always given a ``Device`` object, whatever specifier its caller passed.
"""
import sys

import numpy

from cpuframe import backend
from cpuframe.backends import cuda

__all__ = ['Converter', 'converter', 'concat_examples', 'to_device',
           'concat_examples_func', 'ConcatWithAsyncTransfer', 'Conveyor']


class Converter:
    """Base class of converters: ``converter(batch, device)`` returns the
    converted batch, sent to ``device`` (a ``Device``, or None to leave
    arrays where they are)."""

    def __call__(self, batch, device):
        raise NotImplementedError(
            '{}: a Converter subclass must implement __call__'.format(
                type(self).__name__))


class _FunctionConverter(Converter):
    """Wraps a function; the device argument reaches it as a ``Device``."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError(
                'converter: expected a callable to decorate, got {}'.format(
                    type(func).__name__))
        self.base_callable = func
        self.__name__ = getattr(func, '__name__', type(func).__name__)
        self.__qualname__ = getattr(func, '__qualname__', self.__name__)
        self.__doc__ = getattr(func, '__doc__', None)
        self.__module__ = getattr(func, '__module__', None)
        self.__wrapped__ = func

    def __call__(self, *args, **kwargs):
        if len(args) >= 2:
            args = (args[0], _get_device(args[1])) + tuple(args[2:])
        elif 'device' in kwargs:
            kwargs['device'] = _get_device(kwargs['device'])
        return self.base_callable(*args, **kwargs)

    def __repr__(self):
        return '<converter {}>'.format(self.__qualname__)

    def __reduce__(self):
        # A decorated module-level function is pickled by its name (its
        # module binds the converter there, not the function); others wrap
        # the function again on loading.
        module = sys.modules.get(self.__module__)
        found = module
        for part in self.__qualname__.split('.'):
            found = getattr(found, part, None)
        if found is self:
            return self.__qualname__
        return type(self), (self.base_callable,)


def converter():
    """Decorator making a function ``f(batch, device)`` a ``Converter``.

    The decorated function always receives a ``Device`` (or None) as
    ``device``, even when called with ``-1``, ``'@numpy'`` or a GPU id.

    >>> @converter()
    ... def to_float(batch, device):
    ...     return device.send(numpy.asarray(batch, numpy.float32))
    >>> to_float([1, 2], -1)
    array([1., 2.], dtype=float32)
    """
    return _FunctionConverter


def _get_device(device_spec):
    if device_spec is None:
        return None
    return backend.get_device(device_spec)


def _call_converter(converter, batch, device):
    """Call ``converter`` with ``device`` (a device specifier or None).

    A ``Converter`` receives a ``Device``; a plain function (a converter
    written before Chainer v7) receives ``None``, ``-1`` for a CPU device
    or the GPU id, as such functions expect.
    """
    device = _get_device(device)
    if isinstance(converter, Converter):
        return converter(batch, device)
    if device is None:
        return converter(batch, None)
    if isinstance(device, cuda.GpuDevice):
        return converter(batch, device.device.id)
    return converter(batch, -1)


def to_device(device, x):
    """Send ``x`` (an array, or a tuple/list/dict of them) to ``device``.

    ``device`` is any device specifier (``-1``, ``'@numpy'``,
    ``'@intel64'``, ``'@cupy:0'``, a GPU id, a ``Device``); ``None``
    returns ``x`` unchanged.
    """
    device = _get_device(device)
    if device is None:
        return x
    return device.send(x)


def _concat_arrays(arrays, padding, where):
    if not backend.is_array(arrays[0]):
        # Python scalars, lists or NumPy scalars become NumPy arrays.
        if padding is not None:
            arrays = [numpy.asarray(a) for a in arrays]
        else:
            try:
                return numpy.asarray(arrays)
            except ValueError as e:
                raise ValueError(
                    'concat_examples: cannot stack the {} of the batch into '
                    'one array ({}); pass padding= for examples of different '
                    'lengths'.format(where, e)) from e
    if padding is not None:
        return _concat_arrays_with_padding(arrays, padding, where)
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            raise ValueError(
                'concat_examples: the {} of the batch have different shapes '
                '({} and {}); pass padding= to pad them to a common '
                'shape'.format(where, tuple(shape), tuple(a.shape)))
    if cuda.is_cupy_array(arrays[0]):
        with cuda.get_device_from_array(arrays[0]):
            return cuda.cupy.stack(arrays)
    return numpy.stack([numpy.asarray(a) for a in arrays])


def _concat_arrays_with_padding(arrays, padding, where):
    ndim = arrays[0].ndim
    shape = list(arrays[0].shape)
    for a in arrays[1:]:
        if a.ndim != ndim:
            raise ValueError(
                'concat_examples: padding needs the {} of the batch to have '
                'the same number of dimensions, got shapes {} and {}'.format(
                    where, tuple(arrays[0].shape), tuple(a.shape)))
        shape = [max(s, t) for s, t in zip(shape, a.shape)]
    shape = [len(arrays)] + shape
    dtype = arrays[0].dtype
    if cuda.is_cupy_array(arrays[0]):
        with cuda.get_device_from_array(arrays[0]):
            result = cuda.cupy.full(shape, padding, dtype=dtype)
            for i, a in enumerate(arrays):
                result[(i,) + tuple(slice(0, s) for s in a.shape)] = a
        return result
    result = numpy.full(shape, padding, dtype=dtype)
    for i, a in enumerate(arrays):
        a = numpy.asarray(a)
        result[(i,) + tuple(slice(0, s) for s in a.shape)] = a
    return result


@converter()
def concat_examples(batch, device=None, padding=None):
    """Concatenate a list of examples into arrays with a batch axis.

    Examples that are tuples give a tuple of arrays (the ``i``-th array
    stacks the ``i``-th element of every example); examples that are dicts
    give a dict of arrays with the same keys; examples that are arrays or
    scalars give one array.  Each array gets a new first axis of length
    ``len(batch)``.

    Elements of different shapes are an error unless ``padding`` is given:
    then each array has, along every axis, the largest size in the batch,
    and the cells no example fills hold ``padding``.  ``padding`` may be a
    tuple (for tuple examples) or a dict (for dict examples) giving one
    value per element.

    Args:
        batch (list): The examples, typically a minibatch from an iterator.
        device: Where to send the arrays (any device specifier); ``None``
            leaves them on the device they are on.
        padding: Scalar (or tuple/dict of scalars) filling the cells outside
            the examples; ``None`` requires equal shapes.

    Returns:
        An array, a tuple of arrays or a dict of arrays.

    >>> concat_examples([(numpy.array([1, 2]), 0), (numpy.array([3]), 1)],
    ...                 padding=-1)
    (array([[ 1,  2],
           [ 3, -1]]), array([0, 1]))
    """
    if len(batch) == 0:
        raise ValueError('concat_examples: batch is empty')
    first = batch[0]
    if isinstance(first, tuple):
        n = len(first)
        if not isinstance(padding, tuple):
            padding = (padding,) * n
        elif len(padding) != n:
            raise ValueError(
                'concat_examples: padding has {} values but each example has '
                '{} elements'.format(len(padding), n))
        for j, example in enumerate(batch):
            if not isinstance(example, tuple) or len(example) != n:
                raise ValueError(
                    'concat_examples: example {} is not a tuple of {} '
                    'elements like the first one, got {!r}'.format(
                        j, n, example))
        return tuple(
            to_device(device, _concat_arrays(
                [example[i] for example in batch], padding[i],
                'element {}'.format(i)))
            for i in range(n))
    if isinstance(first, dict):
        if not isinstance(padding, dict):
            padding = {key: padding for key in first}
        result = {}
        for key in first:
            try:
                values = [example[key] for example in batch]
            except (KeyError, TypeError) as e:
                raise ValueError(
                    'concat_examples: every example needs the key {!r} of '
                    'the first one'.format(key)) from e
            result[key] = to_device(device, _concat_arrays(
                values, padding.get(key), 'values of {!r}'.format(key)))
        return result
    return to_device(device, _concat_arrays(list(batch), padding, 'examples'))


# The plain function behind the ``concat_examples`` converter (Chainer's
# name): ``device`` may be any device specifier.
concat_examples_func = concat_examples.base_callable


class ConcatWithAsyncTransfer:
    """Chainer's converter that overlaps the transfer of the next batch to a
    GPU with computation.

    cpuframe concatenates like :func:`concat_examples` and transfers at
    once (there is no asynchronous copy on the CPU); the interface is kept,
    including the rule that every call must use the device of the first.

    Args:
        stream, compute_stream: CUDA streams (accepted, unused).
    """

    def __init__(self, stream=None, compute_stream=None):
        self._stream = stream
        self.compute_stream = compute_stream
        self._device = None
        self._called = False

    def __call__(self, batch, device=None, padding=None):
        if not batch:
            raise ValueError('batch is empty')
        if not self._called:
            self._device = device
            self._called = True
        if device is not self._device and device != self._device:
            raise ValueError('device is different')
        return concat_examples_func(batch, device, padding)


class Conveyor:
    """Chainer's double-buffered transfer of arrays to ``device``:
    ``put(array)`` starts a transfer and ``get()`` returns its result, in
    order.  cpuframe transfers synchronously in ``put``.

    Args:
        device: device specifier (None leaves arrays where they are).
        stream: CUDA stream (accepted, unused).
    """

    def __init__(self, device=None, stream=None):
        self._device = device
        self._stream = stream
        self._ret_array = []

    def put(self, array):
        """Send ``array`` to the device (the result is queued)."""
        self._ret_array.append(to_device(self._device, array))

    def get(self, sync=True):
        """The oldest transferred array."""
        return self._ret_array.pop(0)
