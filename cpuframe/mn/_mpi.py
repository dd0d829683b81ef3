"""mpi4py, imported on first use, with an error that says how to get it."""
import threading

_lock = threading.Lock()
_mpi = None


def get():
    """The ``mpi4py.MPI`` module (initializing MPI), or a clear ImportError."""
    global _mpi
    with _lock:
        if _mpi is None:
            try:
                from mpi4py import MPI
            except ImportError as error:
                raise ImportError(
                    "cpuframe.mn needs mpi4py and an MPI library: pip install "
                    "'cpuframe[mpi]' (mpi4py with MPICH from PyPI wheels; "
                    'no system MPI needed); importing mpi4py failed: '
                    '{}'.format(error)) from error
            _mpi = MPI
    return _mpi


def available():
    """True when mpi4py imports (without initializing anything else)."""
    try:
        get()
    except ImportError:
        return False
    return True
