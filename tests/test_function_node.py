import gc

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import FunctionNode, Variable
from cpuframe.backends import intel64
from cpuframe.utils import type_check


def _arr(*shape, seed=0, dtype=numpy.float32):
    return numpy.random.RandomState(seed).uniform(0.5, 1.5, shape).astype(dtype)


class Cube(FunctionNode):
    """y = x^3 with a differentiable backward (3 x^2 gy)."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].ndim >= 1)

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 3,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * 3 * x * x,


class TestApply:
    def test_outputs_and_graph(self):
        x = Variable(_arr(3))
        f = Cube()
        y, = f.apply((x,))
        assert y.creator_node is f and y.creator is f
        assert f.inputs == (x.node,)
        assert f.outputs[0]() is y.node
        numpy.testing.assert_allclose(y.array, x.array ** 3)

    def test_array_inputs_are_constants(self):
        # recorded (as Chainer 7 does whenever backprop is on), but nothing
        # to differentiate
        y, = Cube().apply((_arr(3),))
        assert y.creator is not None and not y.requires_grad
        assert y.creator.inputs[0].requires_grad is False

    def test_forward_must_return_tuple(self):
        class Bad(FunctionNode):
            def forward(self, inputs):
                return inputs[0]

        with pytest.raises(TypeError, match='Bad.forward: expected a tuple'):
            Bad().apply((_arr(2),))

    def test_backward_gradient_shape_checked(self):
        class WrongShape(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, indexes, gys):
                return Variable(numpy.ones(5, numpy.float32)),

        x = Variable(_arr(3))
        y, = WrongShape().apply((x,))
        with pytest.raises(ValueError, match=r'WrongShape.backward.*shape'):
            F.sum(y).backward()

    def test_missing_backward_names_function(self):
        class NoBackward(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

        x = Variable(_arr(3))
        y, = NoBackward().apply((x,))
        with pytest.raises(NotImplementedError, match='NoBackward'):
            F.sum(y).backward()


class TestTypeCheck:
    def test_message_names_function_expectation_and_actual(self):
        with pytest.raises(type_check.InvalidType) as e:
            Cube().apply((numpy.arange(3),))
        msg = str(e.value)
        assert 'Invalid operation is performed in: Cube (Forward)' in msg
        assert "Expect: x.dtype.kind == 'f'" in msg
        assert "Actual: 'i' != 'f'" in msg

    def test_ndim_message(self):
        with pytest.raises(type_check.InvalidType) as e:
            Cube().apply((numpy.array(1, numpy.float32),))
        assert 'Expect: x.ndim >= 1' in str(e.value)
        assert 'Actual: 0 < 1' in str(e.value)

    def test_check_runs_before_forward(self):
        ran = []

        class Checked(Cube):
            def forward(self, inputs):
                ran.append(True)
                return super().forward(inputs)

        with pytest.raises(type_check.InvalidType):
            Checked().apply((numpy.arange(3),))
        assert not ran

    def test_disabled_type_check(self):
        with cpuframe.using_config('type_check', False):
            y, = Cube().apply((numpy.arange(3),))
        numpy.testing.assert_array_equal(y.array, numpy.arange(3) ** 3)

    def test_wrong_argument_count(self):
        with pytest.raises(type_check.InvalidType, match='Invalid number'):
            Cube().apply((_arr(2), _arr(2)))


class TestRetention:
    def test_retained_outputs(self):
        class Exp(FunctionNode):
            def forward(self, inputs):
                self.retain_outputs((0,))
                return numpy.exp(inputs[0]),

            def backward(self, indexes, gys):
                y, = self.get_retained_outputs()
                return gys[0] * y,

        x = Variable(_arr(3))
        y, = Exp().apply((x,))
        z = F.sum(y * 2)
        del y
        gc.collect()
        z.backward()
        numpy.testing.assert_allclose(x.grad, 2 * numpy.exp(x.array), rtol=1e-6)

    def test_retained_input_variable_is_graph_connected(self):
        x = Variable(_arr(3))
        f = Cube()
        f.apply((x,))
        retained, = f.get_retained_inputs()
        assert retained is x


class TestDoubleBackprop:
    def test_second_derivative_via_grad(self):
        x = Variable(_arr(4))
        y, = Cube().apply((x,))
        gx, = cpuframe.grad([F.sum(y)], [x], enable_double_backprop=True)
        numpy.testing.assert_allclose(gx.array, 3 * x.array ** 2, rtol=1e-6)
        ggx, = cpuframe.grad([F.sum(gx)], [x])
        numpy.testing.assert_allclose(ggx.array, 6 * x.array, rtol=1e-6)

    def test_backward_with_enable_double_backprop(self):
        x = Variable(_arr(4))
        y, = Cube().apply((x,))
        F.sum(y).backward(enable_double_backprop=True)
        gx = x.grad_var
        assert gx.creator is not None
        x.cleargrad()
        F.sum(gx).backward()
        numpy.testing.assert_allclose(x.grad, 6 * x.array, rtol=1e-6)

    def test_no_double_backprop_by_default(self):
        x = Variable(_arr(4))
        y, = Cube().apply((x,))
        F.sum(y).backward()
        assert x.grad_var.creator is None


class TestGrad:
    def test_matches_backward_and_leaves_grads_alone(self):
        x = Variable(_arr(3))
        w = Variable(_arr(3, seed=1))
        y = F.sum(x * w * w)
        gx, gw = cpuframe.grad([y], [x, w])
        assert x.grad is None and w.grad is None
        numpy.testing.assert_allclose(gx.array, w.array ** 2, rtol=1e-6)
        numpy.testing.assert_allclose(gw.array, 2 * x.array * w.array, rtol=1e-6)

    def test_intermediate_input_and_pruning(self):
        calls = []

        class Spy(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 1,

            def backward(self, indexes, gys):
                calls.append(1)
                return gys[0],

        x = Variable(_arr(3))
        h, = Spy().apply((x,))
        y = F.sum(h * h)
        gh, = cpuframe.grad([y], [h])
        numpy.testing.assert_allclose(gh.array, 2 * h.array, rtol=1e-6)
        assert calls == []        # nothing behind h is walked

    def test_unreachable_input_gives_none(self):
        x = Variable(_arr(3))
        z = Variable(_arr(3))
        gx, gz = cpuframe.grad([F.sum(x * 2)], [x, z])
        assert gz is None
        numpy.testing.assert_allclose(gx.array, numpy.full(3, 2, numpy.float32))

    def test_grad_outputs_and_set_grad(self):
        x = Variable(_arr(3))
        y = x * 3
        gy = numpy.array([1, 2, 3], numpy.float32)
        gx, = cpuframe.grad([y], [x], grad_outputs=[gy], set_grad=True)
        numpy.testing.assert_allclose(gx.array, 3 * gy)
        assert x.grad_var is gx

    def test_argument_errors(self):
        x = Variable(_arr(3))
        with pytest.raises(TypeError, match='grad: expected outputs'):
            cpuframe.grad(x, [x])


class TestBackpropMode:
    def test_no_backprop_mode(self):
        x = Variable(_arr(3))
        with cpuframe.no_backprop_mode():
            y = x * 2
            # no graph; requires_grad follows the inputs (as Chainer 7)
            assert y.creator is None and y.requires_grad
            with cpuframe.force_backprop_mode():
                z = x * 2
                assert z.creator is not None
        assert (x * 2).creator is not None

    def test_enable_backprop_config(self):
        x = Variable(_arr(3))
        with cpuframe.using_config('enable_backprop', False):
            assert (x * 2).creator is None


class TestDebugMode:
    def test_forward_nan_names_function(self):
        x = Variable(numpy.array([1.0, 0.0], numpy.float32))
        zero = Variable(numpy.zeros(2, numpy.float32))
        with cpuframe.using_config('debug', True):
            with pytest.raises(RuntimeError, match=r'forward computation of _ / _'):
                with numpy.errstate(all='ignore'):
                    x / zero
        with numpy.errstate(all='ignore'):
            y = x / zero           # no check outside debug mode
        assert numpy.isnan(y.array[1])

    def test_backward_nan_names_function(self):
        class BadGrad(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 1,

            def backward(self, indexes, gys):
                return Variable(numpy.full(gys[0].shape, numpy.nan,
                                           numpy.float32)),

        x = Variable(_arr(2))
        with cpuframe.using_config('debug', True):
            y, = BadGrad().apply((x,))
            with pytest.raises(RuntimeError, match='backward computation of BadGrad'):
                F.sum(y).backward()


class Routed(FunctionNode):
    """Records which route ran."""

    profitable = True

    def __init__(self, log):
        self.log = log

    def intel64_supports(self, inputs):
        return inputs[0].dtype == numpy.float32

    def intel64_profitable(self, inputs):
        return self.profitable

    def forward_cpu(self, inputs):
        self.log.append('numpy')
        return inputs[0] * 2,

    def forward_intel64(self, inputs):
        self.log.append('intel64')
        return inputs[0] * 2,


class TestIntel64RouteChoice:
    @pytest.fixture
    def available(self, monkeypatch):
        monkeypatch.setattr(intel64, 'is_ideep_available', lambda: True)

    @pytest.mark.parametrize('mode,dtype,profitable,expected', [
        ('never', numpy.float32, True, 'numpy'),
        ('auto', numpy.float32, True, 'intel64'),
        ('auto', numpy.float32, False, 'numpy'),
        ('auto', numpy.float64, True, 'numpy'),
        ('always', numpy.float32, False, 'intel64'),
        ('always', numpy.float64, True, 'numpy'),
    ])
    def test_mode(self, available, mode, dtype, profitable, expected):
        log = []
        f = Routed(log)
        f.profitable = profitable
        with cpuframe.using_config('use_ideep', mode):
            f.apply((numpy.ones(3, dtype),))
        assert log == [expected]

    def test_unavailable(self, monkeypatch):
        monkeypatch.setattr(intel64, 'is_ideep_available', lambda: False)
        monkeypatch.setattr(cpuframe._native, 'load_error', lambda: 'test reason')
        log = []
        with cpuframe.using_config('use_ideep', 'auto'):
            Routed(log).apply((numpy.ones(3, numpy.float32),))
        assert log == ['numpy']
        with cpuframe.using_config('use_ideep', 'always'):
            with pytest.raises(RuntimeError, match='test reason'):
                Routed(log).apply((numpy.ones(3, numpy.float32),))

    def test_ops_without_route_never_ask(self, available):
        with cpuframe.using_config('use_ideep', 'always'):
            y, = Cube().apply((_arr(2),))
        numpy.testing.assert_allclose(y.array, _arr(2) ** 3, rtol=1e-6)


class TestOldStyleFunction:
    class Square(cpuframe.Function):
        def forward_cpu(self, inputs):
            return inputs[0] ** 2,

        def backward_cpu(self, inputs, grad_outputs):
            return 2 * inputs[0] * grad_outputs[0],

    class TwoOut(cpuframe.Function):
        def check_type_forward(self, in_types):
            type_check.expect(in_types.size() == 1)

        def forward(self, inputs):
            self.retain_inputs(())
            x, = inputs
            return x * 2, x * 3

        def backward(self, inputs, grad_outputs):
            assert inputs == (None,)
            g0, g1 = grad_outputs
            return 2 * g0 + 3 * g1,

    def test_forward_backward(self):
        x = Variable(_arr(3))
        y = self.Square()(x)
        assert isinstance(y, Variable)
        assert isinstance(y.creator, self.Square)
        F.sum(y).backward()
        numpy.testing.assert_allclose(x.grad, 2 * x.array, rtol=1e-6)

    def test_multiple_outputs_and_unused_output(self):
        x = Variable(_arr(3))
        a, b = self.TwoOut()(x)
        F.sum(b).backward()      # a's gradient is zero-filled
        numpy.testing.assert_allclose(x.grad, numpy.full(3, 3, numpy.float32))

    def test_type_check_message(self):
        with pytest.raises(type_check.InvalidType, match='TwoOut'):
            self.TwoOut()(_arr(1), _arr(1))
