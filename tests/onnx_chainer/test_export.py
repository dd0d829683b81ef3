"""onnx_chainer.export: each converter at the opsets it covers, checked by
running the exported model in ONNX Runtime against cpuframe's forward (on
the NumPy path and on '@intel64'), and the exporter's API as Chainer 7's."""
import io
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')

import cpuframe  # noqa: E402
import cpuframe.functions as F  # noqa: E402
import cpuframe.links as L  # noqa: E402
import cpuframe.onnx_chainer as onnx_chainer  # noqa: E402
from cpuframe.backends import intel64  # noqa: E402

MAX = onnx_chainer.MAXIMUM_OPSET_VERSION
OPSETS = sorted({7, 9, 11, 13, 17, MAX})
DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])


def _rand(*shape, seed=0, low=-1, high=1):
    return numpy.random.RandomState(seed).uniform(
        low, high, shape).astype(numpy.float32)


def _run(model, args, opset, device='@numpy', atol=1e-5, rtol=1e-4,
         **kwargs):
    """Export, run in ONNX Runtime, compare with cpuframe's forward."""
    dev = cpuframe.get_device(device)
    if isinstance(model, cpuframe.Link):
        model.to_device(dev)
    args = tuple(args)
    sent = tuple(dev.send(a) if a.dtype.kind == 'f' else a for a in args)
    with cpuframe.using_config('train', False):
        # as export calls it: on Variables (an operator on two arrays
        # would be NumPy's)
        expected = model(*[cpuframe.Variable(a) for a in sent])
    expected = expected if isinstance(expected, (tuple, list)) \
        else (expected,)
    expected = [numpy.asarray(cpuframe.backend.CpuDevice().send(y.array))
                for y in expected]
    onnx_model = onnx_chainer.export(model, list(sent), opset_version=opset,
                                     no_testcase=True, **kwargs)
    onnx.checker.check_model(onnx_model)
    sess = ort.InferenceSession(onnx_model.SerializeToString(),
                                providers=['CPUExecutionProvider'])
    feeds = {i.name: a for i, a in zip(sess.get_inputs(), args)}
    got = sess.run(None, feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        numpy.testing.assert_allclose(g, e, atol=atol, rtol=rtol)
    return onnx_model


class MLP(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(6, 5)
            self.l2 = L.Linear(5, 3)

    def forward(self, x):
        return F.softmax(self.l2(F.relu(self.l1(x))))


class CNN(cpuframe.Chain):
    def __init__(self, cover_all=True):
        super().__init__()
        self.cover_all = cover_all
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 4, 3, stride=2, pad=1)
            self.bn = L.BatchNormalization(4)
            self.conv2 = L.Convolution2D(4, 4, 3, pad=1, nobias=True)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        h = F.relu(self.bn(self.conv1(x)))
        h = F.max_pooling_2d(h, 3, 2, cover_all=self.cover_all)
        h = F.leaky_relu(self.conv2(h), 0.1)
        h = F.average_pooling_2d(h, 2, 1, 1)
        return self.fc(h)


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('opset', OPSETS)
def test_mlp(opset, device):
    numpy.random.seed(0)
    m = _run(MLP(), [_rand(4, 6)], opset, device)
    assert [i.name for i in m.graph.initializer] == \
        ['param_l1_W', 'param_l1_b', 'param_l2_W', 'param_l2_b']
    assert [n.name for n in m.graph.node] == \
        ['LinearFunction_0', 'ReLU_0', 'LinearFunction_1', 'Softmax_0']
    assert m.graph.input[0].name == 'Input_0'
    assert m.graph.output[0].name == 'Softmax_0'


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('cover_all', [True, False])
@pytest.mark.parametrize('opset', OPSETS)
def test_cnn_with_batch_normalization(opset, cover_all, device):
    numpy.random.seed(1)
    model = CNN(cover_all)
    x = _rand(2, 3, 11, 11)
    with cpuframe.using_config('train', False):
        model(x)  # the lazy Linear's weight
    bn = model.bn
    bn.avg_mean[...] = _rand(4, seed=3)
    bn.avg_var[...] = _rand(4, seed=4, low=0.5, high=2)
    m = _run(model, [x], opset, device, atol=1e-4)
    names = {i.name for i in m.graph.initializer}
    assert {'param_bn_gamma', 'param_bn_avg_mean', 'param_bn_avg_var',
            'param_conv2_W'} <= names


# function -> (inputs, lowest opset)
def _cases():
    x = _rand(3, 4)
    y = _rand(3, 4, seed=1)
    pos = _rand(3, 4, seed=2, low=0.5, high=2)
    row = _rand(4, seed=3)
    img = _rand(2, 3, 5, 5, seed=4)
    return {
        'add': (lambda a, b: a + b, (x, row), 7),
        'sub': (lambda a, b: a - b, (x, y), 7),
        'mul': (lambda a, b: a * b, (x, row), 7),
        'div': (lambda a, b: a / b, (x, pos), 7),
        'add_const': (lambda a: a + 2.5, (x,), 7),
        'mul_const': (lambda a: a * -3.0, (x,), 7),
        'rsub_const': (lambda a: 1.5 - a, (x,), 7),
        'rdiv_const': (lambda a: 2.0 / a, (pos,), 7),
        'div_const': (lambda a: a / 4.0, (x,), 7),
        'pow_const': (lambda a: a ** 3, (x,), 7),
        'pow_var': (lambda a, b: a ** b, (pos, y), 7),
        'rpow_const': (lambda a: 2.0 ** a, (x,), 7),
        'neg': (lambda a: -a, (x,), 7),
        'abs': (abs, (x,), 7),
        'exp': (F.exp, (x,), 7),
        'log': (F.log, (pos,), 7),
        'sqrt': (F.sqrt, (pos,), 7),
        'square': (F.square, (x,), 7),
        'maximum': (F.maximum, (x, y), 8),
        'minimum': (F.minimum, (x, y), 8),
        'sum_all': (F.sum, (x,), 7),
        'sum_axis': (lambda a: F.sum(a, axis=1), (x,), 7),
        'sum_keepdims': (lambda a: F.sum(a, axis=0, keepdims=True), (x,), 7),
        'mean': (lambda a: F.mean(a, axis=1), (x,), 7),
        'max': (lambda a: F.max(a, axis=1), (x,), 7),
        'min': (lambda a: F.min(a, axis=0, keepdims=True), (x,), 7),
        'matmul': (F.matmul, (x, _rand(4, 2, seed=5)), 7),
        'matmul_trans': (lambda a, b: F.matmul(a, b, transa=True,
                                               transb=True),
                         (_rand(4, 3), _rand(2, 4, seed=6)), 7),
        'clip': (lambda a: F.clip(a, -0.5, 0.25), (x,), 7),
        'relu': (F.relu, (x,), 7),
        'sigmoid': (F.sigmoid, (x,), 7),
        'tanh': (F.tanh, (x,), 7),
        'elu': (lambda a: F.elu(a, 0.7), (x,), 7),
        'leaky_relu': (lambda a: F.leaky_relu(a, 0.3), (x,), 7),
        'clipped_relu': (lambda a: F.clipped_relu(a, 0.5), (x,), 7),
        'hard_sigmoid': (F.hard_sigmoid, (_rand(3, 4) * 4,), 7),
        'softplus': (F.softplus, (x,), 7),
        'softplus_beta': (lambda a: F.softplus(a, 2.0), (x,), 7),
        'prelu': (lambda a: F.prelu(a, numpy.full(3, 0.25, 'f')), (img,), 7),
        'softmax': (F.softmax, (x,), 7),
        'softmax_4d_axis1': (F.softmax, (img,), 7),
        'log_softmax': (F.log_softmax, (img,), 7),
        'reshape': (lambda a: F.reshape(a, (2, -1)), (x,), 7),
        'flatten': (F.flatten, (img,), 7),
        'transpose': (F.transpose, (img,), 7),
        'transpose_axes': (lambda a: F.transpose(a, (0, 2, 3, 1)), (img,), 7),
        'swapaxes': (lambda a: F.swapaxes(a, 1, 3), (img,), 7),
        'concat': (lambda a, b: F.concat((a, b), axis=1), (x, y), 7),
        'broadcast_to': (lambda a: F.broadcast_to(a, (3, 4)), (row,), 8),
        'expand_dims': (lambda a: F.expand_dims(a, 1), (x,), 7),
        'squeeze': (lambda a: F.squeeze(a, 1),
                    (_rand(3, 1, 4),), 7),
        'identity': (F.identity, (x,), 7),
        'copy': (lambda a: F.copy(a, -1), (x,), 7),
        'cast': (lambda a: F.cast(a, numpy.float64), (x,), 7),
        'lrn': (F.local_response_normalization, (_rand(2, 7, 3, 3),), 7),
        'fixed_bn': (lambda a: F.fixed_batch_normalization(
            a, _rand(3, seed=7), _rand(3, seed=8), _rand(3, seed=9),
            _rand(3, seed=10, low=0.5, high=1.5)), (img,), 7),
        'conv_cover_all': (lambda a: F.convolution_2d(
            a, _rand(2, 3, 2, 2, seed=11), stride=2, cover_all=True),
            (img,), 7),
        'conv_groups_dilate': (lambda a: F.convolution_2d(
            a, _rand(4, 1, 2, 2, seed=12), pad=1, dilate=2, groups=2),
            (_rand(2, 2, 6, 6),), 7),
        'average_pooling_nd': (lambda a: F.average_pooling_nd(a, 2),
                               (_rand(1, 2, 4, 4, 4),), 7),
        'max_pooling_nd': (lambda a: F.max_pooling_nd(a, 2, 1),
                           (_rand(1, 2, 3, 3, 3),), 7),
        'getitem_slices': (lambda a: a[1:3, 2:], (x,), 7),
        'getitem_steps': (lambda a: a[1:3, ::2], (x,), 10),
        'getitem_step_int_none': (lambda a: a[::-1, None, -2], (x,), 10),
        'getitem_ellipsis': (lambda a: a[0, ..., 1:], (img,), 7),
        'split_axis': (lambda a: F.split_axis(a, [1, 3], 1), (x,), 7),
        'split_sections': (lambda a: F.split_axis(a, 2, 1), (x,), 7),
        'separate': (lambda a: F.separate(a, 0), (x,), 7),
        'stack': (lambda a, b: F.stack((a, b), 1), (x, y), 7),
        'tile': (lambda a: F.tile(a, (2, 1, 3)), (x,), 7),
        'pad_constant': (lambda a: F.pad(a, ((0, 0), (1, 2)), 'constant',
                                         constant_values=1.5), (x,), 7),
        'pad_edge': (lambda a: F.pad(a, 1, 'edge'), (img,), 7),
        'pad_reflect': (lambda a: F.pad(a, 1, 'reflect'), (img,), 7),
        'where': (lambda a, b: F.where(numpy.asarray(x > 0), a, b), (x, y),
                  9),
        'deconvolution': (lambda a: F.deconvolution_2d(
            a, _rand(3, 2, 3, 3, seed=14), _rand(2, seed=15), stride=2,
            pad=1), (img,), 7),
        'deconvolution_outsize': (lambda a: F.deconvolution_2d(
            a, _rand(3, 2, 3, 3, seed=14), stride=2, pad=1, outsize=(10, 10)),
            (img,), 7),
        'argmax': (lambda a: F.argmax(a, axis=1), (x,), 7),
        'argmin_all': (F.argmin, (x,), 7),
        'prod': (lambda a: F.prod(a, axis=1), (pos,), 7),
        'logsumexp': (lambda a: F.logsumexp(a, axis=0), (x,), 7),
        'hstack': (lambda a, b: F.hstack((a, b)), (x, y), 7),
        'hstack_1d': (lambda a, b: F.hstack((a, b)), (row, row), 7),
        'vstack_1d': (lambda a, b: F.vstack((a, b)), (row, row), 7),
        'dstack': (lambda a, b: F.dstack((a, b)), (x, y), 7),
        'repeat': (lambda a: F.repeat(a, 3, axis=1), (x,), 7),
        'repeat_flat': (lambda a: F.repeat(a, 2), (x,), 7),
        'permutate': (lambda a: F.permutate(
            a, numpy.array([2, 0, 1], numpy.int32)), (x,), 7),
        'permutate_inv': (lambda a: F.permutate(
            a, numpy.array([3, 0, 2, 1], numpy.int32), axis=1, inv=True),
            (x,), 7),
        'flipud': (F.flipud, (x,), 10),
        'fliplr': (F.fliplr, (x,), 10),
        'rollaxis': (lambda a: F.rollaxis(a, 3), (img,), 7),
        'moveaxis': (lambda a: F.moveaxis(a, 1, 3), (img,), 7),
        'normalize': (F.normalize, (x,), 7),
        'select_item': (lambda a: F.select_item(
            a, numpy.array([0, 3, 1], numpy.int32)), (x,), 11),
        'embed_id': (lambda i: F.embed_id(i, _rand(6, 3, seed=13)),
                     (numpy.array([[0, 5], [2, 2]], numpy.int32),), 7),
        'sin': (F.sin, (x,), 7),
        'cos': (F.cos, (x,), 7),
        'tan': (F.tan, (x,), 7),
        'arcsin': (F.arcsin, (x * 0.9,), 7),
        'arccos': (F.arccos, (x * 0.9,), 7),
        'arctan': (F.arctan, (x,), 7),
        'arctanh': (F.arctanh, (x * 0.9,), 9),
        'sinh': (F.sinh, (x,), 9),
        'cosh': (F.cosh, (x,), 9),
        'log2': (F.log2, (pos,), 7),
        'log10': (F.log10, (pos,), 7),
        'log1p': (F.log1p, (pos,), 7),
        'expm1': (F.expm1, (x,), 7),
        'rsqrt': (F.rsqrt, (pos,), 7),
        'linear_interpolate': (F.linear_interpolate,
                               (_rand(3, 4, seed=20, low=0, high=1), x, y), 7),
        'getitem_index_array': (lambda a: a[numpy.array([2, 0, 2])], (x,), 7),
        'getitem_index_array_axis1': (
            lambda a: a[1:, numpy.array([[3, -1], [0, 1]])], (x,), 7),
        'getitem_index_list_ellipsis': (lambda a: a[..., [4, 0]], (img,), 7),
        'resize_images': (lambda a: F.resize_images(a, (7, 4)), (img,), 11),
        'unpooling_2d': (lambda a: F.unpooling_2d(a, 2, cover_all=False),
                         (img,), 7),
        'unpooling_2d_cover_all': (lambda a: F.unpooling_2d(a, (2, 3)),
                                   (img,), 7),
        'group_normalization': (lambda a: F.group_normalization(
            a, 3, _rand(6, seed=21), _rand(6, seed=22)),
            (_rand(2, 6, 3, 3, seed=23),), 7),
        'roi_pooling_2d': (lambda a, r: F.roi_pooling_2d(a, r, 3, 2, 0.9),
                           (_rand(2, 3, 8, 8, seed=24), numpy.array(
                               [[0, 1, 1, 6, 5], [1, 0, 2, 7, 7],
                                [0, 2.4, 3.3, 4.6, 7.2], [1, 5, 5, 5, 5]],
                               numpy.float32)), 11),
        'softmax_cross_entropy': (
            F.softmax_cross_entropy,
            (x, numpy.array([3, 0, 1], numpy.int32)), 7),
        'softmax_cross_entropy_ignore': (
            F.softmax_cross_entropy,
            (x, numpy.array([3, -1, 1], numpy.int32)), 7),
        'softmax_cross_entropy_unnormalized': (
            lambda a, t: F.softmax_cross_entropy(a, t, normalize=False),
            (x, numpy.array([3, -1, 1], numpy.int32)), 7),
        'softmax_cross_entropy_no_reduce': (
            lambda a, t: F.softmax_cross_entropy(a, t, reduce='no'),
            (x, numpy.array([3, -1, 1], numpy.int32)), 7),
    }


# Every converter at every opset in range on the NumPy path, and at the
# sampled opsets on '@intel64' too.
_FUNCTION_RUNS = [(o, '@numpy') for o in range(
    onnx_chainer.MINIMUM_OPSET_VERSION, MAX + 1)] + [
        (o, d) for o in OPSETS for d in DEVICES if d != '@numpy']


@pytest.mark.parametrize('opset,device', _FUNCTION_RUNS)
@pytest.mark.parametrize('case', sorted(_cases()))
def test_function(case, opset, device):
    fn, args, lowest = _cases()[case]
    if opset < lowest:
        pytest.skip('needs opset {}'.format(lowest))
    atol = 1e-4 if case in ('lrn', 'rpow_const', 'pow_var') else 1e-5
    if case == 'roi_pooling_2d' and opset >= 22:
        # ONNX Runtime 1.32 implements MaxRoiPool up to its version 1 only
        # (opset 22 made a version 22): the graph is checked, not run
        m = onnx_chainer.export(fn, list(args), opset_version=opset,
                                no_testcase=True)
        onnx.checker.check_model(m, full_check=True)
        assert 'MaxRoiPool' in [n.op_type for n in m.graph.node]
        return
    _run(fn, args, opset, device, atol=atol)


def test_function_on_intel64_arrays():
    # the NumPy arrays of '@intel64' outputs are what the initializers get
    dev = cpuframe.get_device('@intel64') if intel64.is_ideep_available() \
        else pytest.skip('needs the native module')
    w = dev.send(_rand(2, 3, 2, 2, seed=11))
    _run(lambda a: F.relu(F.convolution_2d(a, w, pad=1)),
         (_rand(1, 3, 4, 4),), MAX, '@intel64')


def test_names_and_named_inout():
    numpy.random.seed(0)
    model = MLP()
    x = _rand(2, 6)
    m, ins, outs = onnx_chainer.export(
        model, {'x': x}, input_names={'x': 'data'}, output_names=['prob'],
        return_named_inout=True, no_testcase=True)
    assert [i.name for i in m.graph.input] == ['data']
    assert [o.name for o in m.graph.output] == ['prob']
    assert list(ins) == ['data'] and list(outs) == ['prob']
    numpy.testing.assert_array_equal(ins['data'].array, x)
    sess = ort.InferenceSession(m.SerializeToString(),
                                providers=['CPUExecutionProvider'])
    numpy.testing.assert_allclose(sess.run(None, {'data': x})[0],
                                  outs['prob'].array, rtol=1e-5)


def test_dynamic_input_shapes():
    numpy.random.seed(0)
    model = MLP()
    m = onnx_chainer.export(model, _rand(2, 6), input_shapes=[('N', 6)],
                            no_testcase=True)
    dims = m.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == 'N' and dims[1].dim_value == 6
    sess = ort.InferenceSession(m.SerializeToString(),
                                providers=['CPUExecutionProvider'])
    x = _rand(7, 6, seed=3)
    with cpuframe.using_config('train', False):
        expected = model(x).array
    numpy.testing.assert_allclose(sess.run(None, {'Input_0': x})[0],
                                  expected, rtol=1e-5, atol=1e-6)


def test_export_params_false_makes_parameters_inputs():
    model = MLP()
    m = onnx_chainer.export(model, _rand(2, 6), export_params=False,
                            no_testcase=True)
    assert not m.graph.initializer
    assert [i.name for i in m.graph.input] == [
        'Input_0', 'param_l1_W', 'param_l1_b', 'param_l2_W', 'param_l2_b']


def test_external_converter_and_opset_import():
    def custom(params):
        return onnx.helper.make_node('CustomRelu', params.input_names,
                                     params.output_names, domain='cpuframe'),

    m = onnx_chainer.export(
        cpuframe.Sequential(F.relu), _rand(2, 3),
        external_converters={'ReLU': custom},
        external_opset_imports={'cpuframe': 1}, no_testcase=True)
    assert [n.op_type for n in m.graph.node] == ['CustomRelu']
    assert {(o.domain, o.version) for o in m.opset_import} >= \
        {('cpuframe', 1)}


@pytest.mark.parametrize('bad,match', [
    ({'input_names': ['a', 'b']}, 'expected 1 input name'),
    ({'input_shapes': [(2, 3, 4)]}, 'input_shapes\\[0\\]'),
    ({'input_shapes': 'x'}, 'input_shapes must be'),
    ({'opset_version': 6}, 'opset_version must lie'),
    ({'opset_version': MAX + 1}, 'opset_version must lie'),
])
def test_bad_arguments_raise_before_any_work(tmp_path, bad, match):
    target = tmp_path / 'm.onnx'
    with pytest.raises(ValueError, match=match):
        onnx_chainer.export(MLP(), _rand(2, 6), filename=str(target),
                            no_testcase=True, **bad)
    assert not target.exists()


def test_unsupported_function_names_itself(tmp_path):
    target = tmp_path / 'm.onnx'
    with pytest.raises(ValueError, match=r'Cumsum is not supported at opset '
                       r'\d+.*external_converters'):
        onnx_chainer.export(lambda x: F.cumsum(x), _rand(2, 3),
                            filename=str(target), no_testcase=True)
    assert not target.exists()


def test_unsupported_options_name_themselves():
    with pytest.raises(ValueError, match='GetItem.*opset 9.*step other '
                       'than 1 needs opset 10'):
        onnx_chainer.export(lambda a: a[::2], _rand(4, 3), opset_version=9,
                            no_testcase=True)
    x = _rand(4, 3)
    idx = numpy.array([0, 2])
    img = _rand(1, 2, 4, 4)
    cases = [
        (lambda a: a[idx, idx], x, None, 'GetItem.*one integer index array'),
        (lambda a: a[numpy.array([True, False, True, True])], x, None,
         'GetItem.*bool index array'),
        (lambda a: a[0, idx], x, None, 'GetItem.*one integer index array'),
        (lambda a: F.resize_images(a, (6, 6)), img, 10,
         'ResizeImages.*opset 10.*needs opset 11'),
        (lambda a: F.unpooling_2d(a, 3, 2), img, None,
         'Unpooling2D.*ksize'),
        (lambda a: F.softmax_cross_entropy(
            a, numpy.array([0, 1, 2, 0], numpy.int32),
            class_weight=numpy.ones(3, numpy.float32)), x, None,
         'SoftmaxCrossEntropy.*class_weight'),
        (lambda a: F.sinh(a), x, 8, 'Sinh.*needs opset 9'),
        (lambda a: F.roi_pooling_2d(a, numpy.array([[0, 0, 0, 2, 2]],
                                                   numpy.float32), 1, 1, 1.0),
         img, 10, 'ROIPooling2D.*opset 10.*Round, opset 11'),
    ]
    for fn, arg, opset, match in cases:
        with pytest.raises(ValueError, match=match):
            onnx_chainer.export(fn, arg, opset_version=opset,
                                no_testcase=True)


def test_array_output_is_refused():
    with pytest.raises(ValueError, match='an output computed outside'):
        onnx_chainer.export(lambda x: x.array * 2, _rand(2, 3),
                            no_testcase=True)


def test_train_mode_batch_statistics_are_refused():
    with pytest.raises(ValueError, match='train=False'):
        onnx_chainer.export(L.BatchNormalization(3), _rand(4, 3),
                            train=True, no_testcase=True)


def test_deprecation_warning_without_testcase():
    with pytest.warns(DeprecationWarning, match='without testcases'):
        onnx_chainer.export(cpuframe.Sequential(F.relu), _rand(2, 3))


def test_filename_text_and_file_object(tmp_path):
    path = tmp_path / 'relu.onnx'
    m = onnx_chainer.export(cpuframe.Sequential(F.relu), _rand(2, 3),
                            filename=str(path), save_text=True,
                            no_testcase=True)
    assert onnx.load(str(path)) == m
    assert 'Relu' in (tmp_path / 'relu.onnx.txt').read_text()
    buf = io.BytesIO()
    onnx_chainer.export(cpuframe.Sequential(F.relu), _rand(2, 3),
                        filename=buf, no_testcase=True)
    assert onnx.load_model_from_string(buf.getvalue()) == m


def test_export_testcase(tmp_path):
    numpy.random.seed(0)
    model = MLP()
    x = _rand(2, 6)
    out = str(tmp_path / 'case')
    onnx_chainer.export_testcase(model, x, out, output_grad=True)
    m = onnx.load(os.path.join(out, 'model.onnx'))
    data = os.path.join(out, 'test_data_set_0')

    def load(name):
        t = onnx.TensorProto()
        with open(os.path.join(data, name), 'rb') as f:
            t.ParseFromString(f.read())
        return t.name, onnx.numpy_helper.to_array(t)

    name, x_read = load('input_0.pb')
    assert name == 'Input_0'
    numpy.testing.assert_array_equal(x_read, x)
    name, y_read = load('output_0.pb')
    assert name == m.graph.output[0].name
    with cpuframe.using_config('train', False):
        numpy.testing.assert_allclose(y_read, model(x).array, rtol=1e-6)
    grads = sorted(f for f in os.listdir(data) if f.startswith('gradient_'))
    assert len(grads) == 4
    name, g = load('gradient_0.pb')
    assert name == 'param_l1_W' and g.shape == (5, 6)
    assert numpy.isfinite(g).all()


def test_import_onnx_chainer_under_compat(tmp_path):
    script = textwrap.dedent('''
        import numpy, chainer, onnx_chainer
        import chainer.functions as F
        m = onnx_chainer.export(chainer.Sequential(F.relu),
                                numpy.ones((1, 2), numpy.float32),
                                no_testcase=True)
        print('OPS', [n.op_type for n in m.graph.node],
              onnx_chainer.__name__)
    ''')
    result = subprocess.run(
        [sys.executable, '-m', 'cpuframe.compat', '-c', script],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
        cwd=str(tmp_path))
    out = result.stdout.decode(errors='replace')
    assert result.returncode == 0, out
    assert "OPS ['Relu'] cpuframe.onnx_chainer" in out


class _Logits(cpuframe.Chain):
    """A vision model's logits (its pre-softmax layer) as one output."""

    def __init__(self, net, layer):
        super().__init__()
        self.layer = layer
        with self.init_scope():
            self.net = net

    def forward(self, x):
        return self.net(x, layers=[self.layer])[self.layer]


@pytest.mark.parametrize('cls,layer', [
    ('ResNet50Layers', 'fc6'), ('GoogLeNet', 'loss3_fc'),
    # (VGG16's 138M parameters: ~25 s here)
    pytest.param('VGG16Layers', 'fc8', marks=pytest.mark.slow)])
def test_vision_model_exports_whole(cls, layer):
    numpy.random.seed(0)
    net = getattr(L, cls)(pretrained_model=None)
    # (untrained logits reach ~1e3: float32 sums in another order differ
    # by ~1e-5 of that)
    m = _run(_Logits(net, layer), [_rand(1, 3, 224, 224)], MAX, atol=1e-2,
             rtol=1e-4)
    assert any(i.name.startswith('param_net_') for i in m.graph.initializer)


def test_testing_helpers(tmp_path):
    from cpuframe.onnx_chainer.testing import input_generator as gen
    from cpuframe.onnx_chainer.testing import test_onnxruntime
    x = gen.increasing(2, 3)
    assert x.dtype == numpy.float32 and x.shape == (2, 3)
    numpy.testing.assert_allclose(x.ravel(), numpy.linspace(-1, 1, 6),
                                  rtol=1e-6)
    for shape in ((3,), (2, 2), (1, 5)):
        nz = gen.nonzero_increasing(*shape)
        assert nz.shape == shape and (nz != 0).all()
        assert (numpy.diff(nz.ravel()) > 0).all()
        pos = gen.positive_increasing(*shape, dtype=numpy.float64)
        assert pos.dtype == numpy.float64 and (pos > 0).all()
        assert pos.ravel()[-1] == 1.0 and (numpy.diff(pos.ravel()) > 0).all()
    numpy.random.seed(0)
    out = str(tmp_path / 'case')
    onnx_chainer.export_testcase(MLP(), gen.increasing(2, 6), out)
    test_onnxruntime.check_model_expect(out)
    # a wrong saved output is caught
    onnx_chainer.onnx_helper.write_tensor_pb(
        os.path.join(out, 'test_data_set_0', 'output_0.pb'), 'Softmax_0',
        numpy.zeros((2, 3), numpy.float32))
    with pytest.raises(AssertionError, match='output Softmax_0'):
        test_onnxruntime.check_model_expect(out)


class _Recurrent(cpuframe.Chain):
    def __init__(self, link, cell):
        super().__init__()
        self.cell = cell
        with self.init_scope():
            self.rnn = link

    def forward(self, *xs):
        if self.cell:
            hy, cy, ys = self.rnn(None, None, list(xs))
            return (hy, cy) + tuple(ys)
        hy, ys = self.rnn(None, list(xs))
        return (hy,) + tuple(ys)


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('opset', [7, 11, MAX])
@pytest.mark.parametrize('name', ['NStepGRU', 'NStepBiGRU', 'NStepLSTM',
                                  'NStepBiLSTM', 'NStepRNNTanh',
                                  'NStepBiRNNReLU'])
def test_n_step_recurrent(name, opset, device):
    # two layers, sequences of lengths 5, 3, 3, 1 (longest first, as
    # Chainer's n_step functions need): every output agrees with ONNX
    # Runtime's GRU/LSTM/RNN ops run on the padded batch
    numpy.random.seed(7)
    link = getattr(L, name)(2, 3, 4, 0.0)
    xs = [_rand(n, 3, seed=30 + n) for n in (5, 3, 3, 1)]
    m = _run(_Recurrent(link, 'LSTM' in name), xs, opset, device,
             atol=1e-5)
    ops = {n.op_type for n in m.graph.node}
    if intel64.is_ideep_available():
        # one NStepRNN node, exported as ONNX's recurrent op (without the
        # native module n_step_* is built of its cells' functions, which
        # export one by one, and agree just the same)
        assert {'GRU' if 'GRU' in name else 'LSTM' if 'LSTM' in name
                else 'RNN'} <= ops


class _GRUClassifier(cpuframe.Chain):
    """Token ids -> embeddings -> a bidirectional GRU -> the last layer's
    final states -> class scores (an NLP model's shape)."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(20, 6)
            self.gru = L.NStepBiGRU(2, 6, 5, 0.0)
            self.out = L.Linear(10, 3)

    def forward(self, *ids):
        hy, _ = self.gru(None, [self.embed(i) for i in ids])
        last = F.concat((hy[-2], hy[-1]), axis=1)
        return F.softmax(self.out(last))


@pytest.mark.parametrize('opset', [9, MAX])
def test_gru_classifier_model(opset):
    numpy.random.seed(11)
    ids = [numpy.random.RandomState(n).randint(0, 20, n).astype(numpy.int32)
           for n in (6, 4, 2)]
    m = _run(_GRUClassifier(), ids, opset)
    assert [i.name for i in m.graph.input] == ['Input_0', 'Input_1',
                                                'Input_2']
