import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import Parameter, initializers
from cpuframe.link import Chain, ChainList, Link


class Affine(Link):
    def __init__(self, n_in=None, n_out=3):
        super().__init__()
        self.n_out = n_out
        with self.init_scope():
            self.W = Parameter(initializers.Normal(1.0))
            self.b = Parameter(0.5, (n_out,))
        if n_in is not None:
            self.W.initialize((n_in, n_out))
        self.add_persistent('count', 0)
        self.add_persistent('stat', numpy.zeros(n_out, numpy.float32))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((x.shape[1], self.n_out))
        self.count += 1
        return F.matmul(x, self.W) + self.b


class Net(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(2, 4)
            self.l2 = Affine(4, 1)
            self.scale = Parameter(numpy.ones(1, numpy.float32))

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x))) * self.scale


def _x(n=5, d=2):
    return numpy.random.RandomState(0).uniform(-1, 1, (n, d)).astype(numpy.float32)


class TestRegistration:
    def test_params_and_names(self):
        net = Net()
        names = [n for n, _ in net.namedparams()]
        assert names == ['/scale', '/l1/W', '/l1/b', '/l2/W', '/l2/b']
        assert [n for n, _ in net.namedlinks()] == ['/', '/l1', '/l2']
        assert [n for n, _ in net.namedlinks(skipself=True)] == ['/l1', '/l2']
        assert list(net.children()) == [net.l1, net.l2]
        assert net.l1.W.name == 'W' and net.l1.name == 'l1'
        assert net.count_params() == 2 * 4 + 4 + 4 + 1 + 1

    def test_assignment_outside_scope_is_not_registered(self):
        link = Affine(2)
        link.extra = Parameter(numpy.zeros(1, numpy.float32))
        assert [n for n, _ in link.namedparams()] == ['/W', '/b']

    def test_delattr_unregisters(self):
        net = Net()
        del net.l2
        del net.scale
        assert [n for n, _ in net.namedparams()] == ['/l1/W', '/l1/b']

    def test_add_param_and_persistent_errors(self):
        link = Link()
        link.add_param('w', (2, 3))
        assert link.w.shape == (2, 3) and numpy.isnan(link.w.array).all()
        with pytest.raises(AttributeError, match="add_param.*'w'"):
            link.add_param('w', (1,))
        link.add_persistent('p', 1)
        with pytest.raises(AttributeError, match="add_persistent.*'p'"):
            link.add_persistent('p', 2)

    def test_lazy_initialization(self):
        link = Affine(None, 3)
        assert link.W.array is None
        assert [n for n, _ in link.namedparams(include_uninit=False)] == ['/b']
        y = link(_x(4, 6))
        assert link.W.shape == (6, 3) and y.shape == (4, 3)

    def test_chainlist(self):
        cl = ChainList(Affine(2, 3), Affine(3, 1))
        cl.append(Affine(1, 1))
        assert len(cl) == 3 and cl[1].name == '1'
        assert [n for n, _ in cl.namedparams()][:3] == ['/0/W', '/0/b', '/1/W']
        with pytest.raises(TypeError, match='add_link'):
            cl.append(lambda x: x)


class TestTraining:
    def test_forward_backward_cleargrads(self):
        net = Net()
        loss = F.sum(net(_x()))
        loss.backward()
        assert all(p.grad is not None for p in net.params())
        net.cleargrads()
        assert all(p.grad is None for p in net.params())
        net.zerograds()
        assert all((p.grad == 0).all() for p in net.params())

    def test_addgrads(self):
        a, b = Net(), Net()
        F.sum(a(_x())).backward()
        F.sum(b(_x())).backward()
        expected = {n: p.grad + dict(b.namedparams())[n].grad
                    for n, p in a.namedparams()}
        a.addgrads(b)
        for n, p in a.namedparams():
            numpy.testing.assert_allclose(p.grad, expected[n])


class TestCopy:
    @pytest.mark.parametrize('mode', ['share', 'copy', 'init'])
    def test_modes(self, mode):
        numpy.random.seed(0)
        net = Net()
        F.sum(net(_x())).backward()
        net.l1.stat[...] = 7
        c = net.copy(mode)
        assert c.l1 is not net.l1 and c.l1.W is not net.l1.W
        if mode == 'copy':
            # Chainer deep-copies the link, gradients included.
            numpy.testing.assert_array_equal(c.l1.W.grad, net.l1.W.grad)
            assert c.l1.W.grad is not net.l1.W.grad
        elif mode == 'init':
            # Re-initialized: a NaN-filled gradient, as at initialization.
            assert numpy.isnan(c.l1.W.grad).all()
        else:
            assert c.l1.W.grad is None
        assert [n for n, _ in c.namedparams()] == [n for n, _ in net.namedparams()]
        if mode == 'share':
            assert c.l1.W.array is net.l1.W.array
        elif mode == 'copy':
            assert c.l1.W.array is not net.l1.W.array
            numpy.testing.assert_array_equal(c.l1.W.array, net.l1.W.array)
        else:
            assert not numpy.array_equal(c.l1.W.array, net.l1.W.array)
            numpy.testing.assert_array_equal(c.l1.b.array, net.l1.b.array)
        if mode == 'share':
            # A shallow copy: persistent values are the same objects.
            assert c.l1.stat is net.l1.stat
        else:
            assert c.l1.stat is not net.l1.stat
            numpy.testing.assert_array_equal(c.l1.stat, net.l1.stat)
        # Updating the copy's graph leaves the original's grads alone.
        net.cleargrads()
        F.sum(c(_x())).backward()
        assert net.l1.W.grad is None

    def test_bad_mode(self):
        with pytest.raises(ValueError, match="'mode' argument should be"):
            Net().copy('deep')

    def test_copyparams(self):
        a, b = Net(), Net()
        b.l1.count = 5
        b.l1.stat[...] = 3
        a.copyparams(b)
        for (_, p), (_, q) in zip(a.namedparams(), b.namedparams()):
            numpy.testing.assert_array_equal(p.array, q.array)
            assert p.array is not q.array
        assert a.l1.count == 5 and (a.l1.stat == 3).all()

    def test_repeat(self):
        seq = Affine(3, 3).repeat(3)
        assert len(seq) == 3
        assert seq[0].W.array is not seq[1].W.array
        assert seq(_x(2, 3)).shape == (2, 3)


class TestDevice:
    def test_to_cpu_and_intel64_keep_values(self):
        net = Net()
        before = {n: p.array.copy() for n, p in net.namedparams()}
        net.to_cpu()
        assert net.device.name == '@numpy' and net.xp is numpy
        if cpuframe.backends.intel64.is_ideep_available():
            net.to_intel64()
            assert net.l1.device.name == '@intel64'
            net.to_cpu()
        for n, p in net.namedparams():
            numpy.testing.assert_array_equal(p.array, before[n])


def test_update_enable_disable():
    net = Net()
    assert net.update_enabled
    net.l1.disable_update()
    assert not net.l1.update_enabled and net.update_enabled
    net.disable_update()
    assert not net.update_enabled
    net.enable_update()
    assert net.update_enabled


def test_call_without_forward():
    with pytest.raises(TypeError, match='no forward'):
        Link()(1)


def test_repr():
    text = repr(Net())
    assert text.startswith('Net(') and '(l1): Affine()' in text


def test_name_sets_keep_their_order_between_changes():
    """Link._params and Chain._children: a set, iterated sorted; the kept
    order follows every way a set changes, and copies and pickles carry
    the names only."""
    import copy
    import pickle

    from cpuframe.link import _NameSet
    s = _NameSet(['b', 'a'])
    assert list(s) == ['a', 'b']
    steps = [
        (lambda: s.add('0'), ['0', 'a', 'b']),
        (lambda: s.append('c'), ['0', 'a', 'b', 'c']),
        (lambda: s.discard('a'), ['0', 'b', 'c']),
        (lambda: s.remove('0'), ['b', 'c']),
        (lambda: s.update(['d', 'a']), ['a', 'b', 'c', 'd']),
        (lambda: s.difference_update(['d']), ['a', 'b', 'c']),
        (lambda: s.intersection_update(['a', 'b', 'x']), ['a', 'b']),
        (lambda: s.symmetric_difference_update(['b', 'e']), ['a', 'e']),
        (lambda: s.__ior__({'f'}), ['a', 'e', 'f']),
        (lambda: s.__isub__({'e'}), ['a', 'f']),
        (lambda: s.__iand__({'a', 'f', 'g'}), ['a', 'f']),
        (lambda: s.__ixor__({'g'}), ['a', 'f', 'g']),
    ]
    for change, expected in steps:
        change()
        assert list(s) == expected and s == set(expected)
    popped = s.pop()
    assert list(s) == sorted({'a', 'f', 'g'} - {popped})
    for other in (copy.copy(s), copy.deepcopy(s), s.copy(),
                  pickle.loads(pickle.dumps(s))):
        assert type(other) is _NameSet and list(other) == list(s)
        other.add('z')
        assert list(other) == sorted(set(s) | {'z'}) and 'z' not in s
    s.clear()
    assert list(s) == [] and not s


def test_params_follow_registration_changes():
    import numpy

    import cpuframe
    import cpuframe.links as L
    chain = cpuframe.Chain()
    with chain.init_scope():
        chain.b = L.Linear(2, 3)
        chain.a = L.Linear(3, 4)
    assert [p.shape for p in chain.params()] == [(4, 3), (4,), (3, 2), (3,)]
    del chain.a
    assert [p.shape for p in chain.params()] == [(3, 2), (3,)]
    with chain.b.init_scope():
        chain.b.c = cpuframe.Parameter(numpy.zeros((5,), numpy.float32))
    assert [p.shape for p in chain.params()] == [(3, 2), (3,), (5,)]
    assert [n for n, _ in chain.namedparams()] == ['/b/W', '/b/b', '/b/c']


def test_name_set_changed_by_an_argument_that_reads_it():
    # (an iterator over the set itself, read inside the change: the order
    # kept is the set's after the change)
    from cpuframe.link import _NameSet
    s = _NameSet(['a', 'b'])

    def more():
        for n in s:
            yield n + '2'
    s.update(more())
    assert list(s) == ['a', 'a2', 'b', 'b2']
    s = _NameSet(['a', 'b', 'c'])

    def drop():
        yield from [n for n in s if n != 'a']
    s.difference_update(drop())
    assert list(s) == ['a']
