"""Saving and loading models and optimizers (Chainer's ``serializers``)."""
from cpuframe.serializers.hdf5 import (  # noqa: F401
    HDF5Deserializer,
    HDF5Serializer,
    load_hdf5,
    save_hdf5,
)
from cpuframe.serializers.npz import (  # noqa: F401
    DictionarySerializer,
    NpzDeserializer,
    load_npz,
    save_npz,
    serialize,
)

__all__ = ['HDF5Deserializer', 'HDF5Serializer', 'load_hdf5', 'save_hdf5',
           'DictionarySerializer', 'NpzDeserializer', 'load_npz', 'save_npz',
           'serialize']
