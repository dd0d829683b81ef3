"""Checks and state handling shared by the stateful recurrent links."""
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


class CellState:
    """The ``(c, h)`` state of a stateful LSTM-like link (a mixin).

    Put before the link base, e.g. ``class L(CellState, link.Chain)``:
    the link then has ``c`` and ``h`` (Variables, or None for zeros),
    ``reset_state``, ``set_state(c, h)``, and the state moves with the
    link between devices.  ``set_state`` checks both are ``(B,
    state_size)`` of one shape; the error names ``<class>.set_state``.
    """

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        for state in (self.c, self.h):
            if state is not None:
                visitor.visit_variable(state)

    def reset_state(self):
        """Forget the state: the next step starts from zeros."""
        self.c = self.h = None

    def set_state(self, c, h):
        """Start the next step from the cell state ``c`` and output ``h``."""
        self.c, self.h = self._checked_state(
            type(self).__name__ + '.set_state', c, h)

    def _checked_state(self, method, c, h):
        """``c`` and ``h`` as ``(B, state_size)`` Variables, or an error."""
        c = as_state(method, 'c', c, self.state_size)
        h = as_state(method, 'h', h, self.state_size)
        if c.shape != h.shape:
            raise ValueError('{}: expected c and h of the same shape, got {} '
                             'and {}'.format(method, c.shape, h.shape))
        return c, h


class HiddenState:
    """The ``h`` state of a stateful GRU-like link (a mixin).

    Put before the link base, e.g. ``class L(HiddenState, Base)``: the link
    then has ``h`` (a Variable, or None for zeros), ``reset_state``,
    ``set_state(h)`` (checked to be ``(B, state_size)``; the error names
    ``<class>.set_state``), and the state moves with the link between
    devices.
    """

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def reset_state(self):
        """Forget the state: the next step starts from zeros."""
        self.h = None

    def set_state(self, h):
        """Start the next step from ``h``, a ``(B, out_size)`` Variable."""
        h = as_state('{}.set_state'.format(type(self).__name__), 'h', h,
                     self.state_size)
        h.to_device(self.device)
        self.h = h
