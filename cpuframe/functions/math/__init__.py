"""Math functions: arithmetic, reductions, elementwise math, matmul.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.math.<module>`` is always the module.
"""
