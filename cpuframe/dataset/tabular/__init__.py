"""Tabular datasets (Chainer's ``chainer.dataset.tabular``)."""
from cpuframe.dataset.tabular import _views  # noqa: F401
from cpuframe.dataset.tabular.delegate_dataset import DelegateDataset  # noqa: F401
from cpuframe.dataset.tabular.from_data import from_data  # noqa: F401
from cpuframe.dataset.tabular.tabular_dataset import TabularDataset  # noqa: F401
