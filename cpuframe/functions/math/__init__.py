"""Math functions: arithmetic, reductions, elementwise math, matmul."""
from cpuframe.functions.math.basic_math import (  # noqa: F401
    absolute, add, batch_matmul, matmul, neg)
from cpuframe.functions.math.sum import mean, sum  # noqa: F401

__all__ = ['absolute', 'add', 'batch_matmul', 'matmul', 'neg', 'mean', 'sum']
