"""Chainer's module of F.transpose_sequence (defined in
cpuframe.functions.rnn.transpose_sequence)."""
from cpuframe.functions.rnn.transpose_sequence import (  # noqa: F401
    TransposeSequence,
    transpose_sequence,
)
