"""Math functions: arithmetic, reductions, elementwise math, matmul."""
from cpuframe.functions.math.arctan2 import arctan2
from cpuframe.functions.math.average import average
from cpuframe.functions.math.basic_math import absolute, add, batch_matmul, matmul, neg
from cpuframe.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from cpuframe.functions.math.bias import bias, scale
from cpuframe.functions.math.clip import clip
from cpuframe.functions.math.cumprod import cumprod
from cpuframe.functions.math.cumsum import cumsum
from cpuframe.functions.math.det import batch_det, det
from cpuframe.functions.math.einsum import einsum
from cpuframe.functions.math.exponential import exp, expm1, log, log1p, log2, log10
from cpuframe.functions.math.fmod import fmod
from cpuframe.functions.math.hyperbolic import cosh, sinh
from cpuframe.functions.math.inv import batch_inv, inv
from cpuframe.functions.math.inverse_trigonometric import arccos, arcsin, arctan
from cpuframe.functions.math.linear_interpolate import linear_interpolate
from cpuframe.functions.math.logsumexp import logsumexp
from cpuframe.functions.math.maximum import maximum, minimum
from cpuframe.functions.math.minmax import argmax, argmin, max, min
from cpuframe.functions.math.prod import prod
from cpuframe.functions.math.rounding import ceil, fix, floor
from cpuframe.functions.math.sign import sign
from cpuframe.functions.math.sqrt import rsqrt, sqrt
from cpuframe.functions.math.square import square
from cpuframe.functions.math.squared_difference import squared_difference
from cpuframe.functions.math.sum import mean, sum
from cpuframe.functions.math.tensordot import tensordot
from cpuframe.functions.math.trigonometric import cos, sin, tan

__all__ = ['absolute', 'add', 'batch_matmul', 'matmul', 'neg', 'mean', 'sum',
           'clip', 'exp', 'expm1', 'log', 'log1p', 'log2', 'log10',
           'maximum', 'minimum', 'argmax', 'argmin', 'max', 'min',
           'rsqrt', 'sqrt', 'square', 'cos', 'sin', 'tan',
           'logsumexp',
           'cumsum',
           'prod',
           'ceil', 'fix', 'floor',
           'sign',
           'squared_difference',
           'average',
           'cosh', 'sinh',
           'arccos', 'arcsin', 'arctan',
           'bias', 'scale',
           'tensordot',
           'fmod',
           'linear_interpolate',
           'batch_det', 'det',
           'batch_inv', 'inv',
           'arctan2', 'cumprod', 'batch_l2_norm_squared',
           'einsum']
