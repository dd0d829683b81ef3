"""Evaluation functions: accuracies and per-class classification summaries."""
from cpuframe.functions.evaluation.accuracy import accuracy
from cpuframe.functions.evaluation.binary_accuracy import binary_accuracy
from cpuframe.functions.evaluation.classification_summary import (
    classification_summary,
    f1_score,
    fbeta_score,
    precision,
    recall,
)
from cpuframe.functions.evaluation.r2_score import r2_score

__all__ = ['accuracy', 'binary_accuracy', 'classification_summary',
           'f1_score', 'fbeta_score', 'precision', 'recall', 'r2_score']
