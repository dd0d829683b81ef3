"""Recurrent functions: stacked RNN, GRU and LSTM over sequences."""
from cpuframe.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from cpuframe.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from cpuframe.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from cpuframe.functions.rnn.transpose_sequence import transpose_sequence

__all__ = ['n_step_bigru', 'n_step_gru', 'n_step_bilstm', 'n_step_lstm',
           'n_step_birnn', 'n_step_rnn', 'transpose_sequence']
