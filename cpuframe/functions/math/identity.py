"""Chainer's module of F.identity (defined in cpuframe.functions.array.identity)."""
from cpuframe.functions.array.identity import Identity, identity  # noqa: F401
