"""``scatter_dataset`` and ``scatter_index``: split a dataset over ranks."""
import operator
import pickle
import warnings

import numpy

from cpuframe.datasets.sub_dataset import SubDataset

_INT_MAX = 2147483647


class DataSizeError(RuntimeError):
    """A dataset (or sample count) that cannot be scattered."""


def _communicator(comm, caller):
    """``comm`` as a cpuframe.mn communicator (an mpi4py one is wrapped)."""
    from cpuframe.mn.communicators.communicator_base import CommunicatorBase
    if isinstance(comm, CommunicatorBase):
        return comm
    if hasattr(comm, 'Get_rank') and hasattr(comm, 'Bcast'):
        from cpuframe.mn.communicators.mpi_communicator import MpiCommunicator
        return MpiCommunicator(comm)
    raise TypeError('{}: expected a cpuframe.mn (ChainerMN) communicator or '
                    'an mpi4py communicator, got {}'.format(
                        caller, type(comm).__name__))


def _check_root(caller, root, size):
    try:
        root = operator.index(root)
    except TypeError:
        raise TypeError('{}: expected root as an int, got {}'.format(
            caller, type(root).__name__)) from None
    if not 0 <= root < size:
        raise ValueError('{}: expected root in [0, {}), got {}'.format(
            caller, size, root))
    return root


def _bcast_pickled(comm, obj, root, max_buf_len):
    """``root``'s ``obj`` on every rank, sent as pickled bytes in pieces of
    at most ``max_buf_len`` bytes (so objects over MPI's 2 GiB count limit
    travel too)."""
    if comm.rank == root:
        try:
            payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
            error = None
        except Exception as e:  # noqa: BLE001 - reported on every rank
            payload, error = b'', '{}: {}'.format(type(e).__name__, e)
        header = (len(payload), error)
    else:
        payload, header = None, None
    n_bytes, error = comm.bcast_obj(header, root=root)
    if error is not None:
        raise DataSizeError('scatter_dataset: the dataset on root rank {} '
                            'cannot be pickled to be sent: {}'.format(
                                root, error))
    if comm.rank == root:
        buf = numpy.frombuffer(payload, numpy.uint8)
    else:
        buf = numpy.empty(n_bytes, numpy.uint8)
    pieces = []
    for begin in range(0, n_bytes, max_buf_len):
        piece = buf[begin:begin + max_buf_len]
        got = comm.bcast(piece, root=root)
        if comm.rank != root:
            pieces.append(got)
    if comm.rank == root:
        return obj
    data = numpy.concatenate(pieces) if pieces else numpy.empty(0, numpy.uint8)
    return pickle.loads(data.tobytes())


def scatter_dataset(dataset, comm, root=0, shuffle=False, seed=None,
                    max_buf_len=256 * 1024 * 1024, *,
                    force_equal_length=True):
    """Split ``root``'s dataset into nearly equal parts, one per rank.

    The dataset given on rank ``root`` is sent to every rank (the argument
    on the other ranks is ignored; ``None`` is fine there) and each rank
    gets a :class:`~cpuframe.datasets.SubDataset` of its part.  Call it on
    every rank at the same point.

    Args:
        dataset: a dataset (``list``, NumPy array, ``TupleDataset`` ...);
            it must be picklable to reach the other ranks.
        comm: a cpuframe.mn (ChainerMN) communicator, or an mpi4py one.
        root (int): the rank whose dataset is scattered.
        shuffle (bool): shuffle the examples (on ``root``, with
            ``numpy.random.RandomState(seed)``) before splitting.
        seed (int): the seed of that permutation; with a fixed seed every
            example always lands on the same rank.  ``None``: a new
            permutation each time.
        max_buf_len (int): the largest piece, in bytes, the pickled dataset
            is broadcast in (at most 2147483647).
        force_equal_length (bool): ``True`` (default): every rank gets
            ``ceil(n / size)`` examples; parts may overlap so that they are
            equal.  Training loops (multi-node evaluators, updaters) need
            this, since every rank must run the same number of iterations.
            ``False``: parts differ by at most one example and do not
            overlap (for an exact evaluation of a test set).

    A dataset with fewer examples than ranks is split as Chainer does: with
    ``force_equal_length`` every rank gets one example (some the same one);
    without it, ``n`` ranks get one example and the others an empty
    dataset.  An empty dataset gives every rank an empty dataset.

    Returns:
        SubDataset: this rank's part.
    """
    comm = _communicator(comm, 'scatter_dataset')
    root = _check_root('scatter_dataset', root, comm.size)
    if not isinstance(max_buf_len, (int, numpy.integer)) or \
            not 0 < max_buf_len <= _INT_MAX:
        raise ValueError('scatter_dataset: expected max_buf_len in [1, {}], '
                         'got {!r}'.format(_INT_MAX, max_buf_len))
    order = None
    if comm.rank == root:
        problem = None
        if dataset is None:
            problem = 'the dataset on root rank {} is None'.format(root)
        else:
            try:
                n = len(dataset)
            except TypeError:
                problem = ('the dataset on root rank {} has no len() ({})'
                           .format(root, type(dataset).__name__))
        if problem is None and shuffle:
            try:
                order = numpy.random.RandomState(seed).permutation(n)
            except (TypeError, ValueError) as e:
                problem = ValueError('scatter_dataset: cannot shuffle with '
                                     'seed {!r}: {}'.format(seed, e))
    else:
        problem = None
    # Every rank learns of a bad root dataset, so none is left waiting.
    problem = comm.bcast_obj(problem, root=root)
    if isinstance(problem, Exception):
        raise problem
    if problem is not None:
        raise DataSizeError('scatter_dataset: ' + problem)
    dataset, order = _bcast_pickled(comm, (dataset, order), root,
                                    int(max_buf_len))
    begin, end = scatter_index(len(dataset), comm, root,
                               force_equal_length=force_equal_length)
    return SubDataset(dataset, begin, end, order)


def scatter_index(n_total_samples, comm, root=0, *, force_equal_length=True):
    """This rank's ``(begin, end)`` part of ``range(n_total_samples)``.

    ``root``'s ``n_total_samples`` counts (the others are ignored).  The
    split is the one of :func:`scatter_dataset`, which is about::

        begin, end = scatter_index(len(dataset), comm)
        order = None
        if shuffle:
            order = numpy.random.RandomState(seed).permutation(len(dataset))
            order = comm.bcast_obj(order)
        dataset = SubDataset(dataset, begin, end, order)

    so a large dataset that every rank can read itself need not be sent.
    ``force_equal_length`` is as in :func:`scatter_dataset`.

    Returns:
        tuple: ``(begin, end)``, ``end`` not included.
    """
    comm = _communicator(comm, 'scatter_index')
    root = _check_root('scatter_index', root, comm.size)
    if comm.rank == root:
        try:
            n = operator.index(n_total_samples)
            problem = None if n >= 0 else (
                'n_total_samples must not be negative, got {}'.format(n))
        except TypeError:
            n, problem = None, 'expected n_total_samples as an int, got {}' \
                .format(type(n_total_samples).__name__)
        if problem is not None:
            parts = [problem] * comm.size
        else:
            parts = list(_index_ranges(n, comm.size,
                                       bool(force_equal_length)))
    else:
        parts = None
    mine = _scatter_obj(comm, parts, root)
    if isinstance(mine, str):
        raise DataSizeError('scatter_index (on root rank {}): {}'.format(
            root, mine))
    return mine


def _scatter_obj(comm, parts, root):
    """``parts[rank]`` from ``root`` (point to point, as ChainerMN)."""
    if comm.rank == root:
        for rank, part in enumerate(parts):
            if rank != root:
                comm.send_obj(part, dest=rank)
        return parts[root]
    return comm.recv_obj(source=root)


def _scatter_index(n_total_samples, size, force_equal_length):
    """ChainerMN's generator of ``(rank, begin, end)`` over ``size`` ranks
    for ``n_total_samples`` examples (see ``scatter_index``)."""
    assert size > 0 and n_total_samples >= 0
    for i, (b, e) in enumerate(_index_ranges(n_total_samples, size,
                                             force_equal_length)):
        yield i, b, e


def _index_ranges(n, size, force_equal_length):
    """``(begin, end)`` for each of ``size`` ranks over ``n`` samples."""
    if force_equal_length:
        # Rank i starts at floor(n * i / size) and takes ceil(n / size):
        # the last part ends exactly at n, and neighbours overlap by at
        # most one example.
        length = -(-n // size)
        return [(n * i // size, n * i // size + length) for i in range(size)]
    base, extra = divmod(n, size)
    ranges, begin = [], 0
    for i in range(size):
        end = begin + base + (1 if i < extra else 0)
        ranges.append((begin, end))
        begin = end
    return ranges


def get_n_iterations_for_one_epoch(dataset, local_batch_size, comm):
    """Rank 0's number of iterations in one epoch of its ``dataset``
    (deprecated in ChainerMN 7: use epoch triggers)."""
    warnings.warn('get_n_iterations_for_one_epoch is deprecated. Please use '
                  'standard epoch triggers.', DeprecationWarning, stacklevel=2)
    n_iterations = None
    if comm.rank == 0:
        n_iterations = -(-len(dataset) // local_batch_size)
    return comm.bcast_obj(n_iterations, root=0)


def get_epoch_trigger(n_epochs, dataset, local_batch_size, comm):
    """``(n_epochs * iterations per epoch, 'iteration')`` (deprecated in
    ChainerMN 7: use epoch triggers)."""
    warnings.warn('get_epoch_trigger is deprecated. Please use standard '
                  'epoch triggers.', DeprecationWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        n = get_n_iterations_for_one_epoch(dataset, local_batch_size, comm)
    return n_epochs * n, 'iteration'
