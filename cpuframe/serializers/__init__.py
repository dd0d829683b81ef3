"""Saving and loading models and optimizers (Chainer's ``serializers``)."""
from cpuframe.serializers.npz import (  # noqa: F401
    DictionarySerializer,
    NpzDeserializer,
    load_npz,
    save_npz,
    serialize,
)

__all__ = ['DictionarySerializer', 'NpzDeserializer', 'load_npz', 'save_npz',
           'serialize']
