"""``chainer.testing.attr``'s availability helpers (ChainerCV imports them)."""
import builtins

import pytest

from cpuframe.testing import attr


def test_available_with_pytest():
    assert attr.is_available() and attr.get_error() is None
    attr.check_available()      # does not raise


def test_without_pytest_says_why(monkeypatch):
    real_import = builtins.__import__

    def no_pytest(name, *args, **kwargs):
        if name == 'pytest':
            raise ImportError('No module named pytest')
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, '__import__', no_pytest)
    assert not attr.is_available()
    with pytest.raises(RuntimeError, match='is not available'):
        attr.check_available()
    with pytest.raises(RuntimeError, match='No module named pytest'):
        attr._dummy_callable(lambda: None)
