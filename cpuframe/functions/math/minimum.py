"""Chainer's module of F.minimum (defined in cpuframe.functions.math.maximum)."""
from cpuframe.functions.math.maximum import Minimum, minimum  # noqa: F401
