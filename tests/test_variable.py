import gc
import pickle
import weakref

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import Parameter, Variable, initializers


def _arr(*shape, dtype=numpy.float32, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


class TestAttributes:
    def test_array_and_data_alias(self):
        a = _arr(2, 3)
        v = Variable(a)
        assert v.array is a and v.data is a
        b = _arr(4)
        v.data = b
        assert v.array is b and v.shape == (4,)

    def test_shape_ndim_size_dtype_len(self):
        v = Variable(_arr(2, 3, 4, dtype=numpy.float64))
        assert (v.shape, v.ndim, v.size, v.dtype, len(v)) == \
            ((2, 3, 4), 3, 24, numpy.float64, 2)

    def test_len_of_scalar_raises(self):
        with pytest.raises(TypeError):
            len(Variable(numpy.array(1.0, numpy.float32)))

    def test_T(self):
        a = _arr(2, 3)
        numpy.testing.assert_array_equal(Variable(a).T.array, a.T)

    def test_rejects_non_arrays(self):
        with pytest.raises(TypeError, match='Variable: expected an array'):
            Variable([1.0, 2.0])
        with pytest.raises(TypeError, match='Variable'):
            Variable(Variable(_arr(2)))

    def test_name_and_repr(self):
        v = Variable(numpy.array([1.0, 2.0], numpy.float32), name='x')
        assert v.name == 'x'
        assert repr(v) == 'variable x([1., 2.])'
        assert str(v) == 'variable x([1. 2.])'
        assert repr(Variable(numpy.array([3.0], numpy.float32))) == \
            'variable([3.])'
        assert repr(Variable()) == 'variable(None)'

    def test_bool_is_ambiguous(self):
        with pytest.raises(TypeError, match='ambiguous'):
            bool(Variable(_arr(1)))


class TestGrad:
    def test_grad_setter_checks_shape_and_dtype(self):
        v = Variable(_arr(2, 3))
        with pytest.raises(ValueError, match=r'shape \(2, 3\)'):
            v.grad = _arr(3, 2)
        with pytest.raises(ValueError, match='dtype float32'):
            v.grad = _arr(2, 3, dtype=numpy.float64)
        g = _arr(2, 3)
        v.grad = g
        assert v.grad is g and isinstance(v.grad_var, Variable)

    def test_cleargrad_zerograd(self):
        v = Variable(_arr(2))
        v.zerograd()
        numpy.testing.assert_array_equal(v.grad, numpy.zeros(2, numpy.float32))
        v.cleargrad()
        assert v.grad is None and v.grad_var is None

    def test_backward_accumulates_into_leaf(self):
        x = Variable(_arr(3))
        y = F.sum(x * 2)
        y.backward()
        y = F.sum(x * 3)
        y.backward()
        numpy.testing.assert_allclose(x.grad, numpy.full(3, 5, numpy.float32))

    def test_backward_needs_grad_for_non_scalar(self):
        x = Variable(_arr(3))
        y = x * 2
        with pytest.raises(ValueError, match='initial gradient'):
            y.backward()
        y.grad = numpy.ones(3, numpy.float32)
        y.backward()
        numpy.testing.assert_allclose(x.grad, numpy.full(3, 2, numpy.float32))

    def test_requires_grad_false(self):
        x = Variable(_arr(3), requires_grad=False)
        w = Variable(_arr(3, seed=1))
        F.sum(x * w).backward()
        assert x.grad is None
        numpy.testing.assert_allclose(w.grad, x.array)
        y = x * 2  # recorded (as Chainer 7), nothing to differentiate
        assert y.creator is not None and not y.requires_grad

    def test_retain_grad(self):
        x = Variable(_arr(3))
        h = x * 3
        y = F.sum(h * h)
        y.backward()
        assert h.grad is None
        x.cleargrad()
        y.backward(retain_grad=True)
        numpy.testing.assert_allclose(h.grad, 2 * h.array, rtol=1e-6)
        numpy.testing.assert_allclose(x.grad, 18 * x.array, rtol=1e-6)

    def test_loss_scale(self):
        x = Variable(_arr(3))
        F.sum(x * x).backward(loss_scale=8.0)
        numpy.testing.assert_allclose(x.grad, 16 * x.array, rtol=1e-6)
        assert x._loss_scale == 8.0

    def test_backward_on_leaf_is_noop(self):
        x = Variable(numpy.array(1.0, numpy.float32))
        x.backward()
        assert x.grad is None


class TestGraphOrder:
    def test_diamond_visits_each_node_once(self):
        calls = []

        class Counting(cpuframe.FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, indexes, gys):
                calls.append(self)
                return gys[0] * 2,

        x = Variable(_arr(3))
        h = Counting().apply((x,))[0]
        a = h * 3
        b = h * 5
        y = F.sum(a * b)
        y.backward()
        assert len(calls) == 1
        # y = 15 h^2, h = 2x  =>  dy/dx = 30 h * 2
        numpy.testing.assert_allclose(x.grad, 60 * h.array, rtol=1e-5)

    def test_variable_used_several_times(self):
        x = Variable(_arr(4))
        y = F.sum(x * x + x + x)
        y.backward()
        numpy.testing.assert_allclose(x.grad, 2 * x.array + 2, rtol=1e-6)

    def test_shared_subgraph_deep(self):
        x = Variable(_arr(3))
        h = x
        for _ in range(5):
            h = h * 1.5 + h * 0.5     # h doubles each step
        F.sum(h).backward()
        numpy.testing.assert_allclose(x.grad, numpy.full(3, 32, numpy.float32))

    def test_long_chain_no_recursion(self):
        x = Variable(numpy.ones(2, numpy.float32))
        h = x
        for _ in range(5000):
            h = h + 1
        F.sum(h).backward()
        numpy.testing.assert_array_equal(x.grad, numpy.ones(2, numpy.float32))

    def test_ranks_increase(self):
        x = Variable(_arr(2))
        y = x * 2
        z = y * 3
        assert x.rank == 0 and y.rank == 1 and z.rank == 2
        assert z.creator_node.rank == 1


class TestBufferRelease:
    def test_unretained_intermediate_array_is_freed(self):
        x = Variable(_arr(1000))
        h = x + 1          # Add retains nothing
        ref = weakref.ref(h.array)
        y = h * 2.0        # MulConstant retains nothing
        del h
        gc.collect()
        assert ref() is None
        F.sum(y).backward()
        numpy.testing.assert_allclose(x.grad, numpy.full(1000, 2, numpy.float32))

    def test_retained_input_survives_and_backward_uses_it(self):
        x = Variable(_arr(1000))
        h = x + 1
        ref = weakref.ref(h.array)
        y = h * h          # Mul retains both inputs
        expected = 2 * h.array
        del h
        gc.collect()
        assert ref() is not None
        F.sum(y).backward()
        numpy.testing.assert_allclose(x.grad, expected, rtol=1e-6)

    def test_no_graph_no_retention(self):
        x = Variable(_arr(1000))
        with cpuframe.no_backprop_mode():
            h = x + 1
            ref = weakref.ref(h.array)
            y = h * h
        del h
        gc.collect()
        assert ref() is None and y.creator is None


class TestUnchain:
    def test_unchain(self):
        x = Variable(_arr(3))
        h = x * 2
        y = F.sum(h * 3)
        h.unchain()
        assert h.creator is None
        y.backward()
        assert x.grad is None
        numpy.testing.assert_allclose(h.grad, numpy.full(3, 3, numpy.float32))

    def test_unchain_backward(self):
        x = Variable(_arr(3))
        h = x * 2
        y = h * 3
        func = h.creator_node
        y.unchain_backward()
        assert y.creator is None and h.creator is None
        assert func.inputs is None


class TestMethodsAndOperators:
    def test_reshape_transpose_getitem(self):
        a = _arr(2, 3)
        v = Variable(a)
        numpy.testing.assert_array_equal(v.reshape(3, 2).array, a.reshape(3, 2))
        numpy.testing.assert_array_equal(v.reshape((6,)).array, a.reshape(6))
        numpy.testing.assert_array_equal(v.transpose().array, a.T)
        numpy.testing.assert_array_equal(v.transpose(1, 0).array, a.T)
        numpy.testing.assert_array_equal(v[1, ::-1].array, a[1, ::-1])

    def test_operators_with_scalars_and_arrays(self):
        a = _arr(2, 3) + 2
        b = _arr(2, 3, seed=1) + 2
        x, y = Variable(a), Variable(b)
        cases = [
            (x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b),
            (x ** y, a ** b), (-x, -a), (abs(x - 2), abs(a - 2)),
            (x + 2, a + 2), (2 + x, 2 + a), (x - 2, a - 2), (2 - x, 2 - a),
            (x * 2, a * 2), (2 * x, 2 * a), (x / 2, a / 2), (2 / x, 2 / a),
            (x ** 2, a ** 2), (2 ** x, 2 ** a), (x + b, a + b), (b + x, b + a),
            (x @ y.T, a @ b.T), (a @ y.T, a @ b.T),
        ]
        for v, expected in cases:
            assert isinstance(v, Variable)
            assert v.dtype == numpy.float32
            numpy.testing.assert_allclose(v.array, expected, rtol=1e-5)

    def test_operator_rejects_other_types(self):
        with pytest.raises(TypeError, match='__add__'):
            Variable(_arr(2)) + 'a'
        # An array of another dtype is cast to the Variable's (Chainer 7).
        assert (Variable(_arr(2)) + numpy.ones(2)).dtype == numpy.float32


class TestDevices:
    def test_to_cpu_and_device(self):
        v = Variable(_arr(2))
        v.grad = _arr(2)
        v.to_cpu()
        v.to_device('@numpy')
        assert isinstance(v.array, numpy.ndarray)
        assert v.device == cpuframe.backend.CpuDevice()
        assert v.xp is numpy


class TestParameter:
    def test_initializer_and_lazy(self):
        p = Parameter(initializers.Constant(3.0))
        assert p.array is None and not p.is_initialized
        assert p.dtype == numpy.float32
        p.initialize((2, 3))
        numpy.testing.assert_array_equal(p.array, numpy.full((2, 3), 3, numpy.float32))
        # As in Chainer: the gradient is NaN-filled when the array is made.
        assert p.grad.shape == (2, 3) and numpy.isnan(p.grad).all()

    def test_scalar_array_and_default(self):
        p = Parameter(2.0, (3,))
        numpy.testing.assert_array_equal(p.array, numpy.full(3, 2, numpy.float32))
        a = _arr(4)
        q = Parameter(a)
        assert q.array is a
        r = Parameter(shape=(2,))
        assert numpy.isnan(r.array).all()

    def test_is_a_variable_in_graphs(self):
        p = Parameter(numpy.array([1.0, 2.0], numpy.float32))
        F.sum(p * p).backward()
        numpy.testing.assert_allclose(p.grad, [2.0, 4.0])

    def test_pickle(self):
        p = Parameter(numpy.array([1.0, 2.0], numpy.float32), name='w')
        q = pickle.loads(pickle.dumps(p))
        numpy.testing.assert_array_equal(q.array, p.array)
        assert q.name == 'w'
        assert repr(q).startswith('parameter w(')


def test_as_variable_and_as_array():
    a = _arr(2)
    v = cpuframe.as_variable(a)
    assert isinstance(v, Variable) and v.array is a and not v.requires_grad
    assert cpuframe.as_variable(v) is v
    assert cpuframe.as_array(v) is a and cpuframe.as_array(a) is a
    with pytest.raises(TypeError, match='as_variable'):
        cpuframe.as_variable([1, 2])


class TestLeafGradients:
    def test_leaves_own_writeable_gradients(self):
        a = Parameter(numpy.ones(3, numpy.float32))
        b = Parameter(numpy.ones(3, numpy.float32))
        F.sum(a + b).backward()      # Add hands the same (broadcast) array on
        assert a.grad is not b.grad
        a.grad *= 2                  # writeable, and b is unaffected
        numpy.testing.assert_array_equal(b.grad, numpy.ones(3, numpy.float32))

    def test_loss_scale_is_reset_by_a_plain_backward(self):
        x = Variable(_arr(3))
        F.sum(x * x).backward(loss_scale=4.0)
        assert x._loss_scale == 4.0
        x.cleargrad()
        F.sum(x * x).backward()
        assert x._loss_scale is None
