"""Base classes of serializers (saving) and deserializers (loading).

A link's ``serialize(serializer)`` calls ``serializer(name, value)`` for each
parameter and persistent and ``serializer[child_name]`` for each child, so
one method both saves and loads.
"""


class AbstractSerializer:
    """Maps hierarchical keys to values; ``s['child']`` descends one level."""

    def __getitem__(self, key):
        raise NotImplementedError

    def __call__(self, key, value):
        raise NotImplementedError


class Serializer(AbstractSerializer):
    """Records values (``__call__`` returns ``value`` unchanged)."""

    def save(self, obj):
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Reads values into the given arrays, or returns new ones."""

    def load(self, obj):
        obj.serialize(self)
