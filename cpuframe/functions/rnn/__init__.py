"""Recurrent functions: stacked RNN, GRU and LSTM over sequences.

The functions are in the modules of this package and in
``cpuframe.functions``; this package binds none of them, so
``cpuframe.functions.rnn.<module>`` is always the module.
"""
