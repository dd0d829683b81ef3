import unittest

import numpy

import cpuframe.functions as F
from cpuframe import testing


@testing.unary_math_function_unittest(F.sin)
class TestSin(unittest.TestCase):
    pass


def _make_positive(shape, dtype):
    x = numpy.random.uniform(0.5, 2, shape).astype(dtype)
    gy = numpy.random.uniform(-1, 1, shape).astype(dtype)
    ggx = numpy.random.uniform(-1, 1, shape).astype(dtype)
    return x, gy, ggx


@testing.unary_math_function_unittest(F.sqrt, make_data=_make_positive)
class TestSqrt(unittest.TestCase):
    pass


@testing.unary_math_function_unittest(F.exp, label_expected='Exp')
class TestExp:
    pass


def test_generated_tests():
    import sys
    module = sys.modules[__name__]
    names = [n for n, v in vars(module).items()
             if isinstance(v, type) and n.startswith('TestSin_')]
    # 2 shapes x 3 dtypes x 3 backends
    assert len(names) == 18
    cls = getattr(module, names[0])
    assert issubclass(cls, unittest.TestCase)


def test_wrong_reference_is_detected():
    @testing.unary_math_function_unittest(F.sin, func_expected=numpy.cos)
    class TestWrong(unittest.TestCase):
        pass

    cls = [c for c in testing._bundle.generated_classes(TestWrong)
           if c.dtype == numpy.float32 and c.shape == (3, 2)
           and c._backend_config.use_ideep == 'never'][0]
    case = cls('test_forward')
    case.setUp()
    try:
        case.test_forward()
    except testing.FunctionTestError:
        return
    raise AssertionError('a wrong func_expected passed the forward test')


@testing.unary_math_function_unittest(F.tanh, backward_options={'atol': 5e-3})
class TestTanhMergedOptions(unittest.TestCase):

    def test_options_are_merged_into_the_dtype_defaults(self, backend_config):
        # Chainer 7 updates its dtype-dependent tolerances with the given
        # options: float16 keeps eps/rtol 2**-4 and the float64 numerical
        # side (replacing them ran float16 checks at atol 1e-5).
        opts = self.check_backward_options
        assert opts['atol'] == 5e-3 and opts['dtype'] == numpy.float64
        if self.dtype == numpy.float16:
            assert opts['eps'] == opts['rtol'] == 2 ** -4
            assert self.check_double_backward_options['atol'] == 2 ** -4
        else:
            assert opts['rtol'] == 1e-4 and 'eps' not in opts
