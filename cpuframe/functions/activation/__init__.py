"""activation functions.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.activation.<module>`` is always the module.
"""
