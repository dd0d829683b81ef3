"""Chainer's module of F.fliplr (defined in cpuframe.functions.array.flip)."""
from cpuframe.functions.array.flip import FlipLR, fliplr  # noqa: F401
