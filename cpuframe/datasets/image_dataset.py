"""Datasets of image files read with Pillow (an optional dependency)."""
import os

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
