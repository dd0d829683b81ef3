"""Order samplers: what an iterator calls for the order of the next epoch."""
import numpy

_global_random = numpy.random.random.__self__


class OrderSampler:
    """Base class of order samplers.

    ``sampler(current_order, current_position)`` returns the order (an
    array of dataset indexes) of the next epoch; its length must equal
    ``len(current_order)``.  An iterator calls it once when it is reset
    (with ``numpy.arange(len(dataset))`` and 0) and at the end of each
    epoch.
    """

    def __call__(self, current_order, current_position):
        raise NotImplementedError(
            '{}: an OrderSampler subclass must implement __call__'.format(
                type(self).__name__))


class ShuffleOrderSampler(OrderSampler):
    """A new random permutation for each epoch.

    Args:
        random_state (numpy.random.RandomState): The random number
            generator; NumPy's global one when None.  With a seeded
            ``RandomState`` the sequence of orders is reproducible, and an
            iterator's snapshot records the generator's state, so a resumed
            run draws the same orders as an uninterrupted one.
    """

    def __init__(self, random_state=None):
        if random_state is None:
            random_state = _global_random
        if not hasattr(random_state, 'permutation'):
            raise TypeError(
                'ShuffleOrderSampler: random_state must be a '
                'numpy.random.RandomState (or None), got {}'.format(
                    type(random_state).__name__))
        self._random = random_state

    def __call__(self, current_order, current_position):
        return self._random.permutation(len(current_order))

    def _own_state(self):
        # Only a private RandomState is saved and restored: rewinding
        # NumPy's global generator would replay numbers drawn elsewhere.
        return self._random is not _global_random and \
            isinstance(self._random, numpy.random.RandomState)

    def _get_state(self):
        return self._random.get_state() if self._own_state() else None

    def _set_state(self, state):
        if state is not None:
            self._random.set_state(state)

    def serialize(self, serializer):
        """Save or load the state of a private ``RandomState``."""
        if not self._own_state():
            return
        name, keys, pos, has_gauss, cached = self._random.get_state()
        keys = serializer('keys', numpy.array(keys))
        pos = serializer('pos', int(pos))
        has_gauss = serializer('has_gauss', int(has_gauss))
        cached = serializer('cached_gaussian', float(cached))
        self._random.set_state(
            (name, keys, int(pos), int(has_gauss), float(cached)))
