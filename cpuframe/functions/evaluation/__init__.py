"""Evaluation functions: accuracies and per-class classification summaries.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.evaluation.<module>`` is always the module.
"""
