"""Chainer's module of F.fix (defined in cpuframe.functions.math.rounding)."""
from cpuframe.functions.math.rounding import fix  # noqa: F401
