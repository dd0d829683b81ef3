"""A TabularDataset that forwards to another one (a base for custom
datasets)."""
from cpuframe.dataset.tabular.tabular_dataset import TabularDataset


class DelegateDataset(TabularDataset):
    """Forwards ``len``, :attr:`keys`, :attr:`mode` and
    :meth:`get_examples` to ``dataset`` (kept as ``self.dataset``);
    subclass it to give a dataset built with :func:`from_data` a class of
    its own.
    """

    def __init__(self, dataset):
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    @property
    def keys(self):
        return self.dataset.keys

    @property
    def mode(self):
        return self.dataset.mode

    def get_examples(self, indices, key_indices):
        return self.dataset.get_examples(indices, key_indices)
