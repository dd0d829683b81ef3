"""A link that holds a single parameter."""
from cpuframe import backend, link, variable
from cpuframe.functions.array.identity import identity


class Parameter(link.Link):
    """A link holding one parameter ``W`` initialized with ``array``.

    Calling the link returns ``W``'s value as a new Variable connected to
    ``W`` (as Chainer does, through identity), so gradients reach ``W``.

    Args:
        array: the initial value (an array).
    """

    def __init__(self, array):
        super().__init__()
        if not backend.is_array(array):
            raise TypeError('Parameter: expected an array, got {}'.format(
                type(array).__name__))
        with self.init_scope():
            self.W = variable.Parameter(array)

    def forward(self, volatile='off'):
        """Return ``W`` (through identity); ``volatile`` is accepted for
        Chainer compatibility and ignored."""
        return identity(self.W)
