"""The device interface shared by every backend."""


class Device:
    """Where arrays live and which array module computes on them.

    Subclasses set ``xp`` and ``name`` and implement ``send_array`` and
    ``is_array_supported``.
    """

    xp = None
    name = None
    supported_array_types = ()

    def __repr__(self):
        return '<{} {}>'.format(type(self).__name__, self.name)

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, Device) and self.name == other.name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.name)

    def __enter__(self):
        self.use()
        return self

    def __exit__(self, *args):
        pass

    def create_context(self):
        """Context in which this device is current (a no-op on CPUs)."""
        return self

    def use(self):
        """Make this device the current one (a no-op on CPUs)."""

    def is_array_supported(self, array):
        return isinstance(array, self.supported_array_types)

    def send_array(self, array):
        raise NotImplementedError

    def elementwise_update(self, rule, param):
        """Run the element-wise update rule ``rule`` (its ``is_elementwise``
        is True) on ``param`` in this device's own way.

        Returns False when the device has no such way (the default): the
        rule then runs its ``update_core_cpu``/``update_core_gpu`` as usual.
        """
        return False

    def send(self, arrays):
        """Transfer an array, or a nested tuple/list/dict of arrays, here.

        ``None`` entries and scalars pass through unchanged.
        """
        if arrays is None:
            return None
        if isinstance(arrays, (list, tuple)):
            return type(arrays)(self.send(a) for a in arrays)
        if isinstance(arrays, dict):
            return {k: self.send(v) for k, v in arrays.items()}
        if not hasattr(arrays, 'shape'):
            return arrays
        return self.send_array(arrays)
