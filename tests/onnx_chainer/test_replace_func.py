"""onnx_chainer.replace_func (a Python function exported as one node),
RetainInputHook and testing.get_test_data_set, as Chainer 7's."""
import os
import warnings

import numpy
import pytest

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')

import cpuframe  # noqa: E402
import cpuframe.functions as F  # noqa: E402
import cpuframe.links as L  # noqa: E402
import cpuframe.onnx_chainer as onnx_chainer  # noqa: E402
from cpuframe.onnx_chainer import onnx_helper  # noqa: E402
from cpuframe.onnx_chainer.replace_func import (  # noqa: E402
    as_funcnode,
    fake_as_funcnode,
)
from cpuframe.onnx_chainer.testing import input_generator  # noqa: E402


def _ort(model_proto, *arrays):
    sess = ort.InferenceSession(model_proto.SerializeToString(),
                                providers=['CPUExecutionProvider'])
    feeds = {i.name: a for i, a in zip(sess.get_inputs(), arrays)}
    return sess.run(None, feeds)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        return fn(*args, **kwargs)


class _AddThenSigmoid(cpuframe.Chain):
    def __init__(self, fn, call):
        super().__init__()
        self.fn = fn
        self.call = call

    def forward(self, x):
        return F.sigmoid(self.call(self.fn, x))


@pytest.mark.parametrize('kind', ['positional', 'keyword', 'default'])
def test_replaced_function_uses_a_builtin_converter(kind):
    # The array arithmetic of the function is invisible to the tracer; as
    # one node named AddConstant with a 'value' attribute the built-in
    # converter exports it.
    x = input_generator.increasing(3, 4)
    if kind == 'positional':
        fn = fake_as_funcnode(lambda a, v: a.array + v, 'AddConstant',
                              rename_attributes=[(1, 'value')])
        model = _AddThenSigmoid(fn, lambda f, v: f(v, 0.25))
    elif kind == 'keyword':
        fn = fake_as_funcnode(lambda a=None, value=0.0: a.array + value,
                              'AddConstant')
        model = _AddThenSigmoid(fn, lambda f, v: f(a=v, value=0.25))
    else:
        def add(a, b=0.25):
            return a.array + b
        fn = as_funcnode('AddConstant', rename_attributes=[('b', 'value')])(
            add)
        model = _AddThenSigmoid(fn, lambda f, v: f(v))
    m = _quiet(onnx_chainer.export, model, x, no_testcase=True)
    assert [n.op_type for n in m.graph.node] == ['Constant', 'Add',
                                                 'Sigmoid']
    assert m.graph.node[1].name == 'AddConstant_0'
    assert m.graph.node[1].input[0] == 'Input_0'
    got, = _ort(m, x)
    numpy.testing.assert_allclose(got, 1 / (1 + numpy.exp(-(x + 0.25))),
                                  rtol=1e-6)


def test_without_replacement_the_array_computation_cuts_the_graph():
    x = input_generator.increasing(3, 4)
    m = _quiet(onnx_chainer.export,
               _AddThenSigmoid(None, lambda f, v: v.array + 0.5),
               x, no_testcase=True)
    sig = [n for n in m.graph.node if n.op_type == 'Sigmoid']
    assert len(sig) == 1 and sig[0].input[0] != 'Input_0'


def test_decorated_method_with_an_external_converter():
    class Model(cpuframe.Chain):
        def __init__(self):
            super().__init__()
            self.value = 5.0

        @as_funcnode('NumpyFull')
        def full(self, xs, value=0):
            return numpy.full(xs.shape, value, numpy.float32)

        def forward(self, xs):
            return F.sigmoid(self.full(xs, value=self.value))

    def full_converter(params):
        gb = onnx_helper.GraphBuilder()
        shape = gb.op('Shape', params.input_names)
        value = onnx.helper.make_tensor('value', onnx.TensorProto.FLOAT, [1],
                                        [params.func.value])
        gb.op_output_named('ConstantOfShape', [shape], params.output_names,
                           value=value)
        return gb.nodes()

    x = input_generator.increasing(2, 3, 4)
    m = _quiet(onnx_chainer.export, Model(), x, opset_version=9,
               external_converters={'NumpyFull': full_converter},
               no_testcase=True)
    got, = _ort(m, x)
    numpy.testing.assert_allclose(got, numpy.full(x.shape, 1 / (1 + numpy.exp(
        -5.0)), numpy.float32), rtol=1e-6)
    with pytest.raises(ValueError, match='NumpyFull is not supported'):
        _quiet(onnx_chainer.export, Model(), x, no_testcase=True)


@pytest.mark.parametrize('structure', ['list', 'dict'])
def test_several_outputs_name_as_chainer(structure):
    def tiled(xs, n=5):
        if structure == 'list':
            return [xs.array * i for i in range(1, n + 1)]
        return {str(i): xs.array * i for i in range(1, n + 1)}

    class Model(cpuframe.Chain):
        def forward(self, x):
            out = self.tiled(x)
            return tuple(out) if structure == 'list' else \
                tuple(out.values())

    model = Model()
    model.tiled = fake_as_funcnode(tiled, 'xTiledArray')

    def convert(params):
        assert params.func.n == 5  # the default, as an attribute
        return onnx_helper.make_node('xTiledArray', params.input_names,
                                     params.output_names, domain='custom'),

    x = input_generator.increasing(1, 5)
    with pytest.warns(UserWarning, match='xTiledArray'):
        m = onnx_chainer.export(
            model, x, external_converters={'xTiledArray': convert},
            external_opset_imports={'custom': 1}, no_testcase=True)
    assert [n.name for n in m.graph.node] == ['xTiledArray_0']
    assert [o.name for o in m.graph.output] == \
        ['xTiledArray_0_{}'.format(i) for i in range(5)]


def test_structure_of_the_results_is_kept_and_inputs_may_be_outputs():
    def f(x):
        return {'a': (x, x + 1), 'b': [x + 2, x + 3, x + 4]}

    ff = fake_as_funcnode(f, 'xF', experimental_warning=False)
    x = cpuframe.Variable(input_generator.increasing(2, 3))
    ret = ff(x)
    assert isinstance(ret['a'], tuple) and isinstance(ret['b'], list)
    y = ret['a'][0] + ret['b'][1]
    numpy.testing.assert_allclose(y.array, x.array * 2 + 3, rtol=1e-6)
    node = ret['a'][0].creator
    assert len(node.outputs) == 5 and node.inputs[0] is x.node
    # the gradient flows through the replaced function's own graph
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full(x.shape, 2.0))


@pytest.mark.parametrize('fn,args', [
    (lambda a, b: a * b, (2.3, 4.2)),
    (lambda a, b: a * b.array, (2.3, 4.2)),
    (lambda a, b, c: (a * b, a / b, a * b * c), (2.3, 4.2, 5)),
])
def test_backward_equals_the_original_functions(fn, args):
    xs = [cpuframe.Variable(numpy.array(a)) if isinstance(a, float) else a
          for a in args]
    vs = [x for x in xs if isinstance(x, cpuframe.Variable)]
    want = fn(*xs)
    want = list(want) if isinstance(want, tuple) else [want]
    gwant = cpuframe.grad(want, vs)
    got = fake_as_funcnode(fn, 'fn', experimental_warning=False)(*xs)
    got = list(got) if isinstance(got, tuple) else [got]
    ggot = cpuframe.grad(got, vs)
    for g, w in zip(got, want):
        numpy.testing.assert_allclose(g.array, w.array)
    for g, w in zip(ggot, gwant):
        if w is None:
            assert g is None
        else:
            numpy.testing.assert_allclose(g.array, w.array)


def test_backward_stops_at_the_inputs_and_is_differentiable():
    a = cpuframe.Variable(numpy.array(2.0))
    b = cpuframe.Variable(numpy.array(3.0))
    x0 = a * b
    x1 = cpuframe.Variable(numpy.array(4.0))
    f = fake_as_funcnode(lambda p, q: p * p * q, 'f',
                         experimental_warning=False)
    y = f(x0, x1)
    g0, g1 = cpuframe.grad([y], [x0, x1], enable_double_backprop=True)
    assert float(g0.array) == 2 * 6.0 * 4.0 and float(g1.array) == 36.0
    assert a.grad is None and b.grad is None and x0.grad is None
    # d(g0)/d(x0) = 2 q: the returned gradient is itself differentiable
    gg, = cpuframe.grad([g0], [x0])
    assert float(gg.array) == 8.0
    # and a full backward reaches the upstream inputs through x0
    y.backward()
    assert float(a.grad) == 2 * 6.0 * 4.0 * 3.0


def test_array_results_cannot_backpropagate():
    f = fake_as_funcnode(lambda v: v.array * 0.5, 'MulConstant',
                         experimental_warning=False)
    x = cpuframe.Variable(input_generator.increasing(2, 5))
    y = F.sum(f(x))
    with pytest.raises(ValueError, match='MulConstant returned an array'):
        y.backward()


def test_replaced_function_with_output_grad_in_a_testcase(tmp_path):
    class Model(cpuframe.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(5, 2)

        def half(self, xs, value=0.5):
            return xs * value

        def forward(self, xs):
            return F.sum(self.half(self.l(xs)))

    numpy.random.seed(0)
    model = Model()
    x = input_generator.increasing(2, 5)
    onnx_chainer.export_testcase(model, x, str(tmp_path / 'plain'),
                                 output_grad=True)
    model.half = fake_as_funcnode(model.half, 'MulConstant',
                                  rename_attributes=[('value', 'value')])
    _quiet(onnx_chainer.export_testcase, model, x,
           str(tmp_path / 'replaced'), output_grad=True)
    for i in range(2):
        a, b = (onnx.numpy_helper.to_array(onnx.load_tensor(str(
            tmp_path / d / 'test_data_set_0' / 'gradient_{}.pb'.format(i))))
            for d in ('plain', 'replaced'))
        numpy.testing.assert_allclose(a, b)
    m = onnx.load(str(tmp_path / 'replaced' / 'model.onnx'))
    assert 'MulConstant_0' in [n.name for n in m.graph.node]


def test_bad_calls_are_refused():
    with pytest.raises(TypeError, match='name'):
        fake_as_funcnode(lambda x: x, '')
    f = fake_as_funcnode(lambda x: x, 'f', experimental_warning=False)
    with pytest.raises(ValueError, match='without a Variable'):
        f(numpy.ones(3, numpy.float32))
    g = fake_as_funcnode(lambda x: 3, 'g', experimental_warning=False)
    with pytest.raises(ValueError, match='no array or Variable'):
        g(cpuframe.Variable(numpy.ones(3, numpy.float32)))


def test_retain_input_hook_keeps_every_function_and_its_inputs():
    hook = onnx_chainer.RetainInputHook()
    x = cpuframe.Variable(input_generator.increasing(2, 3))
    with hook:
        y = F.relu(x * 2.0)
    assert [type(f).__name__ for f in hook.order] == ['MulConstant', 'ReLU']
    numpy.testing.assert_array_equal(hook.in_data[id(hook.order[1])][0],
                                     x.array * 2.0)
    assert y.creator is hook.order[1]


def test_gen_test_data_set_writes_per_opset(tmp_path, monkeypatch):
    from cpuframe.onnx_chainer.testing import get_test_data_set
    monkeypatch.chdir(tmp_path)
    numpy.random.seed(0)
    model = L.Linear(4, 3)
    path = get_test_data_set.gen_test_data_set(
        model, input_generator.increasing(2, 4), 'linear', 11)
    assert path == os.path.join('out', 'opset11', 'linear')
    m = onnx.load(os.path.join(path, 'model.onnx'))
    assert m.opset_import[0].version == 11
    assert os.path.isfile(os.path.join(path, 'test_data_set_0',
                                       'output_0.pb'))
