"""``create_empty_dataset``: a dataset of empty examples."""


def create_empty_dataset(dataset):
    """A dataset as long as ``dataset`` whose every example is ``()``.

    For models that take no input and give no output on this rank (a stage
    of a model-parallel network whose ``forward`` starts with
    ``chainermn.functions.recv`` and ends with ``chainermn.functions.send``):
    the iterator then yields as many batches as on the ranks that read
    ``dataset`` itself.
    """
    return [()] * len(dataset)
