"""NaN, ±inf and huge values: every intel64 route gives the NumPy path's
result, forward and every gradient (issue 11).

Each routed op (the cases of ``testhelpers.routed_cases``) runs under 'always' (on
NumPy and on device arrays) and on the NumPy path with one special value
written into one of its arrays (the input, a weight or a bias); NaNs and
infinities must come out in the same places with the same signs, and the
finite values must agree.
"""
import numpy
import pytest
from testhelpers.routed_cases import CASES, run_case

SPECIALS = {'nan': numpy.nan, 'inf': numpy.inf, '-inf': -numpy.inf,
            'huge': 1e30, 'near_max': 3e38}


def _writer(which, value):
    def edit(arrays):
        a = arrays[which].reshape(-1)
        a[[0, a.size // 2, a.size - 1]] = value
    return edit


def _assert_same(got, want, what):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        where = '{} result {}'.format(what, i)
        assert g.shape == w.shape, where
        # A sum whose partial sums pass the largest float (terms near 3e38)
        # overflows or not depending on the order of its terms, which
        # neither path fixes (NumPy's BLAS blocks sums as it likes): there
        # an infinity may face a finite value beyond 1e37 of the same sign.
        same_sign = numpy.sign(g) == numpy.sign(w)
        edge = same_sign & ((numpy.isinf(g) & (numpy.abs(w) > 1e37)) |
                            (numpy.isinf(w) & (numpy.abs(g) > 1e37)))
        g, w = numpy.where(edge, 0, g), numpy.where(edge, 0, w)
        numpy.testing.assert_array_equal(numpy.isnan(g), numpy.isnan(w), where)
        numpy.testing.assert_array_equal(numpy.isposinf(g), numpy.isposinf(w), where)
        numpy.testing.assert_array_equal(numpy.isneginf(g), numpy.isneginf(w), where)
        finite = numpy.isfinite(w)
        scale = float(numpy.abs(w[finite]).max()) if finite.any() else 1.0
        numpy.testing.assert_allclose(g[finite], w[finite], rtol=1e-4,
                                      atol=1e-4 * max(scale, 1.0), err_msg=where)


def _n_arrays(name):
    return len(CASES[name](numpy.random.default_rng(0), 0)[1])


@pytest.mark.parametrize('special', sorted(SPECIALS))
@pytest.mark.parametrize('where', ['numpy', 'device'])
@pytest.mark.parametrize('name', sorted(CASES))
def test_special_values_match_numpy_path(name, where, special):
    for which in range(_n_arrays(name)):
        edit = _writer(which, SPECIALS[special])
        # The NumPy path, on NumPy arrays (device arrays take the route even
        # under 'never').
        want = run_case(CASES[name], 3, 0, 'numpy', 'never', edit)
        got = run_case(CASES[name], 3, 0, where, 'always', edit)
        _assert_same(got, want, '{} with {} in array {}'.format(name, special, which))
