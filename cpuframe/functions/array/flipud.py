"""Chainer's module of F.flipud (defined in cpuframe.functions.array.flip)."""
from cpuframe.functions.array.flip import FlipUD, flipud  # noqa: F401
