"""Writers of small files in the formats and cache layout the dataset
functions read (shared by the tests of this directory)."""
import gzip
import hashlib
import os
import struct


def cache_path(root, url):
    """Where ``cached_download(url)`` keeps its file."""
    directory = os.path.join(str(root), '_dl_cache')
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, hashlib.md5(url.encode()).hexdigest())


def put_in_cache(root, url, data):
    with open(cache_path(root, url), 'wb') as f:
        f.write(data)


def idx_images(images):
    """gzip'ed idx3 bytes of a (N, rows, cols) uint8 array."""
    n, rows, cols = images.shape
    raw = struct.pack('>iiii', 2051, n, rows, cols) + images.tobytes()
    return gzip.compress(raw)


def idx_labels(labels):
    raw = struct.pack('>ii', 2049, len(labels)) + labels.tobytes()
    return gzip.compress(raw)
