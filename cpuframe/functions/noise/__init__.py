"""noise functions.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.noise.<module>`` is always the module.
"""
