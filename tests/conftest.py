"""Session checks shared by every test."""
import os
import subprocess
import sys

import pytest


def pytest_sessionstart(session):
    """With CPUFRAME_REQUIRE_NATIVE=1 (CI), a missing oneDNN module is an error."""
    if os.environ.get('CPUFRAME_REQUIRE_NATIVE', '') not in ('', '0'):
        from cpuframe import _native
        if _native.load() is None:
            raise pytest.UsageError(
                'CPUFRAME_REQUIRE_NATIVE is set but cpuframe._dnnl did not '
                'load: {}'.format(_native.load_error()))


def pytest_report_header(config):
    import cpuframe
    return cpuframe.get_runtime_info().rstrip().splitlines()


@pytest.fixture
def umask():
    """``umask(mask)`` sets the process umask; the old one is back after the test."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


@pytest.fixture
def dead_pid():
    """The pid of a process that has exited and been reaped."""
    process = subprocess.Popen([sys.executable, '-c', 'pass'])
    process.wait()
    return process.pid
