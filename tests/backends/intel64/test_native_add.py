"""mdarray + mdarray from 2**18 floats runs on the native threaded add
(gradient accumulation); it must equal NumPy's add, NaN and infinities
included, in place or not, and the native function checks its arguments."""
import numpy
import pytest

from cpuframe.backends import intel64


@pytest.mark.filterwarnings('ignore::RuntimeWarning')   # NumPy's inf - inf
@pytest.mark.parametrize('n', [(1 << 18) - 1, 1 << 18, (1 << 20) + 3])
@pytest.mark.parametrize('inplace', [False, True])
def test_large_add_matches_numpy(n, inplace, monkeypatch):
    rng = numpy.random.default_rng(n)
    a = rng.standard_normal(n).astype(numpy.float32)
    b = rng.standard_normal(n).astype(numpy.float32)
    a[[0, n // 2, n - 1]] = [numpy.nan, numpy.inf, 3e38]
    b[[0, n // 2, n - 1]] = [1.0, -numpy.inf, 3e38]
    want = a + b
    calls = []
    native = intel64.native()
    real = native.add_f32

    def counted(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(native, 'add_f32', counted)
    x, y = intel64.from_numpy(a), intel64.from_numpy(b)
    if inplace:
        x += y
        got = numpy.asarray(x)
    else:
        got = numpy.asarray(x + y)
    numpy.testing.assert_array_equal(got, want)
    assert bool(calls) == (n >= 1 << 18)


def test_add_f32_checks_its_arguments():
    native = intel64.native()
    out = numpy.zeros(4, numpy.float32)
    with pytest.raises(ValueError,
                       match='add_f32: expected a as a C-contiguous float32'):
        native.add_f32(out, numpy.zeros(4, numpy.float64), out)
    with pytest.raises(ValueError, match='add_f32: expected b as .* of 4 values'):
        native.add_f32(out, out, numpy.zeros(5, numpy.float32))
    with pytest.raises(ValueError, match='add_f32: expected out'):
        native.add_f32(numpy.zeros(8, numpy.float32)[::2], out, out)
