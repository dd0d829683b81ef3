"""Chainer's module of F.scale (defined in cpuframe.functions.math.bias)."""
from cpuframe.functions.math.bias import scale  # noqa: F401
