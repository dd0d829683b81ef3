"""cpuframe.utils submodules with Chainer 7's names and behaviour."""
import importlib
import os
import warnings

import numpy
import pytest

import cpuframe
from cpuframe import utils
from cpuframe.utils import (
    argument,
    array,
    cache,
    conv,
    conv_nd,
    error,
    imgproc,
    meta,
    precision,
    sparse,
)

# As in Chainer, chainer.utils binds the functions over these submodules.
experimental = importlib.import_module('cpuframe.utils.experimental')
nondeterministic = importlib.import_module('cpuframe.utils.nondeterministic')


def test_utils_names_are_the_functions():
    assert utils.experimental is experimental.experimental
    assert utils.nondeterministic is nondeterministic.nondeterministic


# -- argument ---------------------------------------------------------------

def test_parse_kwargs_pops_values_and_defaults():
    kwargs = {'a': 1}
    assert argument.parse_kwargs(kwargs, ('a', 0), ('b', 2)) == (1, 2)
    assert kwargs == {}


def test_parse_kwargs_names_the_caller_and_keys():
    def my_func(**kwargs):
        return argument.parse_kwargs(kwargs, ('a', 0))

    with pytest.raises(TypeError) as e:
        my_func(zz=1, b=2)
    assert str(e.value) == \
        "my_func() got unexpected keyword argument(s) 'b', 'zz'"


def test_parse_kwargs_unexpected_message_is_value_error():
    with pytest.raises(ValueError, match='train is gone'):
        argument.parse_kwargs({'train': True}, ('a', 0),
                              train='train is gone')


def test_check_unexpected_kwargs_and_assert_empty():
    argument.check_unexpected_kwargs({'a': 1}, b='no b')
    with pytest.raises(ValueError, match='no b'):
        argument.check_unexpected_kwargs({'b': 1}, b='no b')
    argument.assert_kwargs_empty({})
    with pytest.raises(TypeError, match="unexpected keyword argument.*'x'"):
        argument.assert_kwargs_empty({'x': 1})


# -- experimental -------------------------------------------------------------

def test_experimental_warns_unless_disabled(monkeypatch):
    assert cpuframe.disable_experimental_feature_warning is False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        utils.experimental('cpuframe.foo.f')
    assert len(w) == 1 and issubclass(w[0].category, FutureWarning)
    assert str(w[0].message) == ('cpuframe.foo.f is experimental. The '
                                 'interface can change in the future.')
    monkeypatch.setattr(cpuframe, 'disable_experimental_feature_warning',
                        True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        experimental.experimental('cpuframe.foo.f')
    assert w == []


# -- array --------------------------------------------------------------------

def test_array_helpers():
    x = numpy.arange(24).reshape(2, 3, 4)
    with pytest.warns(DeprecationWarning):
        assert array.as_vec(x).shape == (24,)
    with pytest.warns(DeprecationWarning):
        assert array.as_mat(x).shape == (2, 12)
    assert array.size_of_shape((2, 3, 4)) == 24
    assert array.size_of_shape(()) == 1
    assert utils.size_of_shape is array.size_of_shape
    assert utils.sum_to is array.sum_to
    numpy.testing.assert_array_equal(array.sum_to(x, (3, 1)),
                                     x.sum(axis=(0, 2)).reshape(3, 1))
    with pytest.raises(TypeError, match='F.sum_to|functions.sum_to'):
        array.sum_to(cpuframe.Variable(x.astype('f')), (1,))


# -- small modules --------------------------------------------------------------

def test_error_format_array_props():
    a = numpy.zeros((2, 3), numpy.float32)
    assert error._format_array_props([a, None]) == '(2, 3):float32, None'


def test_nondeterministic_follows_config():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        nondeterministic.nondeterministic('f')
        with cpuframe.using_config('warn_nondeterministic', True):
            utils.nondeterministic('atomic_f')
    assert len(w) == 1 and 'atomic_f' in str(w[0].message)


def test_fp16_mixed_precision_helper():
    seen = []

    class F:
        @precision._fp16_mixed_precision_helper
        def forward(self, inputs):
            seen.append(inputs[0].dtype)
            return inputs[0] * 2,

    y, = F().forward((numpy.ones(2, numpy.float16),))
    assert seen[-1] == numpy.float32 and y.dtype == numpy.float16
    y, = F().forward((numpy.ones(2, numpy.float64),))
    assert y.dtype == numpy.float64


def test_final_raises_or_warns_on_override():
    class Base(utils.enable_final()):
        @utils.final
        def f(self):
            pass

        @meta.final(action=UserWarning)
        def g(self):
            pass

    with pytest.raises(TypeError, match="method 'f' is final"):
        class Sub(Base):
            def f(self):
                pass

    with pytest.warns(UserWarning, match="Overriding method 'g'"):
        class Sub2(Base):
            def g(self):
                pass

    class Fine(Base):
        def h(self):
            pass


def test_enable_final_with_bases_and_metaclass():
    import abc

    class B(utils.enable_final(base=int, meta_base=abc.ABCMeta)):
        pass

    assert issubclass(B, int) and isinstance(B, abc.ABCMeta)


def test_tempdir_is_removed():
    with utils.tempdir(prefix='cf') as d:
        assert os.path.isdir(d) and os.path.basename(d).startswith('cf')
        open(os.path.join(d, 'f'), 'w').close()
    assert not os.path.exists(d)


def test_collections_abc():
    assert utils.collections_abc.Sequence is __import__(
        'collections.abc').abc.Sequence


def test_oversample_ten_crops():
    img = numpy.arange(2 * 4 * 5, dtype=numpy.float32).reshape(2, 4, 5)
    crops = imgproc.oversample([img, img + 1], (2, 3))
    assert crops.shape == (20, 2, 2, 3)
    numpy.testing.assert_array_equal(crops[0], img[:, :2, :3])
    numpy.testing.assert_array_equal(crops[3], img[:, 2:, 2:])
    numpy.testing.assert_array_equal(crops[4], img[:, 1:3, 1:4])
    numpy.testing.assert_array_equal(crops[5], img[:, :2, :3][:, :, ::-1])
    numpy.testing.assert_array_equal(crops[10], img[:, :2, :3] + 1)


def test_cached_property_per_backprop_mode():
    calls = []

    class C:
        @cache.cached_property
        def y(self):
            calls.append(cpuframe.config.enable_backprop)
            return len(calls)

    c = C()
    assert c.y == 1 and c.y == 1
    with cpuframe.no_backprop_mode():
        assert c.y == 2 and c.y == 2
    assert c.y == 1
    with pytest.raises(AttributeError, match='readonly'):
        c.y = 3


# -- sparse ---------------------------------------------------------------------

def test_to_coo_and_back():
    x = numpy.array([[0, 2, 0], [-1, 0, 0]], numpy.float32)
    coo = utils.to_coo(x)
    numpy.testing.assert_array_equal(coo.data.array, [2, -1])
    assert coo.row.dtype == numpy.int32
    numpy.testing.assert_array_equal(coo.row, [0, 1])
    numpy.testing.assert_array_equal(coo.col, [1, 0])
    assert coo.shape == (2, 3) and coo.order == 'C'
    assert isinstance(coo.data, cpuframe.Variable)
    numpy.testing.assert_array_equal(coo.to_dense(), x)
    padded = sparse.to_coo(x, ldnz=4)
    numpy.testing.assert_array_equal(padded.row, [0, 1, -1, -1])
    numpy.testing.assert_array_equal(padded.to_dense(), x)


def test_to_coo_batch():
    x = numpy.zeros((2, 3, 3), numpy.float32)
    x[0, 0, 0] = 1
    x[1, 2, 1] = 3
    x[1, 0, 2] = 4
    coo = utils.to_coo(x, requires_grad=True)
    assert coo.data.shape == (2, 2) and coo.data.requires_grad
    numpy.testing.assert_array_equal(coo.to_dense(), x)
    with pytest.raises(ValueError, match='ndim of x'):
        utils.to_coo(numpy.zeros(3))


def test_get_order():
    assert utils.get_order(numpy.array([0, 0, 1]),
                           numpy.array([0, 2, 1])) == 'C'
    assert utils.get_order(numpy.array([1, 0, 2]),
                           numpy.array([0, 1, 1])) == 'F'
    assert utils.get_order(numpy.array([1, 0, 2]),
                           numpy.array([1, 0, 0])) == 'other'


def test_coo_matrix_checks():
    d = numpy.zeros(2, numpy.float32)
    i = numpy.zeros(2, numpy.int32)
    with pytest.raises(ValueError, match='order'):
        utils.CooMatrix(d, i, i, (2, 2), order='X')
    with pytest.raises(ValueError, match='shape'):
        utils.CooMatrix(d, i, i, (2, 2, 2))


# -- conv / conv_nd ---------------------------------------------------------------

def _naive_im2col(img, kh, kw, sy, sx, ph, pw, out_h, out_w, dy=1, dx=1,
                  pval=0):
    n, c, h, w = img.shape
    col = numpy.full((n, c, kh, kw, out_h, out_w), pval, img.dtype)
    for j in range(kh):
        for i in range(kw):
            for y in range(out_h):
                for x in range(out_w):
                    iy, ix = y * sy + j * dy - ph, x * sx + i * dx - pw
                    if 0 <= iy < h and 0 <= ix < w:
                        col[:, :, j, i, y, x] = img[:, :, iy, ix]
    return col


@pytest.mark.parametrize('cover_all', [False, True])
def test_im2col_cpu_matches_definition(cover_all):
    img = numpy.random.RandomState(0).rand(2, 3, 7, 6).astype(numpy.float32)
    col = conv.im2col_cpu(img, 3, 2, 2, 3, 1, 0, pval=-1,
                          cover_all=cover_all, dy=2)
    oh = utils.get_conv_outsize(7, 3, 2, 1, cover_all, 2)
    ow = utils.get_conv_outsize(6, 2, 3, 0, cover_all)
    assert col.shape == (2, 3, 3, 2, oh, ow)
    numpy.testing.assert_array_equal(
        col, _naive_im2col(img, 3, 2, 2, 3, 1, 0, oh, ow, dy=2, pval=-1))
    col[...] = 0  # a fresh, writeable array as in Chainer


def test_col2im_cpu_is_adjoint_of_im2col():
    rs = numpy.random.RandomState(1)
    img = rs.rand(1, 2, 5, 5)
    col = conv.im2col_cpu(img, 3, 3, 2, 2, 1, 1)
    c = rs.rand(*col.shape)
    back = conv.col2im_cpu(c, 2, 2, 1, 1, 5, 5)
    assert back.shape == img.shape
    numpy.testing.assert_allclose((col * c).sum(), (img * back).sum())
    numpy.testing.assert_array_equal(conv.im2col(img, 3, 3, 2, 2, 1, 1), col)


def test_im2col_nd_matches_2d():
    img = numpy.random.RandomState(2).rand(1, 2, 5, 4)
    col = conv_nd.im2col_nd_cpu(img, (3, 2), (1, 2), (1, 0), pval=7)
    numpy.testing.assert_array_equal(
        col, conv.im2col_cpu(img, 3, 2, 1, 2, 1, 0, pval=7))
    back = conv_nd.col2im_nd(col, (1, 2), (1, 0), (5, 4))
    numpy.testing.assert_allclose(back, conv.col2im_cpu(col, 1, 2, 1, 0, 5, 4))
    assert conv_nd.as_tuple(3, 2) == (3, 3)


def test_gpu_variants_name_cupy():
    with pytest.raises(RuntimeError, match='CuPy'):
        conv.im2col_gpu(None, 1, 1, 1, 1, 0, 0)
    with pytest.raises(RuntimeError, match='CuPy'):
        conv_nd.col2im_nd_gpu(None, (1,), (0,), (1,))
