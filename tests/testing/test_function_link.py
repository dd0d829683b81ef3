"""FunctionTestCase and LinkTestCase on real cpuframe functions and links,
on the NumPy path and the Intel64 device (CUDA configs are skipped here)."""
import sys
import unittest

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import backend, initializers, testing
from cpuframe.backends import intel64

BACKENDS = [{}, {'use_ideep': 'always'}, {'use_cuda': True}]


@testing.parameterize(*testing.product({
    'shape': [(3, 4), (2, 3, 2)],
    'dtype': [numpy.float32, numpy.float64],
}))
@testing.inject_backend_tests(None, BACKENDS)
class TestReLU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}
            self.check_double_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        # The forward sees the arrays of the injected device.
        assert device == self.backend_config.device
        assert backend.get_device_from_array(x.array) == device or \
            x.dtype != numpy.float32
        return F.relu(x),

    def forward_expected(self, inputs):
        x, = inputs
        return numpy.maximum(x, 0).astype(self.dtype),


@testing.parameterize(*testing.product({
    'nobias': [False, True],
    'n_batch_axes': [1, 2],
}))
@testing.inject_backend_tests(None, BACKENDS)
class TestLinear(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 1e-5, 'rtol': 1e-4}
        self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}
        self.check_double_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def generate_inputs(self):
        batch = (2, 3)[:self.n_batch_axes]
        x = numpy.random.uniform(-1, 1, batch + (4,)).astype(numpy.float32)
        w = numpy.random.uniform(-1, 1, (5, 4)).astype(numpy.float32)
        if self.nobias:
            return x, w
        b = numpy.random.uniform(-1, 1, (5,)).astype(numpy.float32)
        return x, w, b

    def forward(self, inputs, device):
        return F.linear(*inputs, n_batch_axes=self.n_batch_axes),

    def forward_expected(self, inputs):
        x, w = inputs[:2]
        y = x.dot(w.T)
        if not self.nobias:
            y = y + inputs[2]
        return y.astype(numpy.float32),


@testing.parameterize(
    {'axis': None, 'keepdims': False},
    {'axis': 1, 'keepdims': False},
    {'axis': (0, 2), 'keepdims': True},
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSum(testing.FunctionTestCase):

    def setUp(self):
        self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}
        self.check_double_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, (2, 3, 4)).astype(numpy.float32),

    def forward(self, inputs, device):
        x, = inputs
        return F.sum(x, axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x, = inputs
        return numpy.asarray(
            x.sum(axis=self.axis, keepdims=self.keepdims)),


@testing.inject_backend_tests(None, BACKENDS)
class TestLinearLink(testing.LinkTestCase):

    param_names = ('W', 'b')

    def setUp(self):
        self.check_forward_options = {'atol': 1e-5, 'rtol': 1e-4}
        self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_params(self):
        w = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
        b = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
        return w, b

    def create_link(self, initializers):
        w, b = initializers
        return L.Linear(4, 3, initialW=w, initial_bias=b)

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32),

    def forward_expected(self, link, inputs):
        x, = inputs
        assert isinstance(link.W.array, numpy.ndarray)  # moved to the CPU
        return (x.dot(link.W.array.T) + link.b.array).astype(numpy.float32),


@testing.inject_backend_tests(None, [{}, {'use_ideep': 'always'}])
class TestLinearLinkInitializers(testing.LinkInitializersTestCase):

    param_names = ('W', 'b')

    def generate_params(self):
        return initializers.Constant(0.5), initializers.Constant(-1)

    def get_initializers(self):
        w = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
        return (
            [initializers.Constant(2.0), w, 3.0],
            [initializers.Zero(), initializers.Constant(7.0),
             testing.InitializerArgument(None, initializers.Zero())],
        )

    def create_link(self, initializers):
        w, b = initializers
        return L.Linear(4, 3, initialW=w, initial_bias=b)

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32),


# --- the harness fails when it should --------------------------------------

class _Sabotaged:
    """FunctionTestCases whose function or expectation is wrong."""

    __test__ = False  # run by the tests below, not collected

    def generate_inputs(self):
        return numpy.random.uniform(0.5, 1, (3, 2)).astype(numpy.float64),

    def forward(self, inputs, device):
        x, = inputs
        return F.tanh(x),

    def forward_expected(self, inputs):
        x, = inputs
        return numpy.tanh(x),


class _WrongExpected(_Sabotaged, testing.FunctionTestCase):
    def forward_expected(self, inputs):
        x, = inputs
        return numpy.tanh(x) + 1e-2,


class _WrongDtype(_Sabotaged, testing.FunctionTestCase):
    def forward_expected(self, inputs):
        x, = inputs
        return numpy.tanh(x).astype(numpy.float32),


class _WrongBackward(_Sabotaged, testing.FunctionTestCase):
    def forward(self, inputs, device):
        x, = inputs
        # Forward is tanh but the gradient flows as if it were identity.
        y = F.tanh(x)
        return x + (y - x).array,


class _ModifiesInput(_Sabotaged, testing.FunctionTestCase):
    def forward(self, inputs, device):
        x, = inputs
        y = F.tanh(x)
        x.array[...] = 0
        return y,


class _ReturnsArrays(_Sabotaged, testing.FunctionTestCase):
    def forward(self, inputs, device):
        x, = inputs
        return F.tanh(x).array,


def _run(case_cls, method, config=None):
    case = case_cls(method)
    getattr(case, method)(testing.BackendConfig(config or {}))


@pytest.mark.parametrize('config', [{}, {'use_ideep': 'always'}])
def test_wrong_forward_expected_fails(config):
    if config and not intel64.is_ideep_available():
        pytest.skip('no oneDNN')
    with pytest.raises(testing.FunctionTestError,
                       match='Outputs do not match'):
        _run(_WrongExpected, 'test_forward', config)
    # The correct version of the same test passes.
    _run(type('Right', (_Sabotaged, testing.FunctionTestCase), {}),
         'test_forward', config)


def test_wrong_dtype_fails():
    with pytest.raises(testing.FunctionTestError,
                       match='Shapes and/or dtypes do not match'):
        _run(_WrongDtype, 'test_forward')


def test_wrong_backward_fails():
    _run(_WrongBackward, 'test_forward')  # the forward values are right
    with pytest.raises(testing.FunctionTestError,
                       match='backward is not implemented correctly'):
        _run(_WrongBackward, 'test_backward')


def test_modified_input_fails():
    with pytest.raises(testing.FunctionTestError,
                       match='Input arrays have been modified'):
        _run(_ModifiesInput, 'test_forward')


def test_forward_returning_arrays_fails():
    with pytest.raises(testing.FunctionTestError,
                       match='must return a tuple of Variables'):
        _run(_ReturnsArrays, 'test_forward')


def test_generate_inputs_must_be_a_tuple():
    cls = type('T', (_Sabotaged, testing.FunctionTestCase), {
        'generate_inputs': lambda self: numpy.ones((2,))})
    with pytest.raises(TypeError, match='must return a tuple'):
        _run(cls, 'test_forward')


def test_skip_flags_skip():
    cls = type('T', (_Sabotaged, testing.FunctionTestCase), {
        'skip_forward_test': True, 'skip_backward_test': True,
        'skip_double_backward_test': True})
    for method in ('test_forward', 'test_backward', 'test_double_backward'):
        with pytest.raises(unittest.SkipTest):
            _run(cls, method)


def test_wrong_link_expectation_fails():
    cls = type('T', (TestLinearLink,), {
        'forward_expected': lambda self, link, inputs: (
            numpy.zeros((2, 3), numpy.float32),)})
    case = cls('test_forward')
    case.setUp()
    with pytest.raises(testing.LinkTestError, match='Outputs do not match'):
        case.test_forward(testing.BackendConfig({}))


def test_wrong_link_initializer_fails():
    cls = type('T', (TestLinearLinkInitializers,), {
        'get_initializers': lambda self: (
            [testing.InitializerArgument(None, initializers.One())],)})
    case = cls('test_initializers')
    with pytest.raises(testing.LinkTestError, match="'W' is not initialized"):
        case.test_initializers(testing.BackendConfig({}))


def test_link_with_wrong_param_gradient_fails():
    class Scale(L.Linear):
        def forward(self, x):
            # The bias gets no gradient (added as a constant).
            return F.linear(x, self.W) + self.b.array

    cls = type('T', (TestLinearLink,), {
        'create_link': lambda self, inits: Scale(
            4, 3, initialW=inits[0], initial_bias=inits[1])})
    case = cls('test_backward')
    case.setUp()
    with pytest.raises(testing.LinkTestError,
                       match='backward is not implemented correctly'):
        case.test_backward(testing.BackendConfig({}))


def test_dodge_nondifferentiable_regenerates_inputs():
    calls = []

    class T(testing.FunctionTestCase):
        dodge_nondifferentiable = True

        def generate_inputs(self):
            # The first draw sits on relu's kink; later ones do not.
            calls.append(None)
            if len(calls) == 1:
                return numpy.array([0.0, 0.5, -0.5]),
            return numpy.array([0.3, 0.5, -0.5]),

        def forward(self, inputs, device):
            return F.relu(inputs[0]),

        def forward_expected(self, inputs):
            return numpy.maximum(inputs[0], 0),

    _run(T, 'test_backward')
    assert len(calls) == 2

    calls.clear()
    T.dodge_nondifferentiable = False
    with pytest.raises(testing.FunctionTestError):
        _run(T, 'test_backward')


def test_uninjected_function_test_case_runs_on_numpy():
    devices = []

    class T(_Sabotaged, testing.FunctionTestCase):
        def forward(self, inputs, device):
            devices.append(device)
            return super().forward(inputs, device)

    _run_default = T('test_forward')
    _run_default.test_forward()
    assert devices == [backend.cpu_device]


def test_injected_classes_exist():
    module = sys.modules[__name__]
    names = [n for n, v in vars(module).items()
             if n.startswith('TestReLU_') and isinstance(v, type)]
    # 2 shapes x 2 dtypes x 3 backends, each a collected TestCase
    assert len(names) == 12
    assert all(getattr(module, n).__test__ for n in names)
    assert {n.split('_param_')[0] for n in names} == {
        'TestReLU__numpy', 'TestReLU__use_ideep_always',
        'TestReLU__use_cuda_true'}
    assert TestReLU.__test__ is False
    configs = {getattr(module, n)._backend_config.get_func_str()
               for n in names}
    assert len(configs) == 3


@testing.inject_backend_tests(None, BACKENDS)
class TestSelectItemWithIntegerInput(testing.FunctionTestCase):
    """An integer input: no gradient for it, none of its double gradient."""

    def setUp(self):
        self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-3}
        self.check_double_backward_options = {'atol': 1e-3, 'rtol': 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
        t = numpy.array([0, 2, 1, 2], numpy.int32)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        assert not t.requires_grad
        return F.select_item(x, t) * F.select_item(x, t),

    def forward_expected(self, inputs):
        x, t = inputs
        return x[numpy.arange(4), t] ** 2,


class _SquareWithConstantGrad(cpuframe.FunctionNode):
    """Square whose backward treats x as a constant: first-order gradients
    are right, second-order ones are not."""

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return x * x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (2.0 * x.array),


class _BrokenDoubleBackward(_Sabotaged, testing.FunctionTestCase):
    def forward(self, inputs, device):
        return _SquareWithConstantGrad().apply(inputs)

    def forward_expected(self, inputs):
        x, = inputs
        return x * x,


def test_wrong_double_backward_fails():
    _run(_BrokenDoubleBackward, 'test_forward')
    _run(_BrokenDoubleBackward, 'test_backward')
    with pytest.raises(testing.FunctionTestError,
                       match='double backward is not implemented correctly'):
        _run(_BrokenDoubleBackward, 'test_double_backward')
