"""Normalization functions: batch, layer, group, local response, L2.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.normalization.<module>`` is always the module.
"""
