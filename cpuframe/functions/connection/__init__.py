"""Connection functions: linear, (de)convolutions, embeddings, bilinear.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.connection.<module>`` is always the module.
"""
