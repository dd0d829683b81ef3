"""Chainer's module of F.ceil (defined in cpuframe.functions.math.rounding)."""
from cpuframe.functions.math.rounding import ceil  # noqa: F401
