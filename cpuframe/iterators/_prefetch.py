"""The machinery of iterators that fetch batches ahead in workers.

The main thread keeps all bookkeeping: it runs the same state machine as
``SerialIterator`` (so batches, epochs and the order sampler's calls are
identical) and hands only the dataset indexes of each planned batch to the
workers.  Up to ``n_prefetch`` planned batches are in flight.
"""
import collections

from cpuframe.iterators._base import StateIterator
from cpuframe.iterators._statemachine import iterator_statemachine

# state: the iterator state after the batch; handle: the workers' job
# (None marks the end of a non-repeating iteration); sampler_state: the
# order sampler's state before the batch was planned.
_Planned = collections.namedtuple(
    '_Planned', ('state', 'handle', 'sampler_state'))


class PrefetchIterator(StateIterator):
    """Subclasses implement ``_submit(indices)`` (start fetching, return a
    handle), ``_collect(handle)`` (the list of examples), ``_cancel(handle)``
    and ``_shutdown()``."""

    _n_prefetch = 1

    def _init_prefetch(self):
        self._planned = collections.deque()

    def _sampler_get_state(self):
        get = getattr(self.order_sampler, '_get_state', None)
        return get() if get is not None else None

    def _plan(self):
        planned = self._planned
        if planned and planned[-1].handle is None:
            return  # the end of a non-repeating iteration is planned
        state = planned[-1].state if planned else self._state
        while len(planned) < self._n_prefetch:
            sampler_state = self._sampler_get_state()
            state, indices = iterator_statemachine(
                state, self.batch_size, self._repeat, self.order_sampler,
                len(self.dataset))
            if indices is None:
                planned.append(_Planned(state, None, sampler_state))
                return
            planned.append(
                _Planned(state, self._submit(indices), sampler_state))

    def _drop_plans(self):
        """Forget the planned batches and rewind the order sampler to where
        the consumed batches left it, so that planning again gives the same
        batches."""
        planned = getattr(self, '_planned', None)
        if not planned:
            return
        sampler_state = planned[0].sampler_state
        while planned:
            item = planned.popleft()
            if item.handle is not None:
                self._cancel(item.handle)
        set_state = getattr(self.order_sampler, '_set_state', None)
        if set_state is not None:
            set_state(sampler_state)

    def __next__(self):
        self._plan()
        item = self._planned.popleft()
        self._previous_epoch_detail = self.epoch_detail
        self._state = item.state
        if item.handle is None:
            raise StopIteration
        batch = self._collect(item.handle)
        self._plan()  # start fetching the next batch
        return batch

    next = __next__

    def reset(self):
        self._drop_plans()
        super().reset()

    def serialize(self, serializer):
        # Saving or loading: the plans made from the current state (and the
        # sampler draws they took) are dropped first.
        self._drop_plans()
        super().serialize(serializer)

    def finalize(self):
        """Drop the planned batches and stop the workers.  The iterator can
        still be used: workers start again on the next call."""
        self._drop_plans()
        self._shutdown()

    def __del__(self):
        try:
            if hasattr(self, '_planned'):
                self.finalize()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass
