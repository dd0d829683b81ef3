"""NumPy's BLAS on one thread for cpuframe's small products
(cpuframe/_blas_threads.py): which products, the same values, the setting
restored (errors and threads included), the switch off."""
import os
import signal
import subprocess
import sys
import threading

import numpy
import pytest
from testhelpers.threads import run_in_threads

import cpuframe
import cpuframe.functions as F
from cpuframe import _blas_threads as bt

needs_openblas = pytest.mark.skipif(
    not bt.api(), reason="NumPy's BLAS is not a switchable OpenBLAS here")


def _threads():
    return bt.api()[1]()


def _one_thread(fn, *args):
    setter, getter = bt.api()
    saved = getter()
    setter(1)
    try:
        return fn(*args)
    finally:
        setter(saved)


@pytest.mark.parametrize('m,k,n,want', [
    (1, 128, 512, True),        # gemv of 65K elements: BLAS threads it
    (1, 64, 64, False),         # gemv of 4K elements: it does not
    (512, 128, 1, True),
    (64, 64, 64, True),         # 262,144 multiply-adds: threaded
    (32, 64, 64, False),        # 131K: BLAS keeps one thread anyway
    (100, 500, 20, True),       # 1M: below the bound
    (100, 784, 100, True),      # 7.8M: below the bound
    (100, 784, 500, False),     # 39M: every thread
    (4096, 4096, 1, False),     # a 16M-element gemv: every thread
])
def test_which_products_run_on_one_thread(m, k, n, want):
    assert bt.wants_one_thread(m, k, n) is want


@needs_openblas
@pytest.mark.parametrize('shapes', [
    ((100, 784), (784, 100)), ((100, 500), (500, 20)),
    ((1, 300), (300, 200)), ((300, 1), (1, 200)),
    ((64, 64), (64, 64)), ((3, 40, 50), (3, 50, 300)),
    ((2, 4, 40, 60), (4, 60, 300)), ((300, 100), (100, 1))])
@pytest.mark.parametrize('values', ['normal', 'nonfinite', 'huge'])
def test_products_equal_numpy_and_restore_the_setting(shapes, values):
    rng = numpy.random.RandomState(0)
    a = rng.standard_normal(shapes[0]).astype(numpy.float32)
    b = rng.standard_normal(shapes[1]).astype(numpy.float32)
    if values == 'nonfinite':
        a.reshape(-1)[::7] = numpy.nan
        b.reshape(-1)[::5] = numpy.inf
    elif values == 'huge':
        a *= 1e30
        b *= 1e20
    before = _threads()
    a_f = numpy.asfortranarray(a) if a.ndim == 2 else a
    with numpy.errstate(all='ignore'):
        threaded = numpy.matmul(a, b)
        one = bt.wants_one_thread(a.shape[-2], a.shape[-1], b.shape[-1])
        run = (lambda *args: _one_thread(numpy.matmul, *args)) if one \
            else numpy.matmul
        want = run(a, b)
        want_f = run(a_f, b)
        got = bt.matmul(a, b)
        got_f = bt.matmul(a_f, b)
    assert _threads() == before
    # BLAS's one-thread product where the rule says so, else the threaded
    # one, bit for bit (a Fortran-order operand is another BLAS call); the
    # two may differ in the last bits (another split of the blocks)
    numpy.testing.assert_array_equal(got, want)
    numpy.testing.assert_array_equal(got_f, want_f)
    both = numpy.isfinite(threaded) & numpy.isfinite(got)
    scale = float(numpy.abs(a[numpy.isfinite(a)]).max()) * \
        float(numpy.abs(b[numpy.isfinite(b)]).max()) * a.shape[-1]
    numpy.testing.assert_allclose(got[both], threaded[both], rtol=0,
                                  atol=1e-6 * scale)
    if values == 'normal':
        assert both.all()


@needs_openblas
def test_the_scope_sets_one_thread_and_restores_it_after_an_error():
    before = _threads()
    bt.enter()
    try:
        assert _threads() == 1
        bt.enter()  # nested: still one, restored by the outer leave only
        bt.leave()
        assert _threads() == 1
    finally:
        bt.leave()
    assert _threads() == before
    a = numpy.ones((200, 300), numpy.float32)
    with pytest.raises(ValueError):
        bt.matmul(a, numpy.ones((200, 300), numpy.float32))  # k mismatch
    assert _threads() == before


@needs_openblas
def test_concurrent_scopes_restore_the_setting():
    before = _threads()
    rng = numpy.random.RandomState(1)
    a = rng.standard_normal((100, 200)).astype(numpy.float32)
    b = rng.standard_normal((200, 100)).astype(numpy.float32)
    assert bt.wants_one_thread(100, 200, 100)
    want = _one_thread(numpy.matmul, a, b)

    def work():
        for _ in range(200):
            numpy.testing.assert_array_equal(bt.matmul(a, b), want)
    assert not run_in_threads(work, 4)
    assert _threads() == before


@needs_openblas
def test_linear_and_convolution_take_the_scope(monkeypatch):
    # The NumPy path's products of Linear and the convolutions go through
    # it (backward included), and their gradients are unchanged.
    calls = []
    original = bt.enter

    def spy():
        calls.append(1)
        original()
    monkeypatch.setattr(bt, 'enter', spy)
    rng = numpy.random.RandomState(2)
    x = cpuframe.Variable(rng.standard_normal((64, 100)).astype(numpy.float32))
    W = cpuframe.Variable(rng.standard_normal((80, 100)).astype(numpy.float32))
    with cpuframe.using_config('use_ideep', 'never'):
        y = F.linear(x, W)
        F.sum(y * y).backward()
    assert len(calls) == 3  # forward, gx, gW
    numpy.testing.assert_allclose(
        y.array, x.array.astype(numpy.float64) @ W.array.T, rtol=1e-4,
        atol=1e-4)
    calls.clear()
    img = rng.standard_normal((2, 8, 16, 16)).astype(numpy.float32)
    k = rng.standard_normal((16, 8, 3, 3)).astype(numpy.float32)
    with cpuframe.using_config('use_ideep', 'never'):
        F.convolution_2d(img, k, pad=1)
        F.deconvolution_2d(img, k.transpose(1, 0, 2, 3).copy(), pad=1)
    assert len(calls) == 2


def test_the_switch_off_and_a_bad_value():
    env = dict(os.environ, CPUFRAME_BLAS_ONE_THREAD_MACS='0')
    out = subprocess.run(
        [sys.executable, '-c', 'from cpuframe import _blas_threads as b; '
         'print(b.api(), b.wants_one_thread(64, 64, 64))'],
        env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ['False', 'False']
    env['CPUFRAME_BLAS_ONE_THREAD_MACS'] = 'many'
    out = subprocess.run(
        [sys.executable, '-c', 'import cpuframe._blas_threads'],
        env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert 'CPUFRAME_BLAS_ONE_THREAD_MACS: expected a non-negative ' \
        "integer, got 'many'" in out.stderr


@needs_openblas
@pytest.mark.skipif(not hasattr(os, 'fork'), reason='no os.fork here')
def test_a_child_forked_inside_a_scope_starts_with_none_open():
    # A thread is inside a one-thread product when the process forks (a
    # multiprocessing worker): the child has no such thread, so it starts
    # with BLAS's setting restored and the scope count at zero
    before = _threads()
    if before < 2:
        pytest.skip('BLAS runs one thread here: nothing to restore')
    entered, release = threading.Event(), threading.Event()

    def hold_a_scope():
        bt.enter()
        try:
            entered.set()
            release.wait(60)
        finally:
            bt.leave()
    holder = threading.Thread(target=hold_a_scope)
    holder.start()
    try:
        assert entered.wait(60) and _threads() == 1
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report, never return into pytest
            code = 1
            # (a child stuck on a lock dies instead of hanging the test:
            # its pipe closes and the parent's read returns nothing)
            signal.alarm(60)
            try:
                ok = _threads() == before and bt._depth == 0
                bt.enter()  # the lock is free, the scope works
                ok = ok and _threads() == 1
                bt.leave()
                ok = ok and _threads() == before
                os.write(w, b'ok' if ok else b'no')
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        got = os.read(r, 2)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert got == b'ok'
        assert _threads() == 1  # the parent's scope is still open
    finally:
        release.set()
        holder.join(60)
    assert not holder.is_alive()
    assert _threads() == before and bt._depth == 0
