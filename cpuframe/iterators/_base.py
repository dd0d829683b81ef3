"""State, epoch bookkeeping and serialization shared by the iterators."""
import operator

import numpy

from cpuframe.dataset import iterator
from cpuframe.iterators._statemachine import IteratorState
from cpuframe.iterators.order_samplers import ShuffleOrderSampler


def positive_int(value, cls, name):
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError('{}: {} must be an integer, got {}'.format(
            cls, name, type(value).__name__)) from None
    if value <= 0:
        raise ValueError('{}: {} must be positive, got {}'.format(
            cls, name, value))
    return value


class StateIterator(iterator.Iterator):
    """An iterator whose position is an ``IteratorState``.

    Subclasses implement ``__next__`` on top of ``iterator_statemachine``.
    """

    # The key under which the order is saved; the other one is tried when
    # loading (Chainer's SerialIterator writes 'order', its
    # MultithreadIterator '_order').
    _order_key = 'order'

    def __init__(self, dataset, batch_size, repeat, shuffle, order_sampler):
        cls = type(self).__name__
        self.dataset = dataset
        self.batch_size = positive_int(batch_size, cls, 'batch_size')
        self._repeat = bool(repeat)
        self._shuffle = shuffle
        if shuffle is not None:
            if order_sampler is not None:
                raise ValueError(
                    '{}: `shuffle` is not None and a custom `order_sampler` '
                    'is set; set `shuffle` to None to use the custom order '
                    'sampler'.format(cls))
            if shuffle:
                order_sampler = ShuffleOrderSampler()
        elif order_sampler is None:
            order_sampler = ShuffleOrderSampler()
        if order_sampler is not None and not callable(order_sampler):
            raise TypeError('{}: order_sampler must be callable, got '
                            '{}'.format(cls, type(order_sampler).__name__))
        self.order_sampler = order_sampler

    def _initial_state(self):
        if self.order_sampler is not None:
            order = self.order_sampler(numpy.arange(len(self.dataset)), 0)
            if len(order) != len(self.dataset):
                raise ValueError(
                    '{}: the order sampler returned an order of length {} for '
                    'a dataset of length {}'.format(
                        type(self).__name__, len(order), len(self.dataset)))
        else:
            order = None
        return IteratorState(0, 0, False, order)

    def reset(self):
        """Go back to the start of the first epoch (drawing a new order)."""
        self._state = self._initial_state()
        # -1 stands for None: some serializers cannot store None.
        self._previous_epoch_detail = -1.

    @property
    def repeat(self):
        """Whether the iterator loops over the dataset indefinitely."""
        return self._repeat

    @property
    def current_position(self):
        """Position of the next example in the current epoch's order."""
        return self._state.current_position

    @property
    def epoch(self):
        """Number of completed sweeps over the dataset."""
        return self._state.epoch

    @property
    def is_new_epoch(self):
        """True if the last batch completed an epoch."""
        return self._state.is_new_epoch

    @property
    def _epoch_size(self):
        order = self._state.order
        return len(self.dataset) if order is None else len(order)

    @property
    def epoch_detail(self):
        """The epoch as a float: ``epoch + current_position / epoch size``."""
        size = self._epoch_size
        if size == 0:
            return float(self.epoch)
        return self.epoch + self.current_position / size

    @property
    def previous_epoch_detail(self):
        """``epoch_detail`` before the last batch; None before the first."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def _serialize_order(self, serializer, order):
        keys = (self._order_key,
                '_order' if self._order_key == 'order' else 'order')
        try:
            serializer(keys[0], order)
        except KeyError:
            serializer(keys[1], order)

    def serialize(self, serializer):
        """Save or load ``current_position``, ``epoch``, ``is_new_epoch``,
        ``order`` and ``previous_epoch_detail`` (Chainer's keys), and the
        state of a seeded ``ShuffleOrderSampler``."""
        current_position = serializer('current_position',
                                      self.current_position)
        epoch = serializer('epoch', self.epoch)
        is_new_epoch = serializer('is_new_epoch', self.is_new_epoch)
        order = self._state.order
        if order is not None:
            self._serialize_order(serializer, order)
        self._state = IteratorState(
            int(current_position), int(epoch), bool(is_new_epoch), order)
        try:
            self._previous_epoch_detail = float(serializer(
                'previous_epoch_detail', self._previous_epoch_detail))
        except KeyError:
            # A snapshot of an older Chainer: infer it from the position.
            previous = self.epoch + \
                (self.current_position - self.batch_size) / self._epoch_size
            self._previous_epoch_detail = \
                max(previous, 0.) if self.epoch_detail > 0 else -1.
        sampler_serialize = getattr(self.order_sampler, 'serialize', None)
        if sampler_serialize is None:
            return
        try:
            child = serializer['order_sampler']
        except (TypeError, AttributeError, NotImplementedError):
            # A serializer with no children (Chainer's iterators open none:
            # e.g. a ChainerMN test's dummy serializer): the sampler's
            # state is not saved through it.
            return
        try:
            sampler_serialize(child)
        except KeyError:
            pass  # a snapshot without it (written by Chainer)
