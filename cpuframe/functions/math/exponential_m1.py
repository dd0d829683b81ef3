"""Chainer's module of F.expm1 (defined in cpuframe.functions.math.exponential)."""
from cpuframe.functions.math.exponential import Expm1, expm1  # noqa: F401
