"""Running a flaky test several times (``chainer.testing.condition``).

``repeat_with_success_at_least(times, min_success)`` runs the decorated
test up to ``times`` times and passes as soon as ``min_success`` runs have
passed; it fails as soon as that can no longer happen, with the first
failure's message.  ``retry(times)`` needs one success, ``repeat(times)``
needs all.  A skipped run skips the test.

For a ``unittest.TestCase`` each run uses a fresh instance with its own
``setUp``/``tearDown``; for other tests each run calls the function again.
Apply ``fix_random`` outside these decorators, not inside (inside, every
run would see the same random numbers).
"""
import functools
import traceback
import unittest


def _skip_exceptions():
    types = [unittest.SkipTest]
    try:
        import pytest
        types.append(pytest.skip.Exception)
    except ImportError:
        pass
    return tuple(types)


def _run_once(f, args, kwargs):
    """Run one attempt; returns None on success, else the formatted error."""
    instance = args[0] if args else None
    if isinstance(instance, unittest.TestCase):
        fresh = type(instance)(instance._testMethodName)
        try:
            fresh.setUp()
        except _skip_exceptions():
            raise
        except Exception:
            return traceback.format_exc()
        try:
            f(fresh, *args[1:], **kwargs)
        except _skip_exceptions():
            raise
        except Exception:
            return traceback.format_exc()
        finally:
            fresh.tearDown()
        return None
    try:
        f(*args, **kwargs)
    except _skip_exceptions():
        raise
    except Exception:
        return traceback.format_exc()
    return None


def repeat_with_success_at_least(times, min_success):
    """Decorator: pass when at least ``min_success`` of ``times`` runs pass.

    Raises ``AssertionError`` with the counts and the first failure's
    traceback otherwise.
    """
    if not 0 <= min_success <= times:
        raise ValueError(
            'repeat_with_success_at_least: expected 0 <= min_success <= '
            'times, got times={}, min_success={}'.format(times, min_success))

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            successes = failures = 0
            first_error = None
            for _ in range(times):
                if successes >= min_success:
                    return
                if failures > times - min_success:
                    break
                error = _run_once(f, args, kwargs)
                if error is None:
                    successes += 1
                else:
                    failures += 1
                    if first_error is None:
                        first_error = error
            if successes >= min_success:
                return
            raise AssertionError(
                '\nFail: {}, Success: {} (at least {} of {} runs must '
                'pass)\n\nThe first error message:\n{}'.format(
                    failures, successes, min_success, times, first_error))
        return wrapper
    return decorator


def repeat(times):
    """Decorator: every one of ``times`` runs must pass."""
    return repeat_with_success_at_least(times, times)


def retry(times):
    """Decorator: pass when any of up to ``times`` runs passes."""
    return repeat_with_success_at_least(times, 1)
