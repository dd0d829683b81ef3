"""Array functions: shapes, indexing, joining and splitting.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.array.<module>`` is always the module.
"""
