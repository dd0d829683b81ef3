"""The position bookkeeping shared by every iterator in this package.

One pure function maps a state and a batch size to the next state and the
dataset indexes of the batch, so that the serial, multithread and
multiprocess iterators produce the same batches and epochs.
"""
import collections

import numpy

IteratorState = collections.namedtuple(
    'IteratorState', ('current_position', 'epoch', 'is_new_epoch', 'order'))


def _indices(order, start, stop):
    if order is None:
        return numpy.arange(start, stop, dtype=numpy.intp)
    return numpy.asarray(order[start:stop])


def iterator_statemachine(state, batch_size, repeat, order_sampler,
                          dataset_len):
    """``(next_state, indices)`` of the next batch; ``indices`` is None when
    a non-repeating iterator has finished its epoch.

    A batch that reaches the end of an epoch completes the epoch (``epoch``
    grows, ``is_new_epoch`` is set, the order sampler draws the next order
    from ``(order, position)``); when ``repeat`` it is then filled up from
    the next epoch's order, possibly over several epochs if the batch is
    larger than the dataset.  Without ``repeat`` the last batch is short.
    """
    position, epoch, _, order = state
    if not repeat and epoch > 0:
        return state, None
    n = dataset_len if order is None else len(order)
    if n == 0:
        if repeat:
            raise ValueError(
                'iterator: cannot repeat over an empty dataset (epoch size '
                'must be positive)')
        return IteratorState(0, epoch + 1, True, order), None

    pieces = []
    needed = batch_size
    is_new_epoch = False
    while True:
        end = position + needed
        if end < n:
            pieces.append(_indices(order, position, end))
            position = end
            break
        pieces.append(_indices(order, position, n))
        needed = end - n
        epoch += 1
        is_new_epoch = True
        if order is not None:
            new_order = order_sampler(order, position)
            if len(new_order) != len(order):
                raise ValueError(
                    'iterator: the order sampler returned an order of length '
                    '{}, but the previous order has length {}'.format(
                        len(new_order), len(order)))
            order = new_order
        position = 0
        if not repeat or needed == 0:
            break
    indices = pieces[0] if len(pieces) == 1 else numpy.concatenate(pieces)
    return IteratorState(position, epoch, is_new_epoch, order), indices
