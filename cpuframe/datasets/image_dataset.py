"""Datasets of image files read with Pillow (an optional dependency)."""
import bisect
import io
import itertools
import os
import threading
import zipfile

import numpy

from cpuframe.dataset import dataset_mixin


def _pillow_image(cls_name):
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            '{} needs Pillow to read image files, and it could not be '
            'imported ({}). Install it with `pip install cpuframe[image]` '
            '(or `pip install Pillow`).'.format(cls_name, e)) from e
    return Image


def _read_image(image_module, path, dtype):
    f = image_module.open(path)
    try:
        image = numpy.asarray(f, dtype=dtype)
    finally:
        if hasattr(f, 'close'):
            f.close()
    if image.ndim == 2:  # greyscale: one channel
        image = image[:, :, None]
    return image.transpose(2, 0, 1)


def _dtype(dtype):
    import cpuframe
    return cpuframe.get_dtype(dtype)


class ImageDataset(dataset_mixin.DatasetMixin):
    """Images read from files, as arrays of shape ``(channels, height,
    width)``.

    Each access reads the file again (nothing is cached).  Greyscale images
    get one channel, RGB images three; converting a mixed collection to
    one format is up to the user.  Needs Pillow.

    Args:
        paths (str or list of str): The image paths, or the path of a text
            file that lists them one per line.  Paths are relative to
            ``root``.
        root (str): Directory the paths are relative to.
        dtype: dtype of the image arrays; ``config.dtype`` by default.
    """

    def __init__(self, paths, root='.', dtype=None):
        self._image = _pillow_image('ImageDataset')
        if isinstance(paths, (str, os.PathLike)):
            with open(paths) as f:
                paths = [line.strip() for line in f if line.strip()]
        self._paths = paths
        self._root = root
        self._dtype = _dtype(dtype)

    def __len__(self):
        return len(self._paths)

    def get_example(self, i):
        path = os.path.join(self._root, self._paths[i])
        return _read_image(self._image, path, self._dtype)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['_image']  # a module does not pickle
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._image = _pillow_image(type(self).__name__)


class LabeledImageDataset(dataset_mixin.DatasetMixin):
    """Pairs of an image (read as ``ImageDataset`` does) and an int label.

    Args:
        pairs (str or list of tuples): ``(path, label)`` pairs, or the path
            of a text file with one ``path label`` pair per line, separated
            by white space (Caffe's format).  Paths are relative to ``root``.
        root (str): Directory the paths are relative to.
        dtype: dtype of the image arrays; ``config.dtype`` by default.
        label_dtype: dtype of the labels (0-d arrays).
    """

    def __init__(self, pairs, root='.', dtype=None, label_dtype=numpy.int32):
        self._image = _pillow_image('LabeledImageDataset')
        if isinstance(pairs, (str, os.PathLike)):
            pairs_path = pairs
            pairs = []
            with open(pairs_path) as f:
                for lineno, line in enumerate(f, 1):
                    fields = line.split()
                    if not fields:
                        continue
                    if len(fields) != 2:
                        raise ValueError(
                            'LabeledImageDataset: line {} of {} should be '
                            '"path label", got {!r}'.format(
                                lineno, pairs_path, line.rstrip('\n')))
                    try:
                        label = int(fields[1])
                    except ValueError:
                        raise ValueError(
                            'LabeledImageDataset: line {} of {} has a label '
                            'that is not an integer: {!r}'.format(
                                lineno, pairs_path, fields[1])) from None
                    pairs.append((fields[0], label))
        self._pairs = pairs
        self._root = root
        self._dtype = _dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self):
        return len(self._pairs)

    def get_example(self, i):
        path, label = self._pairs[i]
        image = _read_image(
            self._image, os.path.join(self._root, path), self._dtype)
        return image, numpy.array(label, dtype=self._label_dtype)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['_image']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._image = _pillow_image(type(self).__name__)


def __getattr__(name):
    # Chainer's flag: whether Pillow can be imported (checked on use, so
    # importing cpuframe does not import Pillow).
    if name == 'available':
        try:
            import PIL.Image  # noqa: F401
        except ImportError:
            return False
        return True
    raise AttributeError(
        'module {!r} has no attribute {!r}'.format(__name__, name))


class ZippedImageDataset(dataset_mixin.DatasetMixin):
    """Images read from the members of a zip file (every member that is not
    a directory), as ``ImageDataset`` reads files.

    Works better than many small files on networked file systems.  The
    dataset pickles without its open archive; each process (re)opens the
    archive on first use.  Needs Pillow.

    Args:
        zipfilename (str): the zip file.
        dtype: dtype of the image arrays; ``config.dtype`` by default.
    """

    def __init__(self, zipfilename, dtype=None):
        self._image = _pillow_image('ZippedImageDataset')
        self._zipfilename = zipfilename
        self._zf = zipfile.ZipFile(zipfilename)
        self._zf_pid = os.getpid()
        self._dtype = _dtype(dtype)
        self._paths = [n for n in self._zf.namelist() if not n.endswith('/')]
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._paths)

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_zf'] = None
        del state['_lock'], state['_image']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._image = _pillow_image(type(self).__name__)

    def get_example(self, i_or_filename):
        """The image at index ``i``, or of the member named so."""
        if isinstance(i_or_filename, (int, numpy.integer)):
            name = self._paths[i_or_filename]
        else:
            name = i_or_filename
        with self._lock:
            if self._zf is None or self._zf_pid != os.getpid():
                self._zf = zipfile.ZipFile(self._zipfilename)
                self._zf_pid = os.getpid()
            data = self._zf.read(name)
        # Pillow may seek in the file, which a zip member does not allow.
        return _read_image(self._image, io.BytesIO(data), self._dtype)


class LabeledZippedImageDataset(dataset_mixin.DatasetMixin):
    """Pairs of an image from a zip file and an int label.

    Args:
        zipfilename (str): the zip file of images.
        labelfilename (str): a text file of ``member label`` lines; the
            ``i``-th line gives the ``i``-th example.
        dtype: dtype of the image arrays; ``config.dtype`` by default.
        label_dtype: dtype of the labels (0-d arrays).
    """

    def __init__(self, zipfilename, labelfilename, dtype=None,
                 label_dtype=numpy.int32):
        pairs = []
        with open(labelfilename) as f:
            for i, line in enumerate(f):
                fields = line.strip().split()
                if len(fields) != 2:
                    raise ValueError('invalid format at line {} in file {}'
                                     .format(i, labelfilename))
                pairs.append((fields[0], int(fields[1])))
        self._pairs = pairs
        self._label_dtype = label_dtype
        self._zipfile = ZippedImageDataset(zipfilename, dtype=dtype)

    def __len__(self):
        return len(self._pairs)

    def get_example(self, i):
        name, label = self._pairs[i]
        return (self._zipfile.get_example(name),
                numpy.array(label, dtype=self._label_dtype))


class MultiZippedImageDataset(dataset_mixin.DatasetMixin):
    """The images of several zip files, one after another (as
    ``ZippedImageDataset`` reads each).

    Args:
        zipfilenames (list of str): the zip files.
        dtype: dtype of the image arrays; ``config.dtype`` by default.
    """

    def __init__(self, zipfilenames, dtype=None):
        self._zfs = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._ends = list(itertools.accumulate(len(z) for z in self._zfs))

    def __len__(self):
        return self._ends[-1] if self._ends else 0

    def get_example(self, i):
        if i < 0:
            i += len(self)
        k = bisect.bisect_right(self._ends, i)
        if k >= len(self._zfs):
            raise IndexError('MultiZippedImageDataset: index out of range')
        start = self._ends[k - 1] if k else 0
        return self._zfs[k].get_example(i - start)
