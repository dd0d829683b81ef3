"""Utility functions: recomputation in backward (forget).

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.util.<module>`` is always the module.
"""
