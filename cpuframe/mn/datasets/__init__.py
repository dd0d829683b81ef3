"""Datasets for multi-node training (``chainermn.datasets``)."""
from cpuframe.mn.datasets.empty_dataset import create_empty_dataset
from cpuframe.mn.datasets.scatter import (
    DataSizeError,
    scatter_dataset,
    scatter_index,
)

__all__ = ['DataSizeError', 'create_empty_dataset', 'scatter_dataset',
           'scatter_index']
