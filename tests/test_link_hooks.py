"""Link hooks: registration, call order, the callback arguments, and the
hooks of ``cpuframe.link_hooks`` (TimerHook, SpectralNormalization)."""
import io

import numpy
import pytest
from testhelpers.hooks import MLP, FakeClock

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import gradient_check, link_hooks
from cpuframe.configuration import using_config
from cpuframe.function_hooks import timer as timer_module
from cpuframe.link_hook import LinkHook, _get_link_hooks


class Recorder(LinkHook):
    def __init__(self, log, name='Recorder'):
        self.log = log
        self.name = name
        self.args = []

    def added(self, link):
        self.log.append((self.name, 'added', link))

    def deleted(self, link):
        self.log.append((self.name, 'deleted', link))

    def forward_preprocess(self, args):
        self.log.append((self.name, 'pre', type(args.link).__name__))
        self.args.append(('pre', args))

    def forward_postprocess(self, args):
        self.log.append((self.name, 'post', type(args.link).__name__))
        self.args.append(('post', args))


class Doubler(cpuframe.Link):
    def __init__(self, log=None):
        super().__init__()
        self.log = log if log is not None else []

    def forward(self, x, scale=1):
        self.log.append(('forward', 'Doubler'))
        return x * 2 * scale


@pytest.fixture(autouse=True)
def _no_leftover_hooks():
    yield
    assert not _get_link_hooks(), 'a test left a global link hook registered'


def test_global_and_local_order_and_callback_args():
    log = []
    link = Doubler(log)
    local = Recorder(log, 'local')
    assert link.add_hook(local) is link
    assert list(link.local_link_hooks) == ['local']
    x = numpy.arange(3, dtype=numpy.float32)
    with Recorder(log, 'global') as g:
        y = link(x, scale=3)
    numpy.testing.assert_array_equal(y, x * 6)
    events = [e for e in log if e[1] not in ('added', 'deleted')]
    assert events == [('global', 'pre', 'Doubler'), ('local', 'pre', 'Doubler'),
                      ('forward', 'Doubler'),
                      ('global', 'post', 'Doubler'),
                      ('local', 'post', 'Doubler')]
    (_, pre), (_, post) = g.args
    assert pre.link is link and post.link is link
    assert pre.forward_name == post.forward_name == 'forward'
    assert pre.args[0] is x and pre.kwargs == {'scale': 3}
    assert not hasattr(pre, 'out')
    assert post.out is y
    assert ('global', 'added', None) in log and \
        ('global', 'deleted', None) in log
    assert ('local', 'added', link) in log


def test_nested_links_each_call_hooks():
    log = []
    model = MLP()
    with Recorder(log):
        model(numpy.zeros((1, 3), numpy.float32))
    assert [e[1:] for e in log if e[1] in ('pre', 'post')] == [
        ('pre', 'MLP'), ('pre', 'Linear'), ('post', 'Linear'),
        ('pre', 'Linear'), ('post', 'Linear'), ('post', 'MLP')]


def test_duplicate_names_and_bad_hooks():
    log = []
    link = Doubler()
    with Recorder(log):
        with pytest.raises(KeyError, match='already registered'):
            with Recorder(log):
                pass
        assert 'Recorder' in _get_link_hooks()
    hook = Recorder(log)
    link.add_hook(hook)
    with pytest.raises(KeyError, match='already registered'):
        link.add_hook(hook)
    link.add_hook(hook, name='again')
    assert list(link.local_link_hooks) == ['Recorder', 'again']
    link.delete_hook('again')
    assert list(link.local_link_hooks) == ['Recorder']
    assert log[-1] == ('Recorder', 'deleted', link)
    with pytest.raises(KeyError, match='no hook named'):
        link.delete_hook('again')
    with pytest.raises(TypeError, match='^Hook must be of type LinkHook'):
        link.add_hook(object())


def test_local_hook_of_one_link_only():
    log = []
    a, b = Doubler(), Doubler()
    a.add_hook(Recorder(log))
    b(numpy.ones(1, numpy.float32))
    assert not [e for e in log if e[1] == 'pre']
    a(numpy.ones(1, numpy.float32))
    assert [e[1] for e in log if e[1] in ('pre', 'post')] == ['pre', 'post']


def test_no_hook_path_calls_forward():
    link = Doubler()
    assert link._local_link_hooks is None
    numpy.testing.assert_array_equal(link(numpy.ones(2, numpy.float32)),
                                     [2, 2])


# -- TimerHook ----------------------------------------------------------------

def test_timer_hook_counts_links():
    model = MLP()
    x = numpy.zeros((2, 3), numpy.float32)
    with link_hooks.TimerHook() as hook:
        model(x)
        model(x)
    summary = hook.summary()
    assert summary['Linear']['occurrence'] == 4
    assert summary['MLP']['occurrence'] == 2
    assert list(summary) == ['Linear', 'MLP']
    mlp_time = summary['MLP']['elapsed_time']
    assert hook.total_time() == pytest.approx(mlp_time)
    assert summary['Linear']['elapsed_time'] <= mlp_time


def test_timer_hook_print_report(monkeypatch):
    # MLP 0..42.5 with two Linear calls inside (1..2 and 3..23.5)
    monkeypatch.setattr(timer_module, 'time',
                        FakeClock([0.0, 1.0, 2.0, 3.0, 23.5, 42.5]))
    model = MLP()
    hook = link_hooks.TimerHook()
    model.add_hook(hook)
    model.l1.add_hook(hook)
    model.l2.add_hook(hook)
    model(numpy.zeros((1, 3), numpy.float32))
    assert hook.total_time() == 42.5
    out = io.StringIO()
    hook.print_report(file=out)
    assert out.getvalue().splitlines() == [
        'LinkName  ElapsedTime  Occurrence',
        '  Linear     21.50sec           2',
        '     MLP     42.50sec           1']
    out = io.StringIO()
    hook.print_report(unit='ms', file=out)
    assert out.getvalue().splitlines()[1] == '  Linear   21500.00ms           2'


# -- SpectralNormalization ----------------------------------------------------

def _top_singular_value(matrix):
    return numpy.linalg.svd(numpy.asarray(matrix, numpy.float64),
                            compute_uv=False)[0]


def _sn_link(kind, **kwargs):
    numpy.random.seed(0)     # the hook draws its initial u from numpy.random
    rng = numpy.random.RandomState(1)
    if kind == 'linear':
        link = L.Linear(6, 5)
        x = rng.normal(size=(4, 6)).astype(numpy.float32)
    elif kind == 'conv':
        link = L.Convolution2D(3, 4, 3)
        x = rng.normal(size=(2, 3, 5, 5)).astype(numpy.float32)
    else:
        link = L.Deconvolution2D(3, 4, 3)
        x = rng.normal(size=(2, 3, 4, 4)).astype(numpy.float32)
    hook = link_hooks.SpectralNormalization(**kwargs)
    link.add_hook(hook)
    return link, hook, x


def _matrix(W, axis):
    if axis:
        W = numpy.moveaxis(W, axis, 0)
    return W.reshape(W.shape[0], -1)


@pytest.mark.parametrize('kind, axis', [('linear', 0), ('conv', 0),
                                        ('deconv', 1)])
def test_sn_normalized_weight_has_unit_spectral_norm(kind, axis):
    link, hook, x = _sn_link(kind, n_power_iteration=10)
    W = link.W.array.copy()
    assert hook.axis == axis
    assert link.W_u.shape == (W.shape[axis],)
    assert 'W_u' in link._persistent
    normalized = []

    def capture(args):
        normalized.append(args.link.W.array.copy())

    spy = Recorder([], 'spy')
    spy.forward_preprocess = capture
    link.add_hook(spy)       # its pre runs after SN's: sees the normalized W
    for _ in range(50):
        link(x)
    sigma = _top_singular_value(_matrix(W, axis))
    numpy.testing.assert_allclose(normalized[-1], W / sigma, rtol=1e-4,
                                  atol=1e-6)
    assert _top_singular_value(_matrix(normalized[-1], axis)) == \
        pytest.approx(1.0, rel=1e-4)
    # the Parameter is back and unchanged
    assert isinstance(link.W, cpuframe.Parameter)
    numpy.testing.assert_array_equal(link.W.array, W)


def test_sn_output_matches_normalized_forward():
    link, hook, x = _sn_link('conv', n_power_iteration=300)
    W = link.W.array.copy()
    y = link(x)
    sigma = _top_singular_value(_matrix(W, 0))
    expected = F.convolution_2d(x, W / sigma, link.b.array).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_sn_parameter_restored_and_gets_the_gradient():
    link, hook, x = _sn_link('linear')
    W_param = link.W
    # Parameters start with NaN-filled gradients (as in Chainer), which a
    # backward would accumulate into.
    link.cleargrads()
    y = link(x)
    assert link.W is W_param
    gy = numpy.random.RandomState(2).normal(size=y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    assert link.W.grad is not None
    # Reference with the same (constant) u and v: sigma = u^T W v.
    u, v = link.W_u, hook.v
    W = cpuframe.Variable(W_param.array.copy())
    sigma = F.sum(W * numpy.outer(u, v).astype(numpy.float32))
    y_ref = F.linear(x, W / F.broadcast_to(sigma, W.shape), link.b)
    y_ref.grad = gy
    y_ref.backward()
    numpy.testing.assert_allclose(y.array, y_ref.array, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(W_param.grad, W.grad, rtol=1e-4, atol=1e-5)


def test_sn_u_updated_only_in_train_mode():
    link, hook, x = _sn_link('linear')
    u0 = link.W_u.copy()
    u_array = link.W_u
    with using_config('train', False):
        link(x)
    numpy.testing.assert_array_equal(link.W_u, u0)
    link(x)
    assert link.W_u is u_array          # updated in place
    assert not numpy.array_equal(link.W_u, u0)
    numpy.testing.assert_allclose(numpy.linalg.norm(link.W_u), 1, rtol=1e-4)


def _normalize(hook, holder):
    def f(W):
        object.__setattr__(holder, 'W', W)
        return hook.normalize_weight(holder)
    return f


@pytest.mark.parametrize('kind', ['linear', 'conv', 'deconv'])
@pytest.mark.parametrize('use_gamma, factor', [(False, None), (False, 2.0),
                                               (True, None)])
def test_sn_gradient_check(kind, use_gamma, factor):
    link, hook, x = _sn_link(kind, use_gamma=use_gamma, factor=factor)
    for _ in range(5):
        link(x)
    W0 = link.W.array.astype(numpy.float64)
    link.W_u = link.W_u.astype(numpy.float64)
    hook.v = hook.v.astype(numpy.float64)
    params = ()
    if use_gamma:
        link.gamma.array = link.gamma.array.astype(numpy.float64)
        params = (link.gamma,)
    rng = numpy.random.RandomState(4)
    gy = rng.normal(size=W0.shape)
    ggW = rng.normal(size=W0.shape)
    f = _normalize(hook, link)
    # While recomputing, u and the v of the last call are constants, so the
    # normalization is a smooth function of W (and gamma).
    with using_config('in_recomputing', True):
        gradient_check.check_backward(f, W0, gy, params=params, atol=1e-6,
                                      rtol=1e-5, dtype=numpy.float64)
        if not use_gamma:
            gradient_check.check_double_backward(
                f, W0, gy, ggW, atol=1e-6, rtol=1e-5, dtype=numpy.float64)


def test_sn_use_gamma_and_factor():
    link, hook, x = _sn_link('linear', use_gamma=True, n_power_iteration=300)
    W = link.W.array.copy()
    sigma = _top_singular_value(W)
    assert link.gamma.array == pytest.approx(sigma, rel=1e-5)
    assert '/gamma' in dict(link.namedparams())
    y = link(x)
    # gamma * W / sigma with gamma = sigma: the weight is unchanged
    numpy.testing.assert_allclose(y.array, F.linear(x, W, link.b).array,
                                  rtol=1e-4, atol=1e-5)
    F.sum(y).backward()
    assert link.gamma.grad is not None

    link, hook, x = _sn_link('linear', factor=3.0, n_power_iteration=300)
    W = link.W.array.copy()
    y = link(x)
    expected = F.linear(x, 3.0 * W / _top_singular_value(W), link.b).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_sn_lazy_weight_initialized_on_first_call():
    link = L.Linear(None, 3)
    hook = link_hooks.SpectralNormalization(n_power_iteration=300)
    link.add_hook(hook)
    assert not hasattr(link, 'W_u')
    x = numpy.random.RandomState(0).normal(size=(2, 2, 4)).astype(
        numpy.float32)
    y = link(x)
    assert link.W.shape == (3, 8)
    assert link.W_u.shape == (3,)
    expected = F.linear(x, link.W.array / _top_singular_value(link.W.array),
                        link.b).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_sn_delete_hook_removes_u():
    link, hook, x = _sn_link('linear', use_gamma=True)
    link.delete_hook('SpectralNormalization')
    assert not hasattr(link, 'W_u') and 'W_u' not in link._persistent
    assert not hasattr(link, 'gamma')
    assert sorted(name for name, _ in link.namedparams()) == ['/W', '/b']


def test_sn_errors():
    with pytest.raises(ValueError, match='n_power_iteration must be at least'):
        link_hooks.SpectralNormalization(n_power_iteration=0)
    with pytest.raises(ValueError, match="no weight Parameter 'V'"):
        L.Linear(2, 3).add_hook(link_hooks.SpectralNormalization(
            weight_name='V'))
    with pytest.raises(ValueError, match='not as a global hook'):
        with link_hooks.SpectralNormalization():
            pass
    hook = link_hooks.SpectralNormalization(name='sn1')
    assert hook.name == 'sn1'


def test_sn_u_is_serialized(tmp_path):
    from cpuframe import serializers
    link, hook, x = _sn_link('linear')
    link(x)
    serializers.save_npz(str(tmp_path / 'sn.npz'), link)
    other, _, _ = _sn_link('linear')
    serializers.load_npz(str(tmp_path / 'sn.npz'), other)
    numpy.testing.assert_array_equal(other.W_u, link.W_u)


def test_sn_recovers_after_a_failing_forward():
    link, hook, x = _sn_link('linear')
    W_param = link.W
    with pytest.raises(TypeError, match='LinearFunction'):
        link(numpy.zeros((2, 4), numpy.float32))     # wrong in_size
    assert link.W is not W_param                      # left normalized...
    y = link(x)                                       # ...until next call
    assert link.W is W_param
    F.sum(y).backward()
    assert W_param.grad is not None
