"""SGD's and MomentumSGD's native one-pass updates (csrc/optimizer.cpp)
against their NumPy code: the same float32 operations in the same order, so
parameters and velocities agree bit for bit, also on NaN, infinities, huge
and denormal values; what the kernels do not take (layouts, dtypes, shared
buffers, float64 hyperparameters, NumPy set to raise) runs the NumPy code."""
import numpy
import pytest
from testhelpers.threads import run_in_threads

import cpuframe
from cpuframe.backends import intel64
from cpuframe.optimizers import _native, momentum_sgd, sgd

pytestmark = pytest.mark.skipif(
    not intel64.is_ideep_available(), reason='native module unavailable')


def _same(a, b):
    # equal values, NaN where NaN (payloads aside)
    return numpy.array_equal(a, b, equal_nan=True) and \
        numpy.array_equal(numpy.signbit(a), numpy.signbit(b))


def _special(rng, n):
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 39)).astype(
        numpy.float32)
    picks = rng.integers(0, n, size=5)
    a[picks[0]] = numpy.nan
    a[picks[1]] = numpy.inf
    a[picks[2]] = -3e38
    a[picks[3]] = 1e-42                   # denormal
    a[picks[4]] = -0.0
    return a


def _hyper(rng, seed):
    # Python floats, a small int, a NumPy float32, huge and tiny values
    kinds = (lambda: float(rng.random()), lambda: int(rng.integers(0, 3)),
             lambda: numpy.float32(rng.random()),
             lambda: float(10.0 ** rng.integers(-45, 38)))
    return kinds[seed % 4](), kinds[(seed // 4) % 4]()


@pytest.mark.parametrize('seed', range(32))
def test_momentum_kernel_is_the_numpy_code_bit_for_bit(seed, kernel_isa):
    rng = numpy.random.default_rng(seed)
    n = int(rng.integers(1, 40)) if seed % 4 == 0 else \
        int(rng.integers(1, 3000))
    data, v, grad = (_special(rng, n) for _ in range(3))
    lr, momentum = _hyper(rng, seed)
    want_data, want_v = data.copy(), v.copy()
    with numpy.errstate(all='ignore'):
        want_v *= momentum
        want_v -= lr * grad
        want_data += want_v
    assert _native.kernel('momentum_sgd_update_f32')(
        data, grad, v, lr, momentum)
    assert _same(data, want_data) and _same(v, want_v)


@pytest.mark.parametrize('seed', range(16))
def test_sgd_kernel_is_the_numpy_code_bit_for_bit(seed, kernel_isa):
    rng = numpy.random.default_rng(100 + seed)
    n = int(rng.integers(1, 3000))
    data, grad = _special(rng, n), _special(rng, n)
    lr, _ = _hyper(rng, seed)
    want = data.copy()
    with numpy.errstate(all='ignore'):
        want -= lr * grad
    assert _native.kernel('sgd_update_f32')(data, grad, lr)
    assert _same(data, want)


def test_kernels_decline_what_they_do_not_take():
    momentum = _native.kernel('momentum_sgd_update_f32')
    plain = _native.kernel('sgd_update_f32')
    f = numpy.ones(8, numpy.float32)
    ro = f.copy()
    ro.flags.writeable = False
    declined = [
        momentum(f.copy()[::2], f[:4], f[:4].copy(), 0.1, 0.9),  # strided
        momentum(f.astype(numpy.float64), f, f.copy(), 0.1, 0.9),
        momentum(ro, f, f.copy(), 0.1, 0.9),
        momentum(f.copy(), f, ro, 0.1, 0.9),
        momentum(f.copy(), f[:4], f.copy(), 0.1, 0.9),           # sizes
        momentum(f.copy(), f, f.copy(), 1e39, 0.9),      # beyond float32
        momentum(f.copy(), f, f.copy(), 0.1, -1e39),
        # just beyond float32's largest: float32 rounds it down, NumPy 1.x
        # computes in float64
        momentum(f.copy(), f, f.copy(), 3.4028235677973366e38 * (1 + 1e-12),
                 0.9),
        # one size, other shapes: NumPy broadcasts or refuses
        momentum(f.copy().reshape(2, 4), f, f.copy().reshape(2, 4), 0.1, 0.9),
        momentum(f.copy().reshape(2, 4), f.reshape(4, 2),
                 f.copy().reshape(2, 4), 0.1, 0.9),
        plain(f.copy().reshape(2, 4), f.reshape(4, 2), 0.1),
        plain(f.copy()[::2], f[:4], 0.1),
        plain(ro, f, 0.1),
        plain(f.copy(), f.astype(numpy.float64), 0.1),
        plain(f.copy(), f, 1e39),
    ]
    assert not any(declined)
    assert (ro == 1).all()
    # one buffer in two roles, whole or in part: NumPy's in-place
    # operations read copies of overlapping operands, one pass would not
    buf = numpy.arange(12, dtype=numpy.float32)
    before = buf.copy()
    assert not momentum(buf[:8], buf[4:], numpy.ones(8, numpy.float32),
                        0.1, 0.9)
    assert not momentum(buf[:6], numpy.ones(6, numpy.float32), buf[5:11],
                        0.1, 0.9)
    assert not plain(buf[2:10], buf[:8], 0.1)
    adam = _native.kernel('adam_update_f32')
    assert not adam(buf[:4], numpy.ones(4, numpy.float32), buf[3:7],
                    numpy.ones(4, numpy.float32), 0.1, 0.001, 1e-8, 0.01,
                    0.0, 1.0)
    assert numpy.array_equal(buf, before)
    # infinities and NaN are float32 values: taken
    assert momentum(f.copy(), f, f.copy(), numpy.inf, numpy.nan)
    assert plain(f.copy(), f, -numpy.inf)


def test_float32_scalar_says_which_values_numpy_computes_in_float32():
    yes = (0.1, 3, 0, -32768, 65535, numpy.float32(0.5), float('nan'), 1e39)
    no = (True, numpy.float64(0.1), numpy.float16(0.5), 2 ** 30, '0.1',
          numpy.array(0.1, numpy.float32), None)
    assert all(_native.float32_scalar(x) for x in yes)
    assert not any(_native.float32_scalar(x) for x in no)
    # what NumPy itself does with an int beyond 2^16, by its version
    big = 100000
    product = big * numpy.ones(2, numpy.float32)
    assert _native.float32_scalar(big) == (product.dtype == numpy.float32)


def _backward(model, shape):
    """Fresh gradients of sum(model(ones(shape))) in ``model``."""
    model.cleargrads()
    cpuframe.functions.sum(model(numpy.ones(shape, numpy.float32))).backward()


def _train(native, monkeypatch, optimizer, device='@numpy', lr=None,
           steps=4):
    monkeypatch.setattr(momentum_sgd, '_kernel', [] if native else [None])
    monkeypatch.setattr(sgd, '_kernel', [] if native else [None])
    rng = numpy.random.default_rng(0)
    model = cpuframe.links.Linear(5, 3, initialW=rng.standard_normal((3, 5)))
    model.add_param('strided', (4, 6))
    model.strided.array[...] = 1
    model.to_device(device)
    opt = optimizer().setup(model)
    if lr is not None:
        opt.lr = lr
    for step in range(steps):
        x = rng.standard_normal((7, 5)).astype(numpy.float32)
        if step == 2:
            x[0, 0] = numpy.inf                  # inf and NaN reach W
        model.cleargrads()
        with numpy.errstate(all='ignore'):
            loss = cpuframe.functions.sum(model(x) ** 2)
            loss.backward()
            model.strided.grad = model.strided.device.send(
                numpy.asfortranarray(  # not C-contiguous on NumPy
                    rng.standard_normal((4, 6)).astype(numpy.float32)))
            opt.update()
    return [numpy.asarray(p.array).copy()
            for _, p in sorted(model.namedparams())] + [
        numpy.asarray(v).copy() for _, p in sorted(model.namedparams())
        for _, v in sorted(p.update_rule.state.items())]


@pytest.mark.parametrize('device', ['@numpy', '@intel64'])
@pytest.mark.parametrize('optimizer,lr', [
    (cpuframe.optimizers.MomentumSGD, None),
    (cpuframe.optimizers.MomentumSGD, 1),
    (cpuframe.optimizers.MomentumSGD, numpy.float64(0.03)),
    (cpuframe.optimizers.SGD, None),
    (cpuframe.optimizers.SGD, numpy.float32(0.2)),
    (cpuframe.optimizers.SGD, numpy.float64(0.03)),
])
def test_training_matches_the_numpy_path(optimizer, lr, device,
                                         monkeypatch):
    native = _train(True, monkeypatch, optimizer, device, lr)
    numpy_path = _train(False, monkeypatch, optimizer, device, lr)
    assert len(native) == len(numpy_path)
    for a, b in zip(native, numpy_path):
        assert _same(a, b)


def test_the_kernels_run_in_training(monkeypatch):
    # the update takes them where they apply (not only in the tests above)
    seen = []
    for module, name in ((momentum_sgd, 'momentum_sgd_update_f32'),
                         (sgd, 'sgd_update_f32')):
        real = _native.kernel(name)

        def spy(*args, _real=real, _name=name):
            seen.append(_name)
            return _real(*args)
        monkeypatch.setattr(module, '_kernel', [spy])
    for optimizer in (cpuframe.optimizers.MomentumSGD,
                      cpuframe.optimizers.SGD):
        model = cpuframe.links.Linear(3, 2)
        opt = optimizer().setup(model)
        _backward(model, (2, 3))
        opt.update()
    assert seen == ['momentum_sgd_update_f32'] * 2 + ['sgd_update_f32'] * 2


def test_the_kernels_run_on_the_device_views(monkeypatch):
    # on @intel64 a parameter's update runs on its plan's flat views once
    # the plan exists (the second update on): the kernels take them
    seen = []
    real = _native.kernel('momentum_sgd_update_f32')

    def spy(*args):
        seen.append(all(type(a) is numpy.ndarray for a in args[:3]))
        return real(*args)
    monkeypatch.setattr(momentum_sgd, '_kernel', [spy])
    model = cpuframe.links.Linear(3, 2)
    model.to_device('@intel64')
    opt = cpuframe.optimizers.MomentumSGD().setup(model)
    x = model.W.device.send(numpy.ones((2, 3), numpy.float32))
    for _ in range(3):
        model.cleargrads()
        cpuframe.functions.sum(model(x)).backward()
        opt.update()
    assert seen and all(seen) and len(seen) >= 4
    assert intel64.is_native_array(model.W.array)


def test_a_gradient_of_another_shape_is_numpy_s_error():
    # one size, other shape (a parameter reshaped after its gradient was
    # made): NumPy's broadcasting error, as before the kernels
    for optimizer in (cpuframe.optimizers.MomentumSGD,
                      cpuframe.optimizers.SGD,
                      cpuframe.optimizers.Adam):
        model = cpuframe.links.Linear(3, 2)
        opt = optimizer().setup(model)
        _backward(model, (1, 3))
        opt.update()                                     # state made
        model.W.grad = numpy.ones((2, 3), numpy.float32)
        model.W.array = model.W.array.reshape(3, 2)   # (not re-checked)
        before = model.W.array.copy()
        with pytest.raises(ValueError):
            opt.update()
        numpy.testing.assert_array_equal(model.W.array, before)


def test_numpy_set_to_raise_on_underflow_keeps_the_numpy_path():
    model = cpuframe.links.Linear(2, 2)
    opt = cpuframe.optimizers.SGD(lr=1e-10).setup(model)
    _backward(model, (1, 2))
    model.W.grad = numpy.full((2, 2), 1e-30, numpy.float32)
    with numpy.errstate(under='raise'):
        with pytest.raises(FloatingPointError):
            opt.update()


def test_numpy_errors_set_to_raise_keep_the_numpy_path():
    for optimizer in (cpuframe.optimizers.MomentumSGD,
                      cpuframe.optimizers.SGD):
        model = cpuframe.links.Linear(2, 2)
        opt = optimizer(lr=10.0).setup(model)
        _backward(model, (1, 2))
        model.W.grad = numpy.full((2, 2), 3e38, numpy.float32)
        with numpy.errstate(over='raise'):
            with pytest.raises(FloatingPointError):
                opt.update()


def test_a_subclass_step_is_its_own():
    class Halved(momentum_sgd.MomentumSGDRule):
        def step(self, data, v, grad, lr, momentum):
            super().step(data, v, grad, lr / 2, momentum)

    class HalvedSGD(cpuframe.optimizers.MomentumSGD):
        def create_update_rule(self):
            return Halved(self.hyperparam)

    results = []
    for optimizer in (HalvedSGD, cpuframe.optimizers.MomentumSGD):
        model = cpuframe.links.Linear(
            2, 1, initialW=numpy.ones((1, 2), numpy.float32))
        opt = optimizer(lr=0.5, momentum=0.0).setup(model)
        model.cleargrads()
        model.W.grad = numpy.ones((1, 2), numpy.float32)
        model.b.grad = numpy.zeros(1, numpy.float32)
        opt.update()
        results.append(model.W.array.copy())
    numpy.testing.assert_array_equal(results[0], [[0.75, 0.75]])
    numpy.testing.assert_array_equal(results[1], [[0.5, 0.5]])


def test_kernels_from_several_threads():
    # each thread its own arrays (the GIL is released during a pass): every
    # result is the NumPy code's
    momentum = _native.kernel('momentum_sgd_update_f32')
    plain = _native.kernel('sgd_update_f32')

    def work():
        rng = numpy.random.default_rng()
        for _ in range(50):
            n = int(rng.integers(1, 70000))
            data, v, grad = (rng.standard_normal(n).astype(numpy.float32)
                             for _ in range(3))
            want_data, want_v = data.copy(), v.copy()
            want_v *= 0.9
            want_v -= 0.01 * grad
            want_data += want_v
            assert momentum(data, grad, v, 0.01, 0.9)
            assert _same(data, want_data) and _same(v, want_v)
            want_data -= 0.5 * grad
            assert plain(data, grad, 0.5)
            assert _same(data, want_data)
    assert run_in_threads(work, 4) == []
