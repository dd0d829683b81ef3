"""Recurrent links: LSTM and GRU layers, stacked RNNs over sequences."""
from cpuframe.links.rnn.gru import GRU, StatefulGRU, StatelessGRU
from cpuframe.links.rnn.lstm import LSTM, StatelessLSTM
from cpuframe.links.rnn.mgu import StatefulMGU, StatelessMGU
from cpuframe.links.rnn.n_step_gru import NStepBiGRU, NStepGRU
from cpuframe.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM
from cpuframe.links.rnn.n_step_rnn import (
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepRNNReLU,
    NStepRNNTanh,
)
from cpuframe.links.rnn.peephole import StatefulPeepholeLSTM
from cpuframe.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM
from cpuframe.links.rnn.zoneoutlstm import StatefulZoneoutLSTM

__all__ = ['ChildSumTreeLSTM', 'GRU', 'LSTM', 'NStepBiGRU', 'NStepBiLSTM',
           'NStepBiRNNReLU', 'NStepBiRNNTanh', 'NStepGRU', 'NStepLSTM',
           'NStepRNNReLU', 'NStepRNNTanh', 'NaryTreeLSTM', 'StatefulGRU',
           'StatefulMGU', 'StatelessGRU', 'StatelessLSTM', 'StatelessMGU',
           'StatefulPeepholeLSTM', 'StatefulZoneoutLSTM']
