"""Observed values as host objects that pickle safely between ranks."""
import numpy


def to_host(value):
    """``value`` with Variables unwrapped and device arrays on the host."""
    from cpuframe import backend
    from cpuframe.variable import Variable
    if isinstance(value, Variable):
        value = value.array
    if isinstance(value, (numpy.ndarray, numpy.generic)):
        return value
    if backend.is_array(value):
        return numpy.asarray(backend.cpu_device.send(value))
    return value
