"""n_step_rnn/birnn, n_step_gru/bigru and n_step_lstm/bilstm.

The three families share one driver; every test runs over the cell kinds
and directions.  Inputs are time-major (``xs[t]`` of shape ``(B_t, I)``),
as in Chainer.

The intel64 parity tests of this op: tests/backends/intel64/test_rnn.py and
test_rnn_double_backprop.py.
"""
import importlib.util
import pathlib

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check
from cpuframe.utils import type_check


def _load_reference():
    path = pathlib.Path(__file__).with_name('_reference.py')
    spec = importlib.util.spec_from_file_location('_rnn_reference', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = _load_reference()

KINDS = ['rnn_tanh', 'rnn_relu', 'gru', 'lstm']
# per-sequence lengths, longest first; 0 means a sequence with no input
# (hx has a row for it, xs[0] does not)
LENGTHS = {
    'equal': [3, 3, 3],
    'variable': [4, 2, 2, 1],
    'batch1': [3],
    'empty_tail': [3, 2, 0],
}


def _name(kind, bi):
    base = {'rnn_tanh': 'rnn', 'rnn_relu': 'rnn', 'gru': 'gru',
            'lstm': 'lstm'}[kind]
    return 'n_step_' + ('bi' if bi else '') + base


def _call(kind, bi, n_layers, ratio, hx, cx, ws, bs, xs, **kwargs):
    """Run the function of ``kind``; always returns ``(hy, cy, ys)``."""
    func = getattr(F, _name(kind, bi))
    if kind == 'lstm':
        return func(n_layers, ratio, hx, cx, ws, bs, xs, **kwargs)
    if kind.startswith('rnn'):
        kwargs.setdefault('activation', kind[4:])
    hy, ys = func(n_layers, ratio, hx, ws, bs, xs, **kwargs)
    return hy, None, ys


def _assert_close(actual, expected, dtype):
    tol = 1e-12 if dtype == numpy.float64 else 2e-5
    numpy.testing.assert_allclose(actual, expected, atol=tol, rtol=tol)


# -- forward -------------------------------------------------------------

@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
@pytest.mark.parametrize('n_layers', [1, 2])
@pytest.mark.parametrize('case', sorted(LENGTHS))
def test_forward(kind, bi, n_layers, case):
    hx, cx, ws, bs, xs = ref.make_inputs(kind, n_layers, bi, LENGTHS[case])
    hy, cy, ys = _call(kind, bi, n_layers, 0.0, hx, cx, ws, bs, xs)
    e_hy, e_cy, e_ys = ref.reference(kind, n_layers, bi, hx, cx, ws, bs, xs)
    assert isinstance(hy, cpuframe.Variable)
    assert isinstance(ys, tuple) and len(ys) == len(xs)
    _assert_close(hy.array, e_hy, numpy.float64)
    if kind == 'lstm':
        _assert_close(cy.array, e_cy, numpy.float64)
    n_units = hx.shape[2] * (2 if bi else 1)
    for y, e, x in zip(ys, e_ys, xs):
        assert y.shape == (len(x), n_units)
        _assert_close(y.array, e, numpy.float64)


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
def test_forward_float32(kind, bi):
    hx, cx, ws, bs, xs = ref.make_inputs(
        kind, 2, bi, [5, 3, 3], in_size=4, n_units=3, dtype=numpy.float32)
    hy, cy, ys = _call(kind, bi, 2, 0.0, hx, cx, ws, bs, xs)
    e_hy, e_cy, e_ys = ref.reference(kind, 2, bi, hx, cx, ws, bs, xs)
    assert hy.dtype == numpy.float32
    _assert_close(hy.array, e_hy, numpy.float32)
    if kind == 'lstm':
        assert cy.dtype == numpy.float32
        _assert_close(cy.array, e_cy, numpy.float32)
    for y, e in zip(ys, e_ys):
        assert y.dtype == numpy.float32
        _assert_close(y.array, e, numpy.float32)


def test_xs_are_time_major():
    # sequences of lengths 3 and 1: three time steps of batch 2, 1, 1
    hx, cx, ws, bs, xs = ref.make_inputs('lstm', 1, False, [3, 1])
    assert [len(x) for x in xs] == [2, 1, 1]
    hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
    assert [y.shape for y in ys] == [(2, 2), (1, 2), (1, 2)]
    # the second sequence stops after t = 0: its state is ys[0][1]
    numpy.testing.assert_array_equal(hy.array[0, 1], ys[0].array[1])
    numpy.testing.assert_array_equal(hy.array[0, 0], ys[2].array[0])


def test_accepts_variables():
    hx, cx, ws, bs, xs = ref.make_inputs('gru', 2, True, [3, 2])
    expected = F.n_step_bigru(2, 0.0, hx, ws, bs, xs)
    wrap = cpuframe.Variable
    hy, ys = F.n_step_bigru(
        2, 0.0, wrap(hx), [[wrap(w) for w in wl] for wl in ws],
        [[wrap(b) for b in bl] for bl in bs], [wrap(x) for x in xs])
    numpy.testing.assert_array_equal(hy.array, expected[0].array)
    for y, e in zip(ys, expected[1]):
        numpy.testing.assert_array_equal(y.array, e.array)


# -- gradients -----------------------------------------------------------

def _grad_setup(kind, bi, n_layers, lengths, seed):
    hx, cx, ws, bs, xs = ref.make_inputs(kind, n_layers, bi, lengths,
                                         seed=seed)
    ws = [[cpuframe.Parameter(w) for w in wl] for wl in ws]
    bs = [[cpuframe.Parameter(b) for b in bl] for bl in bs]
    n_xs = len(xs)
    has_c = kind == 'lstm'

    def func(*args):
        xs_, hx_ = args[:n_xs], args[n_xs]
        cx_ = args[n_xs + 1] if has_c else None
        hy, cy, ys = _call(kind, bi, n_layers, 0.0, hx_, cx_, ws, bs,
                           list(xs_))
        return (hy, cy) + tuple(ys) if has_c else (hy,) + tuple(ys)

    inputs = tuple(xs) + (hx,) + ((cx,) if has_c else ())
    rng = numpy.random.RandomState(seed + 100)
    outs = func(*inputs)
    gys = tuple(rng.uniform(-1, 1, y.shape) for y in outs)
    params = [p for pl in ws + bs for p in pl]
    return func, inputs, gys, params


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
@pytest.mark.parametrize('n_layers', [1, 2])
@pytest.mark.parametrize('lengths', [[3, 1], [2, 2], [2]])
def test_backward(kind, bi, n_layers, lengths):
    # float64, in 3, hidden 2: xs, hx, cx and every weight and bias
    func, inputs, gys, params = _grad_setup(kind, bi, n_layers, lengths, 3)
    gradient_check.check_backward(func, inputs, gys, params=params,
                                  eps=1e-6, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize('kind', KINDS)
def test_backward_empty_tail(kind):
    func, inputs, gys, params = _grad_setup(kind, True, 1, [2, 1, 0], 4)
    gradient_check.check_backward(func, inputs, gys, params=params,
                                  eps=1e-6, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize('kind', KINDS)
def test_gradients_of_all_inputs_reach_them(kind):
    hx, cx, ws, bs, xs = ref.make_inputs(kind, 2, True, [3, 1])
    wrap = cpuframe.Variable
    xs = [wrap(x) for x in xs]
    hx = wrap(hx)
    cx = None if cx is None else wrap(cx)
    ws = [[wrap(w) for w in wl] for wl in ws]
    bs = [[wrap(b) for b in bl] for bl in bs]
    hy, cy, ys = _call(kind, True, 2, 0.0, hx, cx, ws, bs, xs)
    loss = F.sum(hy) + F.sum(F.concat(ys, axis=0))
    if cy is not None:
        loss = loss + F.sum(cy)
    loss.backward()
    for v in xs + [hx] + ([cx] if cx is not None else []) + \
            [p for pl in ws + bs for p in pl]:
        assert v.grad is not None and v.grad.shape == v.shape


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
def test_double_backward(kind, bi):
    hx, cx, ws, bs, xs = ref.make_inputs(kind, 1, bi, [2, 1], seed=5)
    n_xs = len(xs)
    has_c = kind == 'lstm'
    n_x = ref.N_X[kind]

    def func(*args):
        xs_ = list(args[:n_xs])
        rest = list(args[n_xs:])
        hx_ = rest.pop(0)
        cx_ = rest.pop(0) if has_c else None
        w_h, b_x = rest  # one hidden-side weight and one input bias
        ws_ = [list(wl) for wl in ws]
        bs_ = [list(bl) for bl in bs]
        ws_[0][n_x] = w_h
        bs_[-1][0] = b_x
        hy, cy, ys = _call(kind, bi, 1, 0.0, hx_, cx_, ws_, bs_, xs_)
        return (hy, cy) + tuple(ys) if has_c else (hy,) + tuple(ys)

    inputs = tuple(xs) + (hx,) + ((cx,) if has_c else ()) + \
        (ws[0][n_x], bs[-1][0])
    rng = numpy.random.RandomState(6)
    gys = tuple(rng.uniform(-1, 1, y.shape) for y in func(*inputs))
    ggxs = tuple(rng.uniform(-1, 1, x.shape) for x in inputs)
    gradient_check.check_double_backward(func, inputs, gys, ggxs,
                                         eps=1e-5, atol=1e-6, rtol=1e-5)


# -- dropout -------------------------------------------------------------

@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
def test_dropout_ratio_zero_and_test_mode_are_identity(kind, bi):
    hx, cx, ws, bs, xs = ref.make_inputs(kind, 2, bi, [3, 2, 2])
    e_hy, e_cy, e_ys = ref.reference(kind, 2, bi, hx, cx, ws, bs, xs)
    with cpuframe.using_config('train', True):
        runs = [_call(kind, bi, 2, 0.0, hx, cx, ws, bs, xs)]
    with cpuframe.using_config('train', False):
        runs.append(_call(kind, bi, 2, 0.5, hx, cx, ws, bs, xs))
    for hy, cy, ys in runs:
        _assert_close(hy.array, e_hy, numpy.float64)
        if cy is not None:
            _assert_close(cy.array, e_cy, numpy.float64)
        for y, e in zip(ys, e_ys):
            _assert_close(y.array, e, numpy.float64)


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
def test_dropout_skips_the_first_layer(kind, bi):
    # as in Chainer (and cuDNN), only inputs of layers above the first drop
    hx, cx, ws, bs, xs = ref.make_inputs(kind, 1, bi, [3, 2])
    e_hy, _, e_ys = ref.reference(kind, 1, bi, hx, cx, ws, bs, xs)
    with cpuframe.using_config('train', True):
        hy, _, ys = _call(kind, bi, 1, 0.9, hx, cx, ws, bs, xs)
    _assert_close(hy.array, e_hy, numpy.float64)
    for y, e in zip(ys, e_ys):
        _assert_close(y.array, e, numpy.float64)


@pytest.mark.parametrize('kind', ['gru', 'lstm'])
@pytest.mark.parametrize('bi', [False, True])
def test_dropout_masks(kind, bi):
    # Masks are drawn from numpy.random per layer > 0 and direction, over
    # the packed time-major input, scaled by 1 / (1 - ratio).
    ratio = 0.4
    n_layers = 3
    hx, cx, ws, bs, xs = ref.make_inputs(kind, n_layers, bi, [3, 2, 2])
    n_dirs = 2 if bi else 1
    n_rows = sum(len(x) for x in xs)
    layer_in = hx.shape[2] * n_dirs
    numpy.random.seed(7)
    masks = {}
    for idx in range(n_dirs, n_layers * n_dirs):
        keep = numpy.random.rand(n_rows, layer_in) >= ratio
        masks[idx] = keep / (1 - ratio)
    e_hy, e_cy, e_ys = ref.reference(kind, n_layers, bi, hx, cx, ws, bs, xs,
                                     masks=masks)
    numpy.random.seed(7)
    with cpuframe.using_config('train', True):
        hy, cy, ys = _call(kind, bi, n_layers, ratio, hx, cx, ws, bs, xs)
    _assert_close(hy.array, e_hy, numpy.float64)
    if cy is not None:
        _assert_close(cy.array, e_cy, numpy.float64)
    for y, e in zip(ys, e_ys):
        _assert_close(y.array, e, numpy.float64)
    # and the masks did change something
    plain = ref.reference(kind, n_layers, bi, hx, cx, ws, bs, xs)
    assert not numpy.allclose(hy.array, plain[0])


def test_dropout_backward():
    hx, cx, ws, bs, xs = ref.make_inputs('lstm', 2, True, [3, 1], seed=8)
    n_xs = len(xs)

    def func(*args):
        # the same mask on every evaluation
        numpy.random.seed(9)
        hy, cy, ys = F.n_step_bilstm(2, 0.3, args[n_xs], args[n_xs + 1],
                                     ws, bs, list(args[:n_xs]))
        return (hy, cy) + tuple(ys)

    inputs = tuple(xs) + (hx, cx)
    rng = numpy.random.RandomState(10)
    gys = tuple(rng.uniform(-1, 1, y.shape) for y in func(*inputs))
    with cpuframe.using_config('train', True):
        gradient_check.check_backward(func, inputs, gys, eps=1e-6,
                                      atol=1e-7, rtol=1e-6)


# -- bad input -----------------------------------------------------------

def _bad_call(kind, bi, mutate, n_layers=2):
    hx, cx, ws, bs, xs = ref.make_inputs(kind, 2, bi, [3, 2, 1])
    args = {'n_layers': n_layers, 'ratio': 0.0, 'hx': hx, 'cx': cx,
            'ws': ws, 'bs': bs, 'xs': xs, 'kwargs': {}}
    mutate(args)
    kwargs = args.pop('kwargs')
    return _call(kind, bi, args['n_layers'], args['ratio'], args['hx'],
                 args['cx'], args['ws'], args['bs'], args['xs'], **kwargs)


def _unsorted(a):
    a['xs'] = a['xs'][::-1]


def _hx_layers(a):
    a['hx'] = a['hx'][:-1]


def _hx_batch(a):
    a['hx'] = a['hx'][:, :1]


def _hx_units(a):
    a['hx'] = numpy.zeros(a['hx'].shape[:2] + (3,))


def _hx_ndim(a):
    a['hx'] = a['hx'][0]


def _n_weights(a):
    a['ws'][1] = a['ws'][1][:-1]


def _n_biases(a):
    a['bs'][0] = a['bs'][0] + [a['bs'][0][0]]


def _n_layers(a):
    a['n_layers'] = 3


def _w_shape(a):
    a['ws'][0][0] = numpy.zeros((2, 4))


def _w_shape_upper(a):
    a['ws'][-1][0] = numpy.zeros((2, 3))


def _b_shape(a):
    a['bs'][0][-1] = numpy.zeros(3)


def _x_features(a):
    a['xs'][1] = numpy.zeros((2, 4))


def _x_ndim(a):
    a['xs'][0] = numpy.zeros(3)


def _empty_xs(a):
    a['xs'] = []


def _empty_step(a):
    a['xs'] = a['xs'] + [numpy.zeros((0, 3))]


def _ratio(a):
    a['ratio'] = 1.0


def _bad_n_layers(a):
    a['n_layers'] = 0


def _train_kwarg(a):
    a['kwargs'] = {'train': False}


VALUE_ERRORS = [_unsorted, _hx_layers, _hx_batch, _hx_units, _hx_ndim,
                _n_weights, _n_biases, _n_layers, _w_shape, _w_shape_upper,
                _b_shape, _x_features, _x_ndim, _empty_xs, _empty_step,
                _ratio, _bad_n_layers, _train_kwarg]


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
@pytest.mark.parametrize('mutate', VALUE_ERRORS,
                         ids=[m.__name__[1:] for m in VALUE_ERRORS])
def test_invalid_value(kind, bi, mutate):
    with pytest.raises(ValueError, match=_name(kind, bi) + r'\b'):
        _bad_call(kind, bi, mutate)


def _dtype_x(a):
    a['xs'][1] = a['xs'][1].astype(numpy.float32)


def _dtype_w(a):
    a['ws'][1][1] = a['ws'][1][1].astype(numpy.float32)


def _dtype_hx(a):
    a['hx'] = a['hx'].astype(numpy.float32)


def _int_xs(a):
    a['xs'] = [x.astype(numpy.int32) for x in a['xs']]


def _not_array(a):
    a['bs'][0][0] = [0.0, 0.0]


def _unknown_kwarg(a):
    a['kwargs'] = {'foo': 1}


TYPE_ERRORS = [_dtype_x, _dtype_w, _dtype_hx, _int_xs, _not_array,
               _unknown_kwarg]


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('bi', [False, True])
@pytest.mark.parametrize('mutate', TYPE_ERRORS,
                         ids=[m.__name__[1:] for m in TYPE_ERRORS])
def test_invalid_type(kind, bi, mutate):
    with pytest.raises(TypeError, match=_name(kind, bi) + r'\b'):
        _bad_call(kind, bi, mutate)


@pytest.mark.parametrize('bi', [False, True])
def test_invalid_cx(bi):
    def _cx_shape(a):
        a['cx'] = a['cx'][:, :2]
    with pytest.raises(ValueError, match=_name('lstm', bi) + r'\b'):
        _bad_call('lstm', bi, _cx_shape)


@pytest.mark.parametrize('bi', [False, True])
def test_invalid_activation(bi):
    hx, _, ws, bs, xs = ref.make_inputs('rnn_tanh', 2, bi, [2])
    func = F.n_step_birnn if bi else F.n_step_rnn
    with pytest.raises(ValueError, match=_name('rnn_tanh', bi)):
        func(2, 0.0, hx, ws, bs, xs, activation='sigmoid')


def test_bad_input_is_caught_before_any_work():
    # the error comes from the check, not from a matmul deep inside
    hx, cx, ws, bs, xs = ref.make_inputs('lstm', 2, False, [2, 1])
    ws[1][7] = numpy.zeros((2, 5))
    with pytest.raises(ValueError, match=r'ws\[1\]\[7\]'):
        F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
    assert issubclass(type_check.InvalidType, TypeError)
