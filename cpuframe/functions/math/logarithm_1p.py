"""Chainer's module of F.log1p (defined in cpuframe.functions.math.exponential)."""
from cpuframe.functions.math.exponential import Log1p, log1p  # noqa: F401
