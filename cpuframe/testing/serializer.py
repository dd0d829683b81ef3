"""Round trips through the serializers (``chainer.testing.serializer``)."""
import os
import shutil
import tempfile


def save_and_load(src, dst, filename, saver, loader):
    """Save ``src`` with ``saver(path, src)`` and load the file into ``dst``
    with ``loader(path, dst)``, in a temporary directory removed afterwards.
    """
    tempdir = tempfile.mkdtemp(prefix='cpuframe-test-')
    try:
        path = os.path.join(tempdir, filename)
        saver(path, src)
        loader(path, dst)
    finally:
        shutil.rmtree(tempdir, ignore_errors=True)


def save_and_load_npz(src, dst):
    """``save_and_load`` through ``serializers.save_npz``/``load_npz``."""
    from cpuframe import serializers
    save_and_load(src, dst, 'tmp.npz',
                  serializers.save_npz, serializers.load_npz)


def save_and_load_hdf5(src, dst):
    """``save_and_load`` through ``serializers.save_hdf5``/``load_hdf5``.

    Raises ``RuntimeError`` when h5py is not installed.
    """
    try:
        import h5py  # noqa: F401
    except ImportError as e:
        raise RuntimeError(
            'save_and_load_hdf5: h5py is not installed ({}); install it with '
            '`pip install h5py`'.format(e)) from e
    from cpuframe import serializers
    save_and_load(src, dst, 'tmp.h5',
                  serializers.save_hdf5, serializers.load_hdf5)
