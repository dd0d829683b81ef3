"""Chainer's module of F.matmul and F.batch_matmul (defined in
cpuframe.functions.math.basic_math, which also serves the ``@`` operator)."""
from cpuframe.functions.math.basic_math import (  # noqa: F401
    MatMul,
    batch_matmul,
    matmul,
)
