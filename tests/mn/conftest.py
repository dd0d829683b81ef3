"""Shared fixtures of the cpuframe.mn tests.

Every test here runs as one process in the normal test run (size 1) and
under ``mpiexec -n N python -m pytest tests/mn`` on every rank; tests use
collectives only in the same order on every rank.  Test modules skip
themselves when mpi4py is missing (``pytest.importorskip``).

A deadlock (a rank waiting in a collective the others never reach) must
not hang the run: each test arms ``faulthandler.dump_traceback_later``,
which prints every thread's stack and exits the process when the test
overruns ``CPUFRAME_MN_TEST_TIMEOUT`` seconds (default 120); mpiexec then
ends the other ranks.
"""
import faulthandler
import os
import pathlib
import shutil
import sys
import tempfile

import pytest

TEST_TIMEOUT = float(os.environ.get('CPUFRAME_MN_TEST_TIMEOUT', '120'))


def _real_stderr(config):
    """A file descriptor of the terminal's stderr: pytest's capture has
    redirected fd 2 to a file that a process killed by faulthandler never
    shows; pytest's faulthandler plugin keeps a duplicate of the real one."""
    try:
        from _pytest.faulthandler import fault_handler_stderr_fd_key
        return config.stash[fault_handler_stderr_fd_key]
    except (ImportError, KeyError):
        return sys.__stderr__


@pytest.fixture(autouse=True)
def _deadlock_guard(request):
    faulthandler.dump_traceback_later(TEST_TIMEOUT, exit=True,
                                      file=_real_stderr(request.config))
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope='session')
def comm():
    """The job's communicator (``COMM_WORLD``, 'naive')."""
    pytest.importorskip('mpi4py')
    import cpuframe.mn as chainermn
    return chainermn.create_communicator('naive')


@pytest.fixture
def local_tmp():
    """A new directory of this rank's own, removed after the test.

    (Not pytest's ``tmp_path``: under mpiexec every rank is a pytest
    session of its own, and their clean-ups of the shared
    ``/tmp/pytest-of-<user>`` race.)
    """
    path = tempfile.mkdtemp(prefix='cpuframe-mn-test-')
    yield pathlib.Path(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def shared_tmp(comm):
    """A new directory every rank sees (made by rank 0), removed after the
    test once every rank is done with it."""
    path = tempfile.mkdtemp(prefix='cpuframe-mn-shared-') \
        if comm.rank == 0 else None
    path = comm.bcast_obj(path, root=0)
    yield path
    comm.mpi_comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def everyone(comm):
    """``everyone(value)``: every rank's ``value``, as a list in rank order,
    on every rank."""
    def gather_everywhere(value):
        return comm.bcast_obj(comm.gather_obj(value, root=0), root=0)
    return gather_everywhere
