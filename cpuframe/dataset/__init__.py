"""Dataset abstractions, as in ``chainer.dataset``: the ``DatasetMixin`` and
``Iterator`` bases, converters (``concat_examples``, ``converter``,
``to_device``) and the download cache (``download``)."""
from cpuframe.dataset import convert, download  # noqa: F401
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

__all__ = [
    'ConcatWithAsyncTransfer', 'Converter', 'DatasetMixin', 'Iterator',
    'cache_or_load_file',
    'cached_download', 'concat_examples', 'converter', 'convert', 'download',
    'get_dataset_directory', 'get_dataset_root', 'set_dataset_root',
    'to_device',
]
