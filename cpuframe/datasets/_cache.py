"""Helpers shared by the download-and-cache dataset functions."""
import numpy

from cpuframe.dataset import download


def load_npz(path):
    """The arrays of an npz file as a dict (the file is closed after)."""
    with numpy.load(path) as f:
        return {key: f[key] for key in f.files}


def download_first(urls, func):
    """``cached_download`` of the first URL in ``urls`` that works.

    Mirrors are tried in order; a URL already in the cache wins without
    any network access.  The error of the last mirror is raised when none
    works, naming every URL tried.
    """
    errors = []
    for url in urls:
        try:
            return download.cached_download(url)
        except OSError as e:
            errors.append('{}: {}'.format(url, e.__cause__ or e))
    raise OSError('{}: cannot download the dataset; tried:\n  {}'.format(
        func, '\n  '.join(errors)))


def image_dtype(dtype, func):
    import cpuframe
    dtype = cpuframe.get_dtype(dtype)
    if dtype.kind != 'f':
        raise TypeError(
            '{}: dtype must be a floating-point type (pixels are scaled), '
            'got {}'.format(func, dtype))
    return dtype


def scale_images(images, dtype, scale, max_value):
    """``images`` (integers in ``[0, max_value]``) as ``dtype`` in
    ``[0, scale]``."""
    images = images.astype(dtype)
    images *= dtype.type(scale / max_value)
    return images
