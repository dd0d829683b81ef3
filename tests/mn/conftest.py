"""Tests of cpuframe.mn: they run as one process in the normal suite and
under ``mpiexec -n 2`` / ``-n 3`` (see .ci/run):

    mpiexec -n 2 python -m pytest tests/mn

Each test gets a deadline: a deadlocked collective dumps every thread's
stack and ends the process (mpiexec then ends the job) instead of hanging.
"""
import faulthandler
import os
import sys

import pytest

pytest.importorskip('mpi4py', reason='cpuframe.mn needs mpi4py (the mpi extra)')

# Seconds one test may take before it counts as a deadlock.
DEADLINE = float(os.environ.get('CPUFRAME_MN_TEST_DEADLINE', '120'))


@pytest.fixture(autouse=True)
def _deadline():
    faulthandler.dump_traceback_later(DEADLINE, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope='session')
def comm():
    import cpuframe.mn
    return cpuframe.mn.create_communicator('naive')
