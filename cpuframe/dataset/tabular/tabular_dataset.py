"""The base class of tabular datasets (Chainer's
``chainer.dataset.TabularDataset``)."""
from cpuframe.dataset import dataset_mixin


class TabularDataset(dataset_mixin.DatasetMixin):
    """A dataset whose examples all have the same columns (named by
    :attr:`keys`).

    An example is a tuple, a dict (key -> value) or, for one column, the
    bare value, as :attr:`mode` says (``tuple``, ``dict`` or ``None``).
    Subclasses implement ``__len__``, :attr:`keys`, :attr:`mode` and
    :meth:`get_examples`; everything else (slicing, concatenation, joins,
    transforms, conversion) is built on those.
    """

    def __len__(self):
        raise NotImplementedError

    @property
    def keys(self):
        """The names of the columns (a tuple of str)."""
        raise NotImplementedError

    @property
    def mode(self):
        """``tuple``, ``dict`` or ``None``: the form of an example."""
        raise NotImplementedError

    def get_examples(self, indices, key_indices):
        """Columns of some rows: a tuple with one list/array per requested
        column.

        Args:
            indices (list of ints, slice or None): the rows (None: all).
            key_indices (tuple of ints or None): the columns (None: all).
        """
        raise NotImplementedError

    @property
    def slice(self):
        """``dataset.slice[rows]`` or ``dataset.slice[rows, keys]``: a view
        of some rows (a slice, a list of ints or a list of bools) and
        columns (a tuple of names/indices, or one name/index for a view of
        mode None)."""
        from cpuframe.dataset.tabular import _views
        return _views.SliceHelper(self)

    def fetch(self):
        """All the data, column by column: a tuple (mode ``tuple``), a dict
        (mode ``dict``) or one list/array (mode None)."""
        columns = self.get_examples(None, None)
        if self.mode is tuple:
            return columns
        if self.mode is dict:
            return dict(zip(self.keys, columns))
        return columns[0]

    def convert(self, data):
        """Make fetched data ready for a model: by default each column
        becomes an array (see :meth:`with_converter`)."""
        if isinstance(data, tuple):
            return tuple(_as_array(d) for d in data)
        if isinstance(data, dict):
            return {k: _as_array(v) for k, v in data.items()}
        return _as_array(data)

    def astuple(self):
        """A view of mode ``tuple``."""
        from cpuframe.dataset.tabular import _views
        return _views.AsMode(self, tuple)

    def asdict(self):
        """A view of mode ``dict``."""
        from cpuframe.dataset.tabular import _views
        return _views.AsMode(self, dict)

    def concat(self, *datasets):
        """The rows of this dataset followed by those of ``datasets`` (all
        with the same keys)."""
        from cpuframe.dataset.tabular import _views
        return _views.Concat(self, *datasets)

    def join(self, *datasets):
        """The columns of this dataset followed by those of ``datasets``
        (all of the same length, with distinct keys)."""
        from cpuframe.dataset.tabular import _views
        return _views.Join(self, *datasets)

    def transform(self, keys, transform):
        """A dataset of ``transform(example)`` (called with the columns as
        positional arguments, or as keywords for mode ``dict``), whose
        columns are ``keys``; its mode follows what ``transform``
        returns."""
        from cpuframe.dataset.tabular import _views
        return _views.Transform(self, keys, transform, batch=False)

    def transform_batch(self, keys, transform_batch):
        """As :meth:`transform`, but ``transform_batch`` receives whole
        columns of the requested rows and returns whole columns."""
        from cpuframe.dataset.tabular import _views
        return _views.Transform(self, keys, transform_batch, batch=True)

    def with_converter(self, converter):
        """A view whose :meth:`convert` calls ``converter`` with the
        fetched columns (positionally, or as keywords for a dict)."""
        from cpuframe.dataset.tabular import _views
        return _views.WithConverter(self, converter)

    def get_example(self, i):
        row = tuple(col[0] for col in self.get_examples([i], None))
        if self.mode is tuple:
            return row
        if self.mode is dict:
            return dict(zip(self.keys, row))
        return row[0]

    def __iter__(self):
        return (self.get_example(i) for i in range(len(self)))


def _as_array(data):
    from cpuframe import backend
    if backend.is_array(data):
        return data
    device = backend.get_device_from_array(data[0])
    return device.xp.asarray(data)
