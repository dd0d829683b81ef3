"""variable.final_leaf_gradients: backward announces each leaf's gradient
as soon as every use of the leaf has contributed (what cpuframe.mn's
overlapped allreduce starts buckets from), without changing any gradient,
and counts nothing when no one listens."""
import threading
from unittest import mock

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import variable
from cpuframe.variable import final_leaf_gradients


class _Net(cpuframe.Chain):
    """``b`` is used twice (its gradient is final only after both uses);
    ``unused`` takes no part."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = L.Linear(4, 5)
            self.b = L.Linear(5, 5)
            self.c = L.Linear(5, 2)
            self.unused = L.Linear(2, 2)

    def forward(self, x):
        h = F.relu(self.a(x))
        h = F.tanh(self.b(h))
        h = F.tanh(self.b(h))
        return F.sum(self.c(h) * self.c(h))


def _grads(net):
    return {n: None if p.grad is None else numpy.array(p.grad)
            for n, p in net.namedparams()}


@pytest.mark.parametrize('device', ['@numpy', '@intel64'])
def test_each_used_leaf_is_announced_once_with_its_final_gradient(device):
    if device == '@intel64':
        from cpuframe.backends import intel64
        if not intel64.is_ideep_available():
            pytest.skip('needs the native module')
    numpy.random.seed(0)
    net = _Net().to_device(device)
    x = cpuframe.get_device(device).send(
        numpy.random.rand(3, 4).astype(numpy.float32))
    net.cleargrads()
    net(x).backward()
    want = _grads(net)
    net.cleargrads()
    names = {id(p): n for n, p in net.namedparams()}
    seen = []

    def listener(v):
        # the gradient is set when announced, and is already the final one
        seen.append(names[id(v)])
        numpy.testing.assert_array_equal(numpy.asarray(v.grad),
                                         want[names[id(v)]])

    with final_leaf_gradients(listener):
        net(x).backward()
    assert sorted(seen) == sorted(n for n in want
                                  if not n.startswith('/unused'))
    assert len(seen) == len(set(seen))
    # c (nearest the loss) first, a (farthest) last; b after c
    assert seen.index('/c/W') < seen.index('/b/W') < seen.index('/a/W')
    for n, g in _grads(net).items():
        if want[n] is None:
            assert g is None
        else:
            numpy.testing.assert_array_equal(g, want[n])


def test_gradients_accumulate_onto_existing_ones_as_without_a_listener():
    numpy.random.seed(1)
    net = _Net()
    x = numpy.random.rand(3, 4).astype(numpy.float32)
    net.cleargrads()
    net(x).backward()
    net(x).backward()
    want = _grads(net)
    net.cleargrads()
    net(x).backward()
    with final_leaf_gradients(lambda v: None):
        net(x).backward()
    for n, g in _grads(net).items():
        if want[n] is not None:
            numpy.testing.assert_array_equal(g, want[n])


def test_a_leaf_shared_by_two_variables_keeps_its_own_gradient_array():
    a = cpuframe.Variable(numpy.ones(3, numpy.float32))
    b = cpuframe.Variable(numpy.ones(3, numpy.float32))
    with final_leaf_gradients(lambda v: None):
        F.sum(a + b).backward()
    assert a.grad is not b.grad
    a.grad[...] = 5
    numpy.testing.assert_array_equal(b.grad, numpy.ones(3))


def test_nothing_is_counted_without_a_listener():
    x = cpuframe.Variable(numpy.ones(3, numpy.float32))
    with mock.patch.object(variable, '_leaf_uses',
                           side_effect=AssertionError('counted')):
        F.sum(x * x).backward()
    numpy.testing.assert_array_equal(x.grad, 2 * numpy.ones(3))


def test_listeners_nest_and_are_per_thread():
    outer, inner, other = [], [], []
    x = cpuframe.Variable(numpy.ones(2, numpy.float32), name='x')

    def in_thread():
        y = cpuframe.Variable(numpy.ones(2, numpy.float32))
        F.sum(y * 2).backward()
        other.append(y.grad is not None)

    with final_leaf_gradients(outer.append):
        with final_leaf_gradients(inner.append):
            F.sum(x * 3).backward()
            t = threading.Thread(target=in_thread)
            t.start()
            t.join()
        x.cleargrad()
        F.sum(x * 3).backward()
    assert inner == [x] and outer == [x] and other == [True]
    assert variable._final_leaf_listener.fn is None


def test_grad_and_double_backprop_are_unchanged():
    x = cpuframe.Variable(numpy.array([1.0, 2.0], numpy.float32))
    with final_leaf_gradients(lambda v: None):
        y = F.sum(x ** 3)
        gx, = cpuframe.grad([y], [x], enable_double_backprop=True)
        F.sum(gx).backward()
    numpy.testing.assert_allclose(gx.array, [3.0, 12.0])
    numpy.testing.assert_allclose(x.grad, [6.0, 12.0])
