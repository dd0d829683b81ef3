"""Pooling functions: max, average, unpooling, upsampling, pyramid.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.pooling.<module>`` is always the module.
"""
