"""The route machinery's public pieces added for composite routes and
declared retention: ``FunctionNode.choose_intel64``,
``FunctionNode.retained_for_backward``, ``FunctionNode.donated_grad_input``,
``Device.elementwise_update`` and the 'auto' thresholds of
``backends.intel64``."""
import numpy
import pytest

import cpuframe
from cpuframe import FunctionNode, Variable
from cpuframe.backend import CpuDevice
from cpuframe.backends import intel64
from cpuframe.configuration import using_config


class Double(FunctionNode):
    """y = 2 x on both routes; backward reads the retained input's shape."""

    retained_for_backward = ((0,), ())

    def __init__(self):
        self.asked = 0

    def forward(self, inputs):
        return inputs[0] * 2,

    def intel64_supports(self, inputs):
        self.asked += 1
        return inputs[0].dtype == numpy.float32

    def forward_intel64(self, inputs):
        return intel64.to_numpy(inputs[0]) * 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        assert x.shape == grad_outputs[0].shape
        return grad_outputs[0] * 2,


needs_native = pytest.mark.skipif(not intel64.is_ideep_available(),
                                  reason='needs the native module')


@needs_native
def test_choose_intel64_answer_is_reused_by_the_next_apply():
    x = numpy.ones(3, numpy.float32)
    node = Double()
    with using_config('use_ideep', 'always'):
        assert node.choose_intel64((x,)) is True
        assert node.asked == 1
        node.apply((x,))
    assert node.asked == 1  # apply did not ask again


@needs_native
def test_choose_intel64_answer_is_not_reused_for_other_arrays():
    x, other = numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float32)
    node = Double()
    with using_config('use_ideep', 'always'):
        node.choose_intel64((x,))
        node.apply((other,))
    assert node.asked == 2


def test_choose_intel64_declines_with_never():
    node = Double()
    with using_config('use_ideep', 'never'):
        assert node.choose_intel64((numpy.ones(3, numpy.float32),)) is False


@pytest.mark.parametrize('mode', ['never', 'always'])
def test_declared_retention_holds_on_either_route(mode):
    if mode == 'always' and not intel64.is_ideep_available():
        pytest.skip('needs the native module')
    x = Variable(numpy.arange(3, dtype=numpy.float32))
    with using_config('use_ideep', mode):
        y, = Double().apply((x,))
        y.grad = numpy.ones(3, numpy.float32)
        y.backward()
    numpy.testing.assert_array_equal(x.grad, [2, 2, 2])


def test_without_declaration_nothing_is_retained():
    class Plain(Double):
        retained_for_backward = None

    x = Variable(numpy.arange(3, dtype=numpy.float32))
    node = Plain()
    with using_config('use_ideep', 'never'):
        node.apply((x,))
    assert node.get_retained_inputs() == ()


def test_donated_grad_input_is_none_outside_backward_accumulate():
    node = Double()
    g = Variable(numpy.ones(3, numpy.float32))
    assert node.donated_grad_input(0, (g,)) is None


def test_default_device_declines_elementwise_update():
    opt = cpuframe.optimizers.SGD(lr=0.5)
    link = cpuframe.links.Linear(2, 2)
    opt.setup(link)
    rule = link.W.update_rule
    assert CpuDevice().elementwise_update(rule, link.W) is False


@pytest.mark.parametrize('op', sorted(intel64.AUTO_MIN))
def test_auto_threshold_is_the_boundary(op):
    n = intel64.AUTO_MIN[op]
    assert intel64.auto_profitable(op, n)
    assert not intel64.auto_profitable(op, n - 1)
    assert intel64.auto_profitable(op, numpy.empty(n, numpy.float32))
    assert not intel64.auto_profitable(op, (n - 1,))


def test_auto_threshold_of_an_unknown_op_is_an_error():
    with pytest.raises(KeyError):
        intel64.auto_profitable('no_such_op', 10)


class _Watch:
    def __init__(self):
        self.seen = []

    def __call__(self, node, chosen):
        self.seen.append((type(node).__name__, chosen))

    def __enter__(self):
        from cpuframe import function_node
        self._previous = function_node._route_watch[0]
        function_node._route_watch[0] = self
        return self

    def __exit__(self, *exc):
        from cpuframe import function_node
        function_node._route_watch[0] = self._previous


@needs_native
@pytest.mark.parametrize('mode', ['never', 'auto', 'always'])
def test_route_watch_sees_every_choice(mode):
    # the diagnostic the harnesses count routes with: one report per op
    # that has a route, on NumPy inputs, device inputs and a composite
    # route asked beforehand, with the choice apply acted on
    big = numpy.ones((64, 1024), numpy.float32)
    small = numpy.ones((2, 3), numpy.float32)
    with using_config('use_ideep', mode), _Watch() as watch:
        Double().apply((small,))
        Double().apply((intel64.from_numpy(small),))
        y = Variable(intel64.from_numpy(big))
        cpuframe.functions.relu(y)
        node = Double()
        chosen = node.choose_intel64((small,))
        out, = node.apply((small,))
        cpuframe.functions.sin(Variable(small))     # no route: not reported
    names = [name for name, _ in watch.seen]
    assert names == ['Double', 'Double', 'ReLU', 'Double']
    assert watch.seen[3][1] == chosen
    if mode == 'never':
        # device arrays keep their route under 'never' (as documented)
        assert watch.seen[0][1] is False and watch.seen[1][1] is True
    if mode == 'always':
        assert all(c for _, c in watch.seen)
    numpy.testing.assert_array_equal(numpy.asarray(out.array), small * 2)
