"""Chainer's module of F.rollaxis (defined in cpuframe.functions.array.moveaxis)."""
from cpuframe.functions.array.moveaxis import Rollaxis, rollaxis  # noqa: F401
