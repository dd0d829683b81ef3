"""Datasets, as in ``chainer.datasets``: dataset wrappers (tuples, dicts,
subsets, splits, concatenation, transforms, image files), the classic
downloadable datasets cached in Chainer's layout (MNIST, Fashion-MNIST,
CIFAR-10/100, SVHN, Penn Treebank) and ``get_digits``, a small dataset shipped
with cpuframe that needs no network."""
from cpuframe.datasets.cifar import get_cifar10, get_cifar100  # noqa: F401
from cpuframe.datasets.concatenated_dataset import (  # noqa: F401
    ConcatenatedDataset,
)
from cpuframe.datasets.dict_dataset import DictDataset  # noqa: F401
from cpuframe.datasets.digits import get_digits  # noqa: F401
from cpuframe.datasets.fashion_mnist import (  # noqa: F401
    get_fashion_mnist,
    get_fashion_mnist_labels,
)
from cpuframe.datasets.image_dataset import (  # noqa: F401
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)
from cpuframe.datasets.kuzushiji_mnist import (  # noqa: F401
    get_kuzushiji_mnist,
    get_kuzushiji_mnist_labels,
)
from cpuframe.datasets.mnist import get_mnist  # noqa: F401
from cpuframe.datasets.pickle_dataset import (  # noqa: F401
    PickleDataset,
    PickleDatasetWriter,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from cpuframe.datasets.ptb import (  # noqa: F401
    get_ptb_words,
    get_ptb_words_vocabulary,
)
from cpuframe.datasets.sub_dataset import (  # noqa: F401
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from cpuframe.datasets.svhn import get_svhn  # noqa: F401
from cpuframe.datasets.text_dataset import TextDataset  # noqa: F401
from cpuframe.datasets.transform_dataset import TransformDataset  # noqa: F401
from cpuframe.datasets.tuple_dataset import TupleDataset  # noqa: F401

__all__ = [
    'ConcatenatedDataset', 'DictDataset', 'ImageDataset',
    'LabeledImageDataset', 'LabeledZippedImageDataset',
    'MultiZippedImageDataset', 'PickleDataset', 'PickleDatasetWriter',
    'SubDataset', 'TextDataset', 'TransformDataset', 'TupleDataset',
    'ZippedImageDataset',
    'get_cifar10', 'get_cifar100', 'get_cross_validation_datasets',
    'get_cross_validation_datasets_random', 'get_digits',
    'get_fashion_mnist', 'get_fashion_mnist_labels', 'get_kuzushiji_mnist',
    'get_kuzushiji_mnist_labels', 'get_mnist',
    'get_ptb_words', 'get_ptb_words_vocabulary', 'get_svhn',
    'open_pickle_dataset',
    'open_pickle_dataset_writer', 'split_dataset',
    'split_dataset_n', 'split_dataset_n_random', 'split_dataset_random',
]
