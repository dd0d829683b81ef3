"""dodge_nondifferentiable: kinks are found, smooth points are not
rejected."""
import numpy
import pytest

import cpuframe.functions as F
from cpuframe import testing
from cpuframe.backends import intel64
from cpuframe.testing import function_link

CONFIGS = [{}] + ([{'use_ideep': 'always'}]
                  if intel64.is_ideep_available() else [])


def _case(forward, expected, inputs, dtype=numpy.float32, **attrs):
    calls = []

    class T(testing.FunctionTestCase):
        dodge_nondifferentiable = True

        def setUp(self):
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}
            self.check_double_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

        def generate_inputs(self):
            calls.append(None)
            return tuple(numpy.asarray(a, dtype) for a in inputs(len(calls)))

        def forward(self, xs, device):
            return forward(*xs),

        def forward_expected(self, xs):
            return numpy.asarray(expected(*xs), dtype),

    for k, v in attrs.items():
        setattr(T, k, v)
    return T, calls


def _run(cls, method, config):
    case = cls(method)
    case.setUp()
    getattr(case, method)(testing.BackendConfig(config))


@pytest.mark.parametrize('config', CONFIGS)
@pytest.mark.parametrize('method', ['test_backward', 'test_double_backward'])
@pytest.mark.parametrize('func,expected,low,high', [
    (F.tanh, numpy.tanh, -3, 3),
    (F.exp, numpy.exp, 2, 4),  # large values and slopes
    (lambda x: F.sum(x * x), lambda x: (x * x).sum(), 5, 10),
    (F.sigmoid, lambda x: 1 / (1 + numpy.exp(-x)), -5, 5),
])
def test_smooth_functions_are_not_rejected(config, method, func, expected,
                                           low, high):
    def inputs(n):
        return (numpy.random.RandomState(n).uniform(low, high, (4, 5)),)
    cls, calls = _case(func, expected, inputs)
    _run(cls, method, config)
    assert len(calls) == 1


@pytest.mark.parametrize('config', CONFIGS)
def test_kink_of_a_reduction_is_dodged(config):
    # max over an axis is not differentiable where two entries tie.
    def inputs(n):
        if n < 3:
            return (numpy.array([[0.5, 0.5 + 2e-4, -1.0], [0.1, 0.2, 0.3]]),)
        return (numpy.array([[0.5, 0.9, -1.0], [0.1, 0.2, 0.3]]),)
    cls, calls = _case(lambda x: F.max(x, axis=1),
                       lambda x: x.max(axis=1), inputs)
    _run(cls, 'test_backward', config)
    assert len(calls) == 3


@pytest.mark.parametrize('config', CONFIGS)
def test_kink_of_the_first_derivative_is_dodged_in_double_backward(config):
    # relu's derivative jumps at 0: double backward near 0 is dodged too.
    def inputs(n):
        if n == 1:
            return (numpy.array([[1e-4, 0.5], [-0.5, 0.7]]),)
        return (numpy.array([[0.3, 0.5], [-0.5, 0.7]]),)
    cls, calls = _case(lambda x: F.relu(x) * F.relu(x),
                       lambda x: numpy.maximum(x, 0) ** 2, inputs)
    _run(cls, 'test_double_backward', config)
    assert len(calls) == 2


def test_gives_up_when_every_point_is_a_kink(monkeypatch):
    monkeypatch.setattr(function_link, '_MAX_DODGE_ATTEMPTS', 5)

    def inputs(n):
        return (numpy.zeros((2, 2)),)
    cls, calls = _case(F.relu, lambda x: numpy.maximum(x, 0), inputs)
    with pytest.raises(testing.FunctionTestError,
                       match='no differentiable point'):
        _run(cls, 'test_backward', {})
    assert len(calls) == 5


def test_link_dodges_too():
    import cpuframe.links as L
    calls = []

    class T(testing.LinkTestCase):
        dodge_nondifferentiable = True
        param_names = ('W', 'b')

        def setUp(self):
            self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

        def generate_params(self):
            return (numpy.eye(2, dtype=numpy.float32),
                    numpy.zeros(2, numpy.float32))

        def create_link(self, inits):
            return L.Linear(2, 2, initialW=inits[0], initial_bias=inits[1])

        def forward(self, link, inputs, device):
            return F.relu(link(*inputs)),

        def generate_inputs(self):
            calls.append(None)
            if len(calls) == 1:
                return numpy.array([[1e-4, 0.5]], numpy.float32),
            return numpy.array([[0.3, 0.5]], numpy.float32),

    case = T('test_backward')
    case.setUp()
    case.test_backward(testing.BackendConfig({}))
    # First point: a kink (regenerate); each check point creates the link
    # once (one generate_inputs call) and checks once.
    assert len(calls) == 2


@pytest.mark.parametrize('shapes', [[(1,)], [(3,), (2, 2)], [(5, 7)],
                                    [(2,), (), (4,)]])
def test_sign_directions_separate_every_pair(shapes):
    flat = [numpy.concatenate([d.ravel() for d in parts])
            for parts in function_link._sign_directions(shapes)]
    assert all(numpy.all(numpy.abs(f) == 1) for f in flat)
    n = len(flat[0])
    assert n == sum(int(numpy.prod(s)) for s in shapes)
    for i in range(n):
        for j in range(i + 1, n):
            assert any(f[i] != f[j] for f in flat)


def test_tie_between_two_inputs_is_dodged():
    calls = []

    class T(testing.FunctionTestCase):
        dodge_nondifferentiable = True

        def generate_inputs(self):
            calls.append(None)
            a = numpy.array([0.1, 0.7, -0.2, 0.4])
            b = numpy.array([0.5, -0.3, 0.9, 0.0])
            if len(calls) == 1:
                b[3] = a[3] + 1e-4  # a tie at the last element
            return a, b

        def forward(self, xs, device):
            return F.maximum(*xs),

        def forward_expected(self, xs):
            return numpy.maximum(*xs),

    _run(T, 'test_backward', {})
    assert len(calls) == 2


def test_smooth_function_of_many_inputs_is_not_rejected():
    # n_step_lstm with Chainer's own test options (eps 1e-2, two layers,
    # ~100 input elements): every element moving by eps at once bends the
    # outputs enough that the one-sided slopes differ by curvature alone;
    # that is not a kink (it falls 4x with half the step), so the first
    # generated point is checked (before: no point in 100 accepted).
    n_layers, batches, n_in, n_out = 2, [3, 2, 1], 3, 2
    calls = []

    def split(xs):
        h, c, rest = xs[0], xs[1], list(xs[2:])
        ws = [rest[8 * i:8 * i + 8] for i in range(n_layers)]
        rest = rest[8 * n_layers:]
        bs = [rest[8 * i:8 * i + 8] for i in range(n_layers)]
        return h, c, ws, bs, rest[8 * n_layers:]

    class T(testing.FunctionTestCase):
        dodge_nondifferentiable = True

        def setUp(self):
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3,
                                           'eps': 1e-2}
            self.skip_double_backward_test = True

        def generate_inputs(self):
            calls.append(None)
            rng = numpy.random.RandomState(len(calls))
            shape = (n_layers, batches[0], n_out)
            ws = [rng.uniform(-1, 1, (n_out, n_in if (i == 0 and j < 4)
                                      else n_out))
                  for i in range(n_layers) for j in range(8)]
            bs = [rng.uniform(-1, 1, (n_out,)) for _ in range(8 * n_layers)]
            xs = [rng.uniform(-1, 1, (b, n_in)) for b in batches]
            return tuple(numpy.asarray(a, numpy.float32) for a in
                         [rng.uniform(-1, 1, shape),
                          rng.uniform(-1, 1, shape)] + ws + bs + xs)

        def forward(self, xs, device):
            h, c, ws, bs, x = split(xs)
            hy, cy, ys = F.n_step_lstm(n_layers, 0.0, h, c, ws, bs, x)
            return (hy, cy) + tuple(ys)

        def forward_expected(self, xs):
            import cpuframe
            with cpuframe.no_backprop_mode():
                outs = self.forward(
                    tuple(cpuframe.Variable(a) for a in xs), None)
            return tuple(o.array for o in outs)

    _run(T, 'test_backward', {})
    assert len(calls) <= 3  # the forward test's point, then the first
