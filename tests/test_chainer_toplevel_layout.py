"""Top-level names and modules of Chainer 7 that cpuframe provides."""
import importlib
import subprocess
import sys
import typing
import warnings

import numpy
import pytest

import cpuframe
from cpuframe import function, memory_layouts, types


def test_function_module_backprop_mode_aliases():
    assert function.no_backprop_mode is cpuframe.no_backprop_mode
    assert function.force_backprop_mode is cpuframe.force_backprop_mode
    with function.no_backprop_mode():
        assert not cpuframe.config.enable_backprop
        with function.force_backprop_mode():
            assert cpuframe.config.enable_backprop


def test_toplevel_modules():
    import cpuframe.functions.math.basic_math as bm
    assert cpuframe.basic_math is bm
    assert cpuframe.array is importlib.import_module('cpuframe.functions.array')
    assert issubclass(cpuframe.warnings.PerformanceWarning, RuntimeWarning)
    assert cpuframe.initializer.Initializer is cpuframe.Initializer
    assert cpuframe.types is types
    assert cpuframe.memory_layouts is memory_layouts
    assert repr(cpuframe.Fallback) == 'Fallback'


def test_import_stays_light():
    code = ('import sys, cpuframe; '
            'print(sorted(m for m in ("cpuframe.links", "cpuframe.training", '
            '"cpuframe.memory_layouts", "cpuframe.computational_graph") '
            'if m in sys.modules))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == '[]'


def test_array_types():
    assert numpy.ndarray in cpuframe.get_array_types()
    from cpuframe.backends import intel64
    assert cpuframe.get_cpu_array_types() == (
        (numpy.ndarray, intel64.mdarray) if intel64.is_ideep_available()
        else (numpy.ndarray,))
    a = numpy.zeros(2)
    assert cpuframe.is_arrays_compatible([a, None, numpy.ones(3)])
    assert cpuframe.is_arrays_compatible([])
    assert not cpuframe.is_arrays_compatible([a, [1, 2]])


def test_compute_mode_and_cudnn_queries():
    assert cpuframe.get_compute_mode() is None
    with cpuframe.using_config('compute_mode', 'cudnn_fast'):
        assert cpuframe.get_compute_mode() == 'cudnn_fast'
    assert cpuframe.should_use_cudnn('>=auto') is False
    assert cpuframe.should_use_cudnn('==always') is False
    with pytest.raises(ValueError, match='invalid cuDNN use level'):
        cpuframe.should_use_cudnn('always')
    assert cpuframe.should_use_cudnn_tensor_core(numpy.float16) is False
    with cpuframe.using_config('use_cudnn_tensor_core', 'always'):
        assert cpuframe.should_use_cudnn_tensor_core(numpy.float32) is True


def test_types_aliases():
    assert types.Shape == typing.Tuple[int, ...]
    assert types.ShapeSpec == typing.Union[int, typing.Sequence[int]]
    for name in ['ShapeSpec', 'DTypeSpec', 'NdArray', 'Xp', 'ScalarValue',
                 'InitializerSpec', 'DeviceSpec', 'CudaDeviceSpec',
                 'AbstractInitializer']:
        assert hasattr(types, name)


# -- chainer.backward -------------------------------------------------------------

def _var(values):
    return cpuframe.Variable(numpy.array(values, numpy.float32))


def test_backward_from_several_outputs():
    x = _var([1.0, 2.0])
    y1 = x * x
    y2 = x * 3
    cpuframe.backward([y1, y2], [numpy.ones(2, numpy.float32),
                                 numpy.full(2, 2, numpy.float32)])
    # d(sum y1) = 2x, d(2 * sum y2) = 6.
    numpy.testing.assert_allclose(x.grad, [8.0, 10.0])
    # Intermediate gradients are not retained.
    assert y1.grad is None


def test_backward_uses_and_clears_output_grads():
    x = _var([3.0])
    y = x * x
    y.grad = numpy.array([2.0], numpy.float32)
    cpuframe.backward((y,))
    numpy.testing.assert_allclose(x.grad, [12.0])
    assert y.grad is None


def test_backward_accumulates_into_leaf_grad():
    x = _var([1.0])
    x.grad = numpy.array([5.0], numpy.float32)
    cpuframe.backward([x * 2], [numpy.ones(1, numpy.float32)])
    numpy.testing.assert_allclose(x.grad, [7.0])


def test_backward_skips_none_and_warns_without_grad():
    x = _var([1.0])
    y = x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        cpuframe.backward([y])
    assert any(issubclass(i.category, RuntimeWarning) for i in w)
    assert x.grad is None


def test_backward_double_backprop():
    x = _var([2.0])
    y = x * x * x
    cpuframe.backward([y], [numpy.ones(1, numpy.float32)],
                      enable_double_backprop=True)
    gx = x.grad_var
    x.cleargrad()
    gx.backward()
    numpy.testing.assert_allclose(x.grad, [12.0])  # d(3x^2) = 6x


def test_backward_argument_errors():
    x = _var([1.0])
    with pytest.raises(TypeError, match='tuple or a list'):
        cpuframe.backward(x * 2)
    with pytest.raises(TypeError, match='must be a Variable'):
        cpuframe.backward([numpy.ones(1)])
    with pytest.raises(ValueError, match='same length'):
        cpuframe.backward([x * 2], [None, None])
    with pytest.raises(ValueError, match='loss_scale'):
        cpuframe.backward([x * 2], loss_scale=2)
    with pytest.raises(TypeError, match='unexpected keyword'):
        cpuframe.backward([x * 2], foo=1)


# -- memory_layouts -----------------------------------------------------------------

def test_memory_layouts():
    assert memory_layouts.CUDNN_CHANNEL_FIRST_X is None
    assert memory_layouts.CUDNN_CHANNEL_LAST_X == 'CUDNN_CHANNEL_LAST_X'
    a = numpy.zeros((2, 3, 4, 5))
    assert memory_layouts.get_raw_shape(cpuframe.Variable(a)) == (2, 3, 4, 5)
    nhwc = numpy.zeros((2, 4, 5, 3))
    assert memory_layouts.get_semantic_shape(
        nhwc, assumed_layout=memory_layouts.CUDNN_CHANNEL_LAST_X) == \
        (2, 3, 4, 5)
    assert memory_layouts.get_semantic_shape(a) == (2, 3, 4, 5)


def test_as_layout_transposes_and_back():
    x = cpuframe.Variable(numpy.arange(24, dtype=numpy.float32)
                          .reshape(1, 2, 3, 4))
    y, = memory_layouts.AsLayout(
        memory_layouts.CUDNN_CHANNEL_LAST_X).apply((x,))
    assert y.shape == (1, 3, 4, 2)
    numpy.testing.assert_array_equal(y.array, x.array.transpose(0, 2, 3, 1))
    gy = numpy.arange(24, dtype=numpy.float32).reshape(1, 3, 4, 2)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(x.grad, gy.transpose(0, 3, 1, 2))


def test_variable_repr_and_str():
    from cpuframe.variable import variable_repr, variable_str
    v = cpuframe.Variable(numpy.array([[0, 1], [2, 3]], numpy.float32),
                          name='w')
    assert variable_repr(v) == 'variable w([[0., 1.],\n            [2., 3.]])'
    assert variable_str(v) == 'variable w([[0. 1.]\n            [2. 3.]])'
    assert variable_repr(cpuframe.Variable(numpy.zeros((0, 3)))) == \
        'variable([], shape=(0, 3))'
    assert variable_repr(cpuframe.Variable(numpy.zeros((0,)))) == \
        'variable([])'
    assert variable_str(cpuframe.Variable(None)) == 'variable(None)'
