import faulthandler

import pytest


@pytest.fixture(autouse=True)
def _watchdog():
    """Turn a hang (a worker that never answers) into a failure with the
    tracebacks of every thread, instead of a stuck test run."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
