"""Fixed random seeds for tests (``chainer.testing.random``).

``fix_random()`` decorates a test method (seeding ``random`` and
``numpy.random`` around it) or a test class (seeding in its set-up method
and restoring in its tear-down).  The previous generator states are put
back afterwards, so a test cannot disturb the random numbers of the next.
The seed is 0, or a fresh one per test when the environment variable
``CHAINER_TEST_RANDOM_NONDETERMINISTIC`` is set to something other than 0.
"""
import functools
import os
import random
import types
import unittest

import numpy

_saved_states = []


def _seed():
    value = os.environ.get('CHAINER_TEST_RANDOM_NONDETERMINISTIC', '0')
    if value not in ('', '0'):
        return None
    return 0


def _setup_random():
    state = (random.getstate(), numpy.random.get_state(), _cupy_states())
    _saved_states.append(state)
    seed = _seed()
    if seed is None:
        seed = int.from_bytes(os.urandom(4), 'little')
    random.seed(seed)
    numpy.random.seed(seed)
    _seed_cupy(seed)


def _teardown_random():
    if not _saved_states:
        raise RuntimeError('fix_random: the random state is not set up')
    py_state, np_state, cupy_states = _saved_states.pop()
    random.setstate(py_state)
    numpy.random.set_state(np_state)
    _restore_cupy(cupy_states)


def _cupy():
    from cpuframe.backends import cuda
    return cuda.cupy if cuda.available else None


def _cupy_states():
    cupy = _cupy()
    if cupy is None:
        return None
    return dict(cupy.random._generator._random_states)


def _seed_cupy(seed):
    cupy = _cupy()
    if cupy is not None:
        cupy.random.seed(seed)


def _restore_cupy(states):
    cupy = _cupy()
    if cupy is not None and states is not None:
        cupy.random._generator._random_states = states


def generate_seed():
    """A seed drawn from the fixed generator (inside ``fix_random`` only)."""
    if not _saved_states:
        raise RuntimeError('generate_seed: call it inside a test decorated '
                           'with fix_random')
    return int(numpy.random.randint(0xffffffff))


def _takes_argument(function):
    """Whether a set-up/tear-down method takes an argument after self
    (pytest passes ``method`` to ``setup_method`` only when it does, judging
    by the argument count)."""
    code = getattr(function, '__code__', None)
    return code is not None and code.co_argcount >= 2


def _wrap_setup(cls, name):
    original = getattr(cls, name, None)

    def run(self, args):
        _setup_random()
        if original is not None:
            try:
                original(self, *args)
            except BaseException:
                _teardown_random()
                raise

    if _takes_argument(original) or (original is None and
                                     name == 'setup_method'):
        def setup(self, method):
            run(self, (method,) if original is not None else ())
    else:
        def setup(self):
            run(self, ())
    if original is not None:
        functools.update_wrapper(setup, original)
        del setup.__wrapped__
    setattr(cls, name, setup)


def _wrap_teardown(cls, name):
    original = getattr(cls, name, None)

    def run(self, args):
        try:
            if original is not None:
                original(self, *args)
        finally:
            _teardown_random()

    if _takes_argument(original) or (original is None and
                                     name == 'teardown_method'):
        def teardown(self, method):
            run(self, (method,) if original is not None else ())
    else:
        def teardown(self):
            run(self, ())
    if original is not None:
        functools.update_wrapper(teardown, original)
        del teardown.__wrapped__
    setattr(cls, name, teardown)


def fix_random(*, setup_method=None, teardown_method=None):
    """Decorator fixing the random seeds of a test method or test class.

    On a class, ``setup_method``/``teardown_method`` name the methods to
    wrap: ``setUp``/``tearDown`` for a ``unittest.TestCase``,
    ``setup_method``/``teardown_method`` (pytest's) otherwise.
    """
    def decorator(impl):
        if isinstance(impl, type):
            is_unittest = issubclass(impl, unittest.TestCase)
            _wrap_setup(impl, setup_method or (
                'setUp' if is_unittest else 'setup_method'))
            _wrap_teardown(impl, teardown_method or (
                'tearDown' if is_unittest else 'teardown_method'))
            return impl
        if isinstance(impl, types.FunctionType):
            @functools.wraps(impl)
            def wrapper(*args, **kwargs):
                _setup_random()
                try:
                    return impl(*args, **kwargs)
                finally:
                    _teardown_random()
            return wrapper
        raise TypeError('fix_random: cannot apply to {!r}'.format(impl))
    return decorator
