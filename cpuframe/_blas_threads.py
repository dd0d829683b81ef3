"""NumPy's BLAS on one thread for cpuframe's small matrix products.

cpuframe's NumPy path multiplies matrices with NumPy's BLAS (OpenBLAS in
NumPy's wheels), which keeps its own worker threads; the Intel64 routes run
oneDNN on an OpenMP team. The two pools do not know of each other: after a
BLAS call its workers keep spinning for a while (OpenBLAS: ~0.1 s), and an
OpenMP team started meanwhile waits at each of its barriers for a core they
hold. A model whose large layers take oneDNN routes and whose small layers
run on NumPy's BLAS pays that at every op. Measured on a Zen 3 (2 vCPU,
``benchmarks/examples``): a DCGAN's training loop under 'auto' took 2.1-2.2 s
with BLAS's two threads for its small Linear layers and 0.9 s with one (the
NumPy path alone: 1.7-1.9 s); a VAE 0.60 -> 0.44-0.51 s.

So a product cpuframe computes on NumPy's BLAS runs on one BLAS thread where
it is small: below ``ONE_THREAD_MACS`` multiply-adds per matrix (16M, the
bound from which a Linear layer on device arrays takes oneDNN's route under
'auto', ``AUTO_MIN['linear_on_device']``, and L.LSTM's fused step a team),
and only where BLAS would have threaded it (OpenBLAS splits a
matrix-vector product from 9,216 matrix elements, a matrix product from
262,144 multiply-adds; below those nothing is changed). Its workers are
then left asleep; larger products keep every thread. The bound was chosen
on these measurements (same machine, seconds of each script's loop):
a VGG-style CIFAR convnet whose classifier layer is 4.2M per product,
'auto' 1.55-1.76 with a 4M bound and 0.91-0.94 with 16M ('@intel64' 1.29
and 0.69-0.72); Chainer's MNIST MLP, whose first layer is 7.8M and which
runs on NumPy's BLAS alone, takes 1.04-1.10x its step time with 16M. A
rule that switched only while oneDNN routes run was left out: a product's
last bits would then depend on timing (on one thread OpenBLAS may split a
product into other blocks than on several, so a small product's value can
differ in the last bits from the threaded one; it no longer depends on the
machine's core count).

The switch is process-wide (BLAS has one setting): nested and concurrent
scopes share one count under a lock and the first restores BLAS's setting
when the last leaves. A process forked while scopes are open (a
multiprocessing worker, a DataLoader-style iterator) has none of the
threads that would leave them: the child starts with no scope open and
BLAS's setting restored. Only OpenBLAS (found among the loaded libraries on
Linux) is switched; with another BLAS, on another system, or with
``CPUFRAME_BLAS_ONE_THREAD_MACS=0`` nothing is.
"""
import ctypes
import os
import sys
import threading

import numpy

#: Per-matrix multiply-adds below which a threaded product runs on one BLAS
#: thread (``CPUFRAME_BLAS_ONE_THREAD_MACS`` overrides it; 0 turns it off).
ONE_THREAD_MACS = 1 << 24

# OpenBLAS's own thresholds (interface/gemm.c, interface/gemv.c, with its
# default GEMM_MULTITHREAD_THRESHOLD of 4): below them it runs one thread.
_GEMM_THREADED_MACS = 65536 * 4
_GEMV_THREADED_ELEMENTS = 2304 * 4

# (set, get) symbol pairs of OpenBLAS builds: NumPy's wheels (scipy-openblas,
# 64-bit integers), other 64-bit builds, the plain library
_SYMBOLS = (
    ('scipy_openblas_set_num_threads64_', 'scipy_openblas_get_num_threads64_'),
    ('scipy_openblas_set_num_threads', 'scipy_openblas_get_num_threads'),
    ('openblas_set_num_threads64_', 'openblas_get_num_threads64_'),
    ('openblas_set_num_threads', 'openblas_get_num_threads'),
)

_lock = threading.Lock()
_api = None      # (set, get) once looked up; False when there is none
_depth = 0       # scopes open now, all threads
_saved = 0       # BLAS's thread count when the first of them opened


def _threshold():
    value = os.environ.get('CPUFRAME_BLAS_ONE_THREAD_MACS')
    if value is None:
        return ONE_THREAD_MACS
    try:
        return max(0, int(value))
    except ValueError:
        raise ValueError(
            'CPUFRAME_BLAS_ONE_THREAD_MACS: expected a non-negative integer, '
            'got {!r}'.format(value)) from None


_limit = _threshold()


def _find_openblas():
    """(set_num_threads, get_num_threads) of the OpenBLAS NumPy loaded, or
    False."""
    if not sys.platform.startswith('linux'):
        return False
    try:
        with open('/proc/self/maps') as f:
            lines = f.read().splitlines()
    except OSError:
        return False
    paths = sorted({line.split()[-1] for line in lines
                    if 'openblas' in line.lower() and
                    line.split()[-1].startswith('/')})
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in _SYMBOLS:
            setter = getattr(lib, set_name, None)
            getter = getattr(lib, get_name, None)
            if setter is not None and getter is not None:
                setter.argtypes = [ctypes.c_int]
                setter.restype = None
                getter.argtypes = []
                getter.restype = ctypes.c_int
                return setter, getter
    return False


def api():
    """The (set, get) pair used, or False (nothing is switched)."""
    global _api
    if _api is None:
        with _lock:
            if _api is None:
                _api = _find_openblas() if _limit else False
    return _api


def wants_one_thread(m, k, n):
    """Whether an (m x k) by (k x n) product (per matrix) runs on one BLAS
    thread: BLAS would thread it and it is below the bound."""
    macs = m * k * n
    if macs >= _limit:
        return False
    if m == 1 or n == 1:  # (NumPy hands a matrix-vector product to gemv)
        return k * (n if m == 1 else m) >= _GEMV_THREADED_ELEMENTS
    return macs >= _GEMM_THREADED_MACS


def enter():
    """Open a one-thread scope (pair it with ``leave``)."""
    global _depth, _saved
    pair = _api if _api is not None else api()
    if not pair:
        return
    with _lock:
        if _depth == 0:
            _saved = pair[1]()
            if _saved > 1:
                pair[0](1)
        _depth += 1


def leave():
    """Close a scope opened by ``enter``."""
    global _depth
    pair = _api
    if not pair:
        return
    with _lock:
        _depth -= 1
        if _depth == 0 and _saved > 1:
            pair[0](_saved)


def _before_fork():
    # (no scope is half-entered while the process is copied)
    _lock.acquire()


def _after_fork_in_parent():
    _lock.release()


def _after_fork_in_child():
    # The child has only the forking thread: the scopes the others opened
    # will never be left here.
    global _lock, _depth
    _lock = threading.Lock()
    if _depth:
        _depth = 0
        if _api and _saved > 1:
            _api[0](_saved)


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(before=_before_fork,
                        after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)


def _product(fn, a, b):
    # fn(a, b) on one BLAS thread where ``wants_one_thread`` says so for
    # each (m x k) by (k x n) matrix of the operands
    if a.ndim >= 2 and b.ndim >= 2 and wants_one_thread(
            a.shape[-2], a.shape[-1], b.shape[-1]):
        enter()
        try:
            return fn(a, b)
        finally:
            leave()
    return fn(a, b)


def matmul(a, b):
    """``numpy.matmul(a, b)`` (NumPy arrays; stacks of matrices too), on one
    BLAS thread where ``wants_one_thread`` says so for each matrix."""
    return _product(numpy.matmul, a, b)


def dot(a, b):
    """``numpy.dot(a, b)`` of two matrices, as ``matmul``."""
    return _product(numpy.dot, a, b)
