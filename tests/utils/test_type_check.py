import numpy
import pytest

from cpuframe.utils import type_check as T


def _types(*arrays):
    return T.get_types(arrays, 'in_types', False)


def test_expect_passes_and_fails_with_text():
    t = _types(numpy.zeros((2, 3), numpy.float32))
    T.expect(t[0].ndim == 2, t[0].shape[1] == 3, t[0].dtype == numpy.float32)
    with pytest.raises(T.InvalidType) as e:
        T.expect(t[0].shape[0] * 2 > t[0].shape[1] + 4)
    assert e.value.expect == 'in_types[0].shape[0] * 2 > in_types[0].shape[1] + 4'
    assert e.value.actual == '4 <= 7'


def test_argname_and_size():
    t = _types(numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.int32))
    T.argname(t, ('x', 't'))
    with pytest.raises(T.InvalidType) as e:
        T.expect(t[1].dtype == numpy.float32)
    assert str(e.value) == 'Expect: t.dtype == float32\nActual: int32 != float32'
    with pytest.raises(T.InvalidType, match='Invalid number of arguments'):
        T.argname(t, ('x',))
    with pytest.raises(T.InvalidType, match=r'in_types.size\(\) == 3'):
        T.expect(t.size() == 3)


def test_expressions_cannot_be_bools():
    t = _types(numpy.zeros(2, numpy.float32))
    with pytest.raises(RuntimeError, match='expect'):
        if t[0].ndim == 1:
            pass


def test_eval_same_dtypes_broadcast():
    t = _types(numpy.zeros((2, 1), numpy.float32), numpy.zeros((3,), numpy.float32),
               numpy.zeros((4,), numpy.float64))
    assert T.eval(t[0].shape) == (2, 1)
    assert T.eval(t[0].shape[0] + 1) == 3
    T.same_dtypes(t[0], t[1])
    with pytest.raises(T.InvalidType):
        T.same_dtypes(t[0], t[2])
    T.expect_broadcast_shapes(t[0].shape, t[1].shape)
    with pytest.raises(T.InvalidType, match=r'\(3,\), \(4,\)'):
        T.expect_broadcast_shapes(t[1].shape, t[2].shape)


def test_plain_bools_and_bad_arguments():
    T.expect(True)
    with pytest.raises(T.InvalidType):
        T.expect(False)
    with pytest.raises(TypeError, match='type_check.expect'):
        T.expect('yes')


def test_none_input():
    with pytest.raises(T.InvalidType, match='in_types\\[0\\] is None'):
        T.get_types((None,), 'in_types', False)


def test_invalid_type_is_type_error_and_pickles():
    import pickle
    e = T.InvalidType('a', 'b')
    assert isinstance(e, TypeError)
    e2 = pickle.loads(pickle.dumps(e))
    assert str(e2) == str(e)


def test_prod_expression_and_same_types():
    t = T.get_types((numpy.zeros((2, 3, 4), numpy.float32),), 'in_types',
                    False)
    T.expect(T.prod(t[0].shape[1:]) == 12)
    with pytest.raises(T.InvalidType) as e:
        T.expect(T.prod(t[0].shape) == 5)
    assert 'prod(in_types[0].shape)' in str(e.value)
    assert T.same_types(numpy.zeros(1), numpy.ones(2))
    assert not T.same_types(numpy.zeros(1), [1])
