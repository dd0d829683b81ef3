"""Chainer's module of F.space2depth (defined in
cpuframe.functions.array.depth2space)."""
from cpuframe.functions.array.depth2space import space2depth  # noqa: F401
