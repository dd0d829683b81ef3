"""``create_multi_node_iterator``: the master rank reads, every rank gets
the same batches."""
import numpy

from cpuframe.dataset import iterator as iterator_module

# Control messages the master broadcasts before each batch.
_BATCH, _STOP, _ERROR = 'batch', 'stop', 'error'


def _build_ctrl_msg(stop, is_valid_data_type, is_paired_dataset,
                    is_new_epoch, current_position):
    """ChainerMN's control message of its multi-node iterator: a float32
    array ``[stop, is_valid_data_type, is_paired_dataset, is_new_epoch,
    current_position]``. (cpuframe.mn's iterator sends its batch and
    position as one pickled message instead; the helpers stay for code
    that speaks ChainerMN's format.)"""
    return numpy.array([int(stop), int(is_valid_data_type),
                        int(is_paired_dataset), int(is_new_epoch),
                        int(current_position)], numpy.float32)


def _parse_ctrl_msg(msg):
    """``(stop, is_valid_data_type, is_paired_dataset, is_new_epoch,
    current_position)`` from a message of :func:`_build_ctrl_msg`."""
    return (bool(msg[0]), bool(msg[1]), bool(msg[2]), bool(msg[3]),
            int(msg[4]))


def _state_of(it):
    previous = getattr(it, 'previous_epoch_detail', None)
    return {
        'epoch': int(getattr(it, 'epoch', 0)),
        'current_position': int(getattr(it, 'current_position', 0)),
        'is_new_epoch': bool(getattr(it, 'is_new_epoch', False)),
        'epoch_detail': float(getattr(it, 'epoch_detail', 0.0)),
        'previous_epoch_detail': None if previous is None else
        float(previous),
    }


class _MultiNodeIteratorMaster(iterator_module.Iterator):
    """The master's side: reads ``actual_iterator`` and broadcasts what it
    reads (each batch, or the end of the iteration) with the iterator's
    position."""

    def __init__(self, actual_iterator, communicator, rank_master):
        object.__setattr__(self, 'actual_iterator', actual_iterator)
        object.__setattr__(self, 'communicator', communicator)
        object.__setattr__(self, 'rank_master', rank_master)
        try:
            dataset_size = len(actual_iterator.dataset)
        except (AttributeError, TypeError):
            dataset_size = None
        communicator.bcast_obj(dataset_size, root=rank_master)

    def __next__(self):
        try:
            batch = next(self.actual_iterator)
            kind = _BATCH
        except StopIteration:
            batch, kind = None, _STOP
        except Exception as e:
            # The slaves learn of the failure instead of waiting forever.
            self.communicator.bcast_obj(
                (_ERROR, '{}: {}'.format(type(e).__name__, e), None),
                root=self.rank_master)
            raise
        self.communicator.bcast_obj(
            (kind, batch, _state_of(self.actual_iterator)),
            root=self.rank_master)
        if kind == _STOP:
            raise StopIteration
        return batch

    next = __next__

    def __getattr__(self, name):
        if name == 'actual_iterator':   # not set yet (copy, unpickling)
            raise AttributeError(name)
        return getattr(self.actual_iterator, name)

    def __setattr__(self, name, value):
        setattr(self.actual_iterator, name, value)

    @property
    def epoch(self):
        return self.actual_iterator.epoch

    @property
    def current_position(self):
        return self.actual_iterator.current_position

    @property
    def epoch_detail(self):
        return self.actual_iterator.epoch_detail

    @property
    def previous_epoch_detail(self):
        return getattr(self.actual_iterator, 'previous_epoch_detail', None)

    @property
    def is_new_epoch(self):
        return self.actual_iterator.is_new_epoch

    def reset(self):
        self.actual_iterator.reset()

    def finalize(self):
        finalize = getattr(self.actual_iterator, 'finalize', None)
        if finalize is not None:
            finalize()

    def serialize(self, serializer):
        self.actual_iterator.serialize(serializer)


class _MultiNodeIteratorSlave(iterator_module.Iterator):
    """A slave's side: receives the master's batches and position."""

    def __init__(self, communicator, rank_master):
        self.communicator = communicator
        self.rank_master = rank_master
        self.dataset_size = communicator.bcast_obj(None, root=rank_master)
        self.reset()

    def reset(self):
        # The master resets its own iterator (the evaluator resets the
        # iterator on every rank); the next batch brings its position.
        self.epoch = 0
        self.current_position = 0
        self.is_new_epoch = False
        self.epoch_detail = 0.0
        self.previous_epoch_detail = None

    def __next__(self):
        kind, batch, state = self.communicator.bcast_obj(
            None, root=self.rank_master)
        if kind == _ERROR:
            raise RuntimeError(
                'multi-node iterator: the iterator on master rank {} '
                'failed: {}'.format(self.rank_master, batch))
        for key, value in state.items():
            setattr(self, key, value)
        if kind == _STOP:
            raise StopIteration
        return batch

    next = __next__

    def serialize(self, serializer):
        self.epoch = serializer('epoch', self.epoch)
        self.current_position = serializer('current_position',
                                           self.current_position)
        self.is_new_epoch = serializer('is_new_epoch', self.is_new_epoch)
        self.epoch_detail = float(serializer('epoch_detail',
                                             float(self.epoch_detail)))
        previous = -1.0 if self.previous_epoch_detail is None else \
            self.previous_epoch_detail
        previous = float(serializer('previous_epoch_detail', previous))
        self.previous_epoch_detail = None if previous < 0 else previous


def create_multi_node_iterator(actual_iterator, communicator, rank_master=0):
    """An iterator giving every rank the batches ``rank_master`` reads.

    On ``rank_master`` the batches come from ``actual_iterator`` (any
    cpuframe/Chainer iterator, e.g. ``SerialIterator(dataset, 32,
    shuffle=True)``) and are broadcast; the other ranks receive them (their
    ``actual_iterator`` is not read).  For model-parallel networks whose
    stages on different ranks must see the same examples (an encoder's
    input and the decoder's targets).  A batch is broadcast as a pickled
    object, so any example type keeps its dtype (ChainerMN 7 sends float32
    arrays and int32 labels only).

    ``epoch``, ``epoch_detail``, ``current_position`` and ``is_new_epoch``
    follow the master's on every rank, so epoch triggers agree.  Create the
    iterator and call ``next`` on every rank at the same points; the end of
    a non-repeating iterator (``StopIteration``) reaches every rank.
    ``serialize`` saves each rank's own position and needs no
    communication.  For very large batches consider
    :func:`create_synchronized_iterator`, which moves no data.

    Args:
        actual_iterator: the iterator read on ``rank_master``.
        communicator: a cpuframe.mn communicator.
        rank_master (int): the rank that reads the data.
    """
    if not 0 <= rank_master < communicator.size:
        raise ValueError('create_multi_node_iterator: expected rank_master in '
                         '[0, {}), got {!r}'.format(communicator.size,
                                                    rank_master))
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator,
                                        rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)
