import unittest

import pytest

from cpuframe.testing import condition


class _Counter(unittest.TestCase):
    """A TestCase whose test fails on the attempts listed in ``fail_on``."""

    __test__ = False
    fail_on = ()
    attempts = None
    setups = None

    def setUp(self):
        type(self).setups.append(self)

    def runTest(self):
        pass

    def _body(self):
        type(self).attempts.append(self)
        if len(type(self).attempts) in self.fail_on:
            self.fail('attempt {} fails'.format(len(type(self).attempts)))


def _case(decorator, fail_on):
    cls = type('C', (_Counter,), {
        'fail_on': fail_on, 'attempts': [], 'setups': [],
        'test_it': decorator(_Counter._body)})
    return cls, cls('test_it')


def test_retry_passes_after_failures():
    cls, case = _case(condition.retry(5), fail_on=(1, 2))
    case.test_it()
    assert len(cls.attempts) == 3  # stops at the first success
    # Each attempt ran on a fresh instance with its own setUp.
    assert len({id(a) for a in cls.attempts}) == 3
    assert cls.setups == cls.attempts


def test_retry_fails_when_every_attempt_fails():
    cls, case = _case(condition.retry(3), fail_on=(1, 2, 3))
    with pytest.raises(AssertionError) as info:
        case.test_it()
    assert len(cls.attempts) == 3
    assert 'Fail: 3, Success: 0' in str(info.value)
    assert 'attempt 1 fails' in str(info.value)  # the first error is shown


def test_repeat_needs_every_run():
    cls, case = _case(condition.repeat(4), fail_on=())
    case.test_it()
    assert len(cls.attempts) == 4
    cls, case = _case(condition.repeat(4), fail_on=(3,))
    with pytest.raises(AssertionError, match='Fail: 1, Success: 2'):
        case.test_it()
    assert len(cls.attempts) == 3  # gave up as soon as it could not pass


def test_repeat_with_success_at_least():
    cls, case = _case(condition.repeat_with_success_at_least(5, 3),
                      fail_on=(1, 3))
    case.test_it()
    assert len(cls.attempts) == 5
    cls, case = _case(condition.repeat_with_success_at_least(5, 3),
                      fail_on=(1, 2, 3))
    with pytest.raises(AssertionError, match='Fail: 3, Success: 0'):
        case.test_it()
    with pytest.raises(ValueError):
        condition.repeat_with_success_at_least(2, 3)


def test_skip_is_not_a_failure():
    calls = []

    @condition.repeat(3)
    def skipped():
        calls.append(1)
        raise unittest.SkipTest('no')

    with pytest.raises(unittest.SkipTest):
        skipped()
    assert calls == [1]

    @condition.retry(3)
    def pytest_skipped():
        pytest.skip('also no')

    with pytest.raises(pytest.skip.Exception):
        pytest_skipped()


def test_plain_functions_and_errors():
    calls = []

    @condition.retry(3)
    def flaky(x):
        calls.append(x)
        if len(calls) < 3:
            raise ValueError('not yet')

    flaky(7)
    assert calls == [7, 7, 7]

    @condition.retry(2)
    def broken():
        raise KeyError('always')

    with pytest.raises(AssertionError, match='KeyError'):
        broken()


_flaky_state = {'n': 0}


class TestRetryUnderPytest(unittest.TestCase):

    @condition.retry(3)
    def test_passes_on_third_attempt(self):
        _flaky_state['n'] += 1
        assert _flaky_state['n'] % 3 == 0
