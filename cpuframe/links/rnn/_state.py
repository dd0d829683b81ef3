"""Checks shared by the stateful recurrent links."""
from cpuframe import backend, variable


def as_state(method, name, state, size):
    """``state`` as a ``(batch, size)`` Variable, or a clear error."""
    if backend.is_array(state):
        state = variable.Variable(state)
    if not isinstance(state, variable.Variable):
        raise TypeError('{}: expected {} as a Variable or an array, got '
                        '{}'.format(method, name, type(state).__name__))
    if state.ndim != 2 or state.shape[1] != size:
        raise ValueError('{}: expected {} of shape (batch, {}), got '
                         '{}'.format(method, name, size, tuple(state.shape)))
    return state
