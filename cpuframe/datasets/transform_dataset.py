"""``TransformDataset``: applies a function to each example on access."""
from cpuframe.dataset import dataset_mixin


class TransformDataset(dataset_mixin.DatasetMixin):
    """``transform(dataset[i])`` as the ``i``-th example.

    The transform runs each time an example is read, so random data
    augmentation differs from epoch to epoch.

    >>> ds = TransformDataset([1, 2, 3], lambda x: x * 10)
    >>> ds[0], ds[1:]
    (10, [20, 30])
    """

    def __init__(self, dataset, transform):
        if not callable(transform):
            raise TypeError(
                'TransformDataset: transform must be callable, got '
                '{}'.format(type(transform).__name__))
        self._dataset = dataset
        self._transform = transform

    def __len__(self):
        return len(self._dataset)

    def get_example(self, i):
        return self._transform(self._dataset[i])
