"""Every intel64 route from several threads at once (issue 11).

Each case runs ``_thread_stress.py`` in a subprocess with a timeout: a hang
in native code fails the test instead of stalling the suite. Before the
fix (oneDNN's library-managed scratchpad shared by every thread running a
cached primitive, deferred values settled by two threads at once) these
crashed, hung or gave results that differ from the same call made alone.
"""
import os
import subprocess
import sys

import pytest

_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       '_thread_stress.py')
_TIMEOUT = 240  # seconds; a run takes a few seconds on two cores
# The script imports testhelpers from tests/.
_TESTS = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [_TESTS] + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep)
                if p]))


def _stress(*args):
    try:
        done = subprocess.run(
            [sys.executable, '-X', 'faulthandler', _SCRIPT] + [str(a) for a in args],
            capture_output=True, text=True, timeout=_TIMEOUT, env=_ENV)
    except subprocess.TimeoutExpired as e:
        pytest.fail('threads hung ({} s): {}'.format(_TIMEOUT, e.stdout or ''))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert done.stdout.rstrip().endswith('0 mismatches'), done.stdout


@pytest.mark.parametrize('threads', [2, 4])
@pytest.mark.parametrize('shapes', ['same', 'mixed'])
def test_every_route_from_threads_equals_alone(threads, shapes):
    _stress('ops', threads, shapes, 3)


def test_routes_from_threads_with_primitive_evictions():
    # A cache of 8 primitives: every call evicts and re-creates while other
    # threads run the primitives they got.
    _stress('ops', 4, 'mixed', 2, 8)


@pytest.mark.parametrize('threads', [2, 4])
def test_training_from_threads_equals_training_alone(threads):
    _stress('train', threads, 12)
