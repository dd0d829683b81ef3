"""Loss functions: classification, regression, metric learning and VAE.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.loss.<module>`` is always the module.
"""
