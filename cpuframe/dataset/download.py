"""Downloading and caching of dataset files, in Chainer's cache layout.

The dataset root is, in order: the path given to ``set_dataset_root``,
``$CPUFRAME_DATASET_ROOT``, ``$CHAINER_DATASET_ROOT``, and
``~/.chainer/dataset``, so a cache Chainer filled is found and reused.
Downloads are kept under ``<root>/_dl_cache/<md5 of the URL>``; processed
files (``pfnet/chainer/mnist/train.npz``, ...) under their dataset's
directory.  Every file appears under its final name only once complete:
it is written to a temporary name and renamed, under a file lock, so
concurrent processes and interrupted runs never see a partial file.
"""
import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
from urllib import request

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

__all__ = ['get_dataset_root', 'set_dataset_root', 'get_dataset_directory',
           'cached_download', 'cache_or_load_file']

_dataset_root = None
_DOWNLOAD_TIMEOUT = 60.0


def get_dataset_root():
    """The root directory of downloaded and cached datasets.

    The path given to ``set_dataset_root`` if any, else
    ``$CPUFRAME_DATASET_ROOT``, else ``$CHAINER_DATASET_ROOT``, else
    ``~/.chainer/dataset``.
    """
    if _dataset_root is not None:
        return _dataset_root
    for name in ('CPUFRAME_DATASET_ROOT', 'CHAINER_DATASET_ROOT'):
        value = os.environ.get(name)
        if value:
            return value
    return os.path.expanduser(os.path.join('~', '.chainer', 'dataset'))


def set_dataset_root(path):
    """Set the dataset root; it overrides the environment variables.

    ``None`` returns to the environment variables and the default.
    """
    global _dataset_root
    _dataset_root = None if path is None else os.fspath(path)


def get_dataset_directory(dataset_name, create_directory=True):
    """``<dataset root>/<dataset_name>``, created unless told otherwise.

    ``dataset_name`` may contain slashes (``'pfnet/chainer/mnist'``).
    """
    path = os.path.join(get_dataset_root(), dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


@contextlib.contextmanager
def _file_lock(path):
    """An exclusive lock between threads and processes, held on ``path``."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            while True:
                try:
                    msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
            else:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    finally:
        os.close(fd)


def _url_hash(url):
    if sys.version_info >= (3, 9):
        digest = hashlib.md5(url.encode('utf-8'), usedforsecurity=False)
    else:  # pragma: no cover
        digest = hashlib.md5(url.encode('utf-8'))
    return digest.hexdigest()


def _fetch(url, path):
    try:
        with request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT) as response, \
                open(path, 'wb') as f:
            expected = response.headers.get('Content-Length') \
                if getattr(response, 'headers', None) is not None else None
            shutil.copyfileobj(response, f, 1 << 20)
            size = f.tell()
    except OSError as e:
        raise OSError('cached_download: cannot download {}: {}'.format(
            url, e)) from e
    if expected is not None and expected.isdigit() and int(expected) != size:
        raise OSError(
            'cached_download: download of {} is truncated: expected {} '
            'bytes, got {}'.format(url, expected, size))


def cached_download(url):
    """Download ``url`` once and return the path of the cached copy.

    The file is kept at ``<dataset root>/_dl_cache/<md5 hex of url>`` (the
    place Chainer keeps it).  When that file exists, nothing is
    downloaded.  The download goes to a temporary file that is renamed into
    place only when complete, so a failed or interrupted download leaves no
    cache entry.

    Raises:
        OSError: when the cache directory cannot be created or the download
            fails (the message names the URL).
    """
    cache_root = os.path.join(get_dataset_root(), '_dl_cache')
    os.makedirs(cache_root, exist_ok=True)
    lock_path = os.path.join(cache_root, '_dl_lock')
    cache_path = os.path.join(cache_root, _url_hash(url))
    with _file_lock(lock_path):
        if os.path.exists(cache_path):
            return cache_path
    temp_dir = tempfile.mkdtemp(prefix='.tmp-', dir=cache_root)
    try:
        temp_path = os.path.join(temp_dir, 'dl')
        print('Downloading from {}...'.format(url))
        sys.stdout.flush()
        _fetch(url, temp_path)
        with _file_lock(lock_path):
            if not os.path.exists(cache_path):
                os.replace(temp_path, cache_path)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    return cache_path


def cache_or_load_file(path, creator, loader):
    """Return ``loader(path)`` if ``path`` exists, else create it.

    ``creator(temp_path)`` writes the file at a temporary path (in the same
    directory, where nothing exists yet) and returns its content; the file
    is then renamed to ``path`` under a lock, so concurrent callers and
    interrupted runs never leave a partial file at ``path``.  Returns what
    the creator or the loader returned.
    """
    path = os.fspath(path)
    if os.path.exists(path):
        return loader(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    root = get_dataset_root()
    os.makedirs(root, exist_ok=True)
    lock_path = os.path.join(root, '_create_lock')
    temp_dir = tempfile.mkdtemp(prefix='.tmp-', dir=directory)
    try:
        temp_path = os.path.join(temp_dir, os.path.basename(path))
        content = creator(temp_path)
        if not os.path.exists(temp_path):
            raise RuntimeError(
                'cache_or_load_file: the creator did not write the file it '
                'was given ({})'.format(temp_path))
        with _file_lock(lock_path):
            if not os.path.exists(path):
                os.replace(temp_path, path)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    return content
