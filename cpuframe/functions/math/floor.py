"""Chainer's module of F.floor (defined in cpuframe.functions.math.rounding)."""
from cpuframe.functions.math.rounding import floor  # noqa: F401
