"""Dataset abstractions, as in ``chainer.dataset``: the ``DatasetMixin`` and
``Iterator`` bases, converters (``concat_examples``, ``converter``,
``to_device``), the download cache (``download``) and tabular datasets
(``tabular``, ``TabularDataset``)."""
from cpuframe.dataset import (  # noqa: F401
    convert,
    download,
    tabular,
)
from cpuframe.dataset.convert import (  # noqa: F401
    ConcatWithAsyncTransfer,
    Converter,
    concat_examples,
    converter,
    to_device,
)
from cpuframe.dataset.dataset_mixin import DatasetMixin  # noqa: F401
from cpuframe.dataset.download import (  # noqa: F401
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)
from cpuframe.dataset.iterator import Iterator  # noqa: F401
from cpuframe.dataset.tabular.tabular_dataset import (  # noqa: F401
    TabularDataset,
)

__all__ = [
    'ConcatWithAsyncTransfer', 'Converter', 'DatasetMixin', 'Iterator',
    'TabularDataset', 'cache_or_load_file',
    'cached_download', 'concat_examples', 'converter', 'convert', 'download',
    'get_dataset_directory', 'get_dataset_root', 'set_dataset_root',
    'to_device',
]
