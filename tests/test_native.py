"""Tests of the oneDNN extension cpuframe._dnnl and its loader cpuframe._native."""

import os
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

from cpuframe import _native

dnnl = _native.load()
requires_native = pytest.mark.skipif(
    dnnl is None, reason=f"native module unavailable: {_native.load_error()}"
)

# No 0-d shape: the Tensor routes return a 0-d input as shape (1,).
SHAPES = [(0,), (1,), (7,), (3, 5), (2, 0, 3), (2, 3, 4), (2, 3, 4, 5), (64, 1000)]
SLOPES = [0.0, 0.2, -0.5]


def _random(shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    # oneDNN and the reference agree on x == 0, but keep the comparison about signs.
    x[np.abs(x) < 1e-3] = 0.5
    return x


def _relu_ref(x, slope):
    return np.where(x > 0, x, np.float32(slope) * x).astype(np.float32)


def _relu_grad_ref(x, gy, slope):
    return np.where(x > 0, gy, np.float32(slope) * gy).astype(np.float32)


@pytest.fixture
def cache():
    """A cleared primitive cache, restored to its capacity afterwards."""
    capacity = dnnl.primitive_cache_stats()["capacity"]
    dnnl.clear_primitive_cache()
    yield
    dnnl.set_primitive_cache_capacity(capacity)


def test_load_reports_no_error_when_loaded():
    if dnnl is None:
        assert _native.load_error()
    else:
        assert _native.load_error() is None
        assert _native.load() is dnnl


def test_disable_variable_forces_numpy_path():
    code = "import cpuframe._native as n; print(n.load() is None, n.load_error())"
    env = dict(os.environ, CPUFRAME_DISABLE_NATIVE="1")
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "True disabled by CPUFRAME_DISABLE_NATIVE"


@pytest.mark.parametrize(
    "files, is_checkout",
    [(("pyproject.toml", "csrc/"), True), (("pyproject.toml",), False),
     (("csrc/",), False), ((), False)],
)
def test_source_tree_needs_pyproject_and_csrc_beside_the_package(
    tmp_path, monkeypatch, files, is_checkout
):
    (tmp_path / "cpuframe").mkdir()
    for name in files:
        if name.endswith("/"):
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_text("")
    monkeypatch.setattr(_native, "_PACKAGE_DIR", tmp_path / "cpuframe")
    assert _native.source_tree() == (tmp_path if is_checkout else None)


@pytest.mark.parametrize("value, disabled", [("1", True), ("0", False), ("", False)])
def test_disabled_reads_the_variable(monkeypatch, value, disabled):
    monkeypatch.setenv("CPUFRAME_DISABLE_NATIVE", value)
    assert _native.disabled() is disabled


def _fresh_load(monkeypatch):
    """Make the next load() try again; the old result is back afterwards."""
    monkeypatch.setattr(_native, "_loaded", False)
    monkeypatch.setattr(_native, "_module", None)
    monkeypatch.setattr(_native, "_error", None)
    monkeypatch.delenv("CPUFRAME_DISABLE_NATIVE", raising=False)
    from cpuframe.backends import intel64
    monkeypatch.setattr(intel64, "_dnnl", None)  # the backend's bound module


def test_build_without_native_is_reported_as_such(monkeypatch):
    config = types.ModuleType("cpuframe._build_config")
    config.NATIVE_BUILT = False
    config.NATIVE_REASON = "switched off at build time (CPUFRAME_NATIVE=OFF)"
    monkeypatch.setitem(sys.modules, "cpuframe._build_config", config)
    _fresh_load(monkeypatch)
    assert _native.load() is None
    assert _native.load_error() == (
        "cpuframe was built without its native module: "
        "switched off at build time (CPUFRAME_NATIVE=OFF)")
    from cpuframe.backends import intel64
    assert "built without its native module" in intel64.unavailable_reason()
    import cpuframe
    assert "built without its native module" in cpuframe.get_runtime_info()


def test_failed_load_is_reported_as_such(monkeypatch):
    config = types.ModuleType("cpuframe._build_config")
    config.NATIVE_BUILT = True
    config.NATIVE_REASON = ""
    monkeypatch.setitem(sys.modules, "cpuframe._build_config", config)
    monkeypatch.setitem(sys.modules, "cpuframe._dnnl", None)  # import fails
    _fresh_load(monkeypatch)
    assert _native.load() is None
    error = _native.load_error()
    assert error.startswith("the native module failed to load: ")
    assert "cpuframe._dnnl" in error


def test_build_config_matches_the_installed_module():
    try:
        from cpuframe import _build_config
    except ImportError:
        pytest.skip("source tree without a build (no cpuframe/_build_config.py)")
    if _native.disabled():
        pytest.skip("CPUFRAME_DISABLE_NATIVE is set")
    if _build_config.NATIVE_BUILT:
        assert dnnl is not None or "failed to load" in _native.load_error()
    else:
        assert dnnl is None
        assert _build_config.NATIVE_REASON


@requires_native
def test_library_info():
    major, minor, patch = dnnl.onednn_version()
    assert (major, minor) == (3, 2)
    assert dnnl.onednn_version_string().startswith(f"{major}.{minor}.{patch}")
    assert isinstance(dnnl.isa(), str) and dnnl.isa()
    assert dnnl.num_threads() >= 1


# The native-module checks below run on leaky_relu_forward/backward, a live
# eltwise route: one cached oneDNN primitive per element count and slope, and
# the argument checks every Tensor route makes (as_tensor).


def _leaky(x, slope):
    return dnnl.leaky_relu_forward(x, slope).to_numpy()


def _leaky_grad(x, gy, slope):
    return dnnl.leaky_relu_backward(x, gy, slope).to_numpy()


@requires_native
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("slope", SLOPES)
def test_leaky_relu_forward_matches_numpy(shape, slope):
    x = _random(shape)
    y = _leaky(x, slope)
    assert y.dtype == np.float32 and y.shape == x.shape
    assert not np.shares_memory(x, y)
    np.testing.assert_allclose(y, _relu_ref(x, slope), rtol=1e-6, atol=0)


@requires_native
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("slope", SLOPES)
def test_leaky_relu_backward_matches_numpy(shape, slope):
    x, gy = _random(shape, seed=1), _random(shape, seed=2)
    gx = _leaky_grad(x, gy, slope)
    assert gx.dtype == np.float32 and gx.shape == x.shape
    np.testing.assert_allclose(gx, _relu_grad_ref(x, gy, slope), rtol=1e-6, atol=0)


@requires_native
@pytest.mark.parametrize(
    "make",
    [
        lambda a: a[:, ::2],
        lambda a: a.T,
        lambda a: np.asfortranarray(a),
        lambda a: a[::-1],
    ],
    ids=["strided", "transposed", "fortran", "reversed"],
)
def test_eltwise_accepts_non_contiguous_float32(make):
    x = make(_random((6, 8)))
    gy = make(_random((6, 8), seed=4))
    np.testing.assert_array_equal(_leaky(x, 0.1), _relu_ref(x, 0.1))
    np.testing.assert_array_equal(_leaky_grad(x, gy, 0.1), _relu_grad_ref(x, gy, 0.1))


@requires_native
def test_eltwise_leaves_input_untouched():
    x = _random((5, 5))
    before = x.copy()
    _leaky(x, 0.0)
    np.testing.assert_array_equal(x, before)


@requires_native
@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, ">f4"])
def test_eltwise_rejects_other_dtypes(dtype):
    x = np.ones((2, 3), dtype=dtype)
    with pytest.raises(
        TypeError, match=r"leaky_relu_forward: expected x to be a float32 array, got"
    ):
        dnnl.leaky_relu_forward(x, 0.0)


@requires_native
def test_eltwise_type_error_names_the_dtype():
    with pytest.raises(TypeError) as info:
        dnnl.leaky_relu_forward(np.zeros(3), 0.0)
    assert (
        str(info.value)
        == "leaky_relu_forward: expected x to be a float32 array, got float64"
    )


@requires_native
def test_eltwise_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"leaky_relu_forward: expected x .* got list"):
        dnnl.leaky_relu_forward([1.0, -1.0], 0.0)


@requires_native
def test_eltwise_backward_names_the_bad_argument():
    x = _random((2, 3))
    with pytest.raises(
        TypeError, match=r"leaky_relu_backward: expected gy .* got float64"
    ):
        dnnl.leaky_relu_backward(x, x.astype(np.float64), 0.0)
    with pytest.raises(
        TypeError, match=r"leaky_relu_backward: expected ref .* got int64"
    ):
        dnnl.leaky_relu_backward(x.astype(np.int64), x, 0.0)


@requires_native
def test_eltwise_backward_rejects_shape_mismatch():
    x, gy = _random((2, 3)), _random((3, 2))
    with pytest.raises(
        ValueError, match=r"leaky_relu_backward: .*\(2, 3\) and \(3, 2\)"
    ):
        dnnl.leaky_relu_backward(x, gy, 0.0)


@requires_native
def test_cache_reuses_primitive_for_same_shape(cache):
    x = _random((17, 3))
    _leaky(x, 0.0)
    stats = dnnl.primitive_cache_stats()
    _leaky(x, 0.0)
    again = dnnl.primitive_cache_stats()
    assert again["creations"] == stats["creations"]
    assert again["hits"] == stats["hits"] + 1


@requires_native
def test_cache_creates_primitive_for_new_shape_or_slope(cache):
    _leaky(_random((17, 3)), 0.0)
    created = dnnl.primitive_cache_stats()["creations"]
    _leaky(_random((17, 4)), 0.0)
    assert dnnl.primitive_cache_stats()["creations"] == created + 1
    _leaky(_random((17, 4)), 0.25)
    assert dnnl.primitive_cache_stats()["creations"] == created + 2


@requires_native
def test_cache_capacity_evicts_least_recently_used(cache):
    dnnl.set_primitive_cache_capacity(2)
    for n in (11, 12, 13):
        _leaky(_random((n,)), 0.0)
    stats = dnnl.primitive_cache_stats()
    assert stats["size"] == 2 and stats["capacity"] == 2
    _leaky(_random((13,)), 0.0)  # still cached
    assert dnnl.primitive_cache_stats()["creations"] == stats["creations"]
    _leaky(_random((11,)), 0.0)  # evicted, so created anew
    assert dnnl.primitive_cache_stats()["creations"] == stats["creations"] + 1


@requires_native
def test_cache_capacity_zero_disables_caching(cache):
    dnnl.set_primitive_cache_capacity(0)
    x = _random((9,))
    _leaky(x, 0.0)
    created = dnnl.primitive_cache_stats()["creations"]
    np.testing.assert_array_equal(_leaky(x, 0.0), np.maximum(x, 0))
    assert dnnl.primitive_cache_stats()["creations"] == created + 1
    assert dnnl.primitive_cache_stats()["size"] == 0


@requires_native
def test_cache_clear_and_bad_capacity(cache):
    _leaky(_random((5,)), 0.0)
    dnnl.clear_primitive_cache()
    assert dnnl.primitive_cache_stats()["size"] == 0
    with pytest.raises(ValueError, match="set_primitive_cache_capacity"):
        dnnl.set_primitive_cache_capacity(-1)


@requires_native
def test_concurrent_calls_from_threads(cache):
    dnnl.set_primitive_cache_capacity(3)  # force evictions while threads run
    errors = []

    def work(seed):
        try:
            for i in range(50):
                x = _random((seed + 1, (i % 5) + 1), seed=seed)
                np.testing.assert_array_equal(_leaky(x, 0.1), _relu_ref(x, 0.1))
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
