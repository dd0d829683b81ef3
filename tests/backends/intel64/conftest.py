"""Shared fixtures of the intel64 backend tests.

Every test here needs the native module: they are skipped with the reason
when it did not load (CI sets CPUFRAME_REQUIRE_NATIVE=1, which turns a
missing module into an error instead).
"""

import numpy
import pytest
from testhelpers.intel64_layouts import Calls

from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import global_config, using_config


@pytest.fixture(autouse=True)
def _every_supported_call_routed(monkeypatch):
    """The tests here are about the oneDNN routes, mostly on small arrays:
    they run under ``use_ideep='always'``, where device arrays take every
    supported route (under the default 'auto' a call below the op's size
    rule takes the NumPy path). Tests of 'auto' or 'never' say so with
    ``using_config``."""
    monkeypatch.setattr(global_config, 'use_ideep', 'always')


@pytest.fixture
def calls(monkeypatch):
    """Records the native functions a test calls (by name)."""
    rec = Calls(intel64.native())
    monkeypatch.setattr(intel64, '_dnnl', rec)
    return rec


def pytest_collection_modifyitems(config, items):
    if intel64.is_ideep_available():
        return
    skip = pytest.mark.skip(reason='oneDNN native module unavailable: {}'.format(
        intel64.unavailable_reason()))
    here = str(config.rootpath / 'tests' / 'backends' / 'intel64')
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(skip)


class Runner:
    """Runs a function and its backward under one route, as NumPy results.

    ``where`` is 'numpy' (NumPy inputs) or 'device' (mdarray inputs).
    Returns the output and the gradient of every input, as ndarrays, and
    checks the array types the contract promises.
    """

    def __call__(self, f, arrays, gy=None, mode='always', where='numpy',
                 check_type=True):
        with using_config('use_ideep', mode):
            if where == 'device':
                vs = [Variable(intel64.from_numpy(a)) for a in arrays]
            else:
                vs = [Variable(a.copy()) for a in arrays]
            y = f(*vs)
            want = intel64.mdarray if where == 'device' else numpy.ndarray
            assert not check_type or isinstance(y.array, want), type(y.array)
            if gy is None:
                gy = numpy.random.default_rng(7).standard_normal(
                    y.shape).astype(numpy.float32)
            y.grad = gy
            y.backward()
            return [numpy.asarray(y.array)] + [numpy.asarray(v.grad) for v in vs]


@pytest.fixture
def run():
    return Runner()


@pytest.fixture
def rng():
    return numpy.random.default_rng(0)


def assert_parity(got, ref, scale=1.0):
    for g, r in zip(got, ref):
        assert g.shape == r.shape and g.dtype == numpy.float32
        tol = 1e-4 * max(1.0, float(numpy.abs(r).max())) * scale
        numpy.testing.assert_allclose(g, r, rtol=1e-4, atol=tol)


@pytest.fixture
def parity():
    return assert_parity


@pytest.fixture
def dnnl():
    return intel64.native()
