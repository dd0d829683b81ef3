"""Arithmetic on Variables: + - * / ** @, negation and absolute value.

Binary operations broadcast their operands as NumPy does (as Chainer 7
does); backward sums gradients back to each operand's shape.  A Python or
NumPy scalar operand is a constant cast to the Variable's dtype; so is an
array operand (``Variable(float32) + float64_array`` is float32, as in
Chainer).  Two Variables must share their dtype.
"""
import warnings

import numpy

from cpuframe import backend, utils
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.functions.array.sum_to import sum_to, sum_to_array
from cpuframe.utils import type_check
from cpuframe.variable import Variable

# (a forward's NumPy result is returned as it is; force_array only for a
# scalar or another array type: one Python call less per op)
_ndarray = numpy.ndarray


def _sum_to(gx, shape):
    if gx.shape == tuple(shape):
        return gx
    return sum_to(gx, shape)


def _sum_to_array(gx, shape):
    return sum_to_array(gx, shape)


def _const(x, value):
    # A scalar operand as the Variable operators make it (_check_rhs).
    return x.dtype.type(value)


def _check_binary(in_types):
    type_check.argname(in_types, ('lhs', 'rhs'))
    type_check.expect(in_types[0].dtype == in_types[1].dtype)
    type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)


def _check_unary(in_types):
    type_check.argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


def _check_rhs(lhs, rhs, op):
    """Classify ``rhs`` as a Variable, array constant or scalar constant."""
    if isinstance(rhs, Variable):
        return rhs
    if backend.is_array(rhs):
        if rhs.dtype != lhs.dtype:
            # Chainer casts an array constant to the Variable's dtype.
            rhs = intel64.to_numpy(rhs).astype(lhs.dtype, copy=False)
        return Variable(rhs, requires_grad=False)
    if numpy.isscalar(rhs) and not isinstance(rhs, (str, bytes)):
        return lhs.dtype.type(rhs)
    raise TypeError('{}: expected a Variable, an array or a scalar, got '
                    '{}'.format(op, type(rhs).__name__))


def _convert_value_to_string(value):
    """How an operator node's label shows its constant (as Chainer 7): a
    scalar as itself, in parentheses when negative; an array (or a
    Variable's array) as 'constant array'."""
    if isinstance(value, Variable):
        value = value.array
    if numpy.isscalar(value) and not isinstance(value, (str, bytes)):
        return '({})'.format(value) if value < 0 else str(value)
    if backend.is_array(value):
        return 'constant array'
    raise ValueError(
        '_convert_value_to_string: expected a scalar, an array or a '
        'Variable, got {}'.format(type(value).__name__))


def _shown(node):
    # The constant as the user wrote it (``x - 2`` shows ``(-2)``, not the
    # float32 the node computes with).
    return _convert_value_to_string(getattr(node, '_shown', node.value))


class Neg(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    @property
    def label(self):
        return '__neg__'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))

    def forward(self, inputs):
        return utils.force_array(-inputs[0]),

    def backward(self, indexes, gy):
        return neg(gy[0]),

    def backward_arrays(self, indexes, gy):
        return Neg()._compute(gy)


def neg(x):
    """Elementwise negation, ``-x``."""
    return Neg().apply((x,))[0]


class Absolute(FunctionNode):
    @property
    def label(self):
        return '|_|'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_unary(in_types)

    def forward(self, inputs):
        self.retain_inputs((0,))
        return utils.force_array(abs(inputs[0])),

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0]
        return grad_outputs[0] * x.xp.sign(x.array).astype(x.dtype, copy=False),


def absolute(x):
    """Elementwise absolute value, ``|x|``."""
    return Absolute().apply((x,))[0]


class Add(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    @property
    def label(self):
        return '_ + _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_binary(in_types)

    def forward(self, inputs):
        x0, x1 = inputs
        self._shapes = (x0.shape, x1.shape)
        y = x0 + x1
        return (y if type(y) is _ndarray else utils.force_array(y)),

    def intel64_supports(self, inputs):
        # Same-shaped float32 operands (ResNet's residual add): the sum runs
        # on oneDNN in the first mdarray's layout; broadcasting goes to NumPy.
        x0, x1 = inputs
        return x0.shape == x1.shape and x0.ndim >= 1 and \
            intel64.all_float32(inputs)

    # NumPy operands: NumPy adds them at memory speed already.
    intel64_profitable = intel64.size_rule(None)

    intel64_profitable_on_device = intel64.size_rule('add_on_device', 0)

    def forward_intel64(self, inputs):
        x0, x1 = inputs
        self._shapes = (x0.shape, x1.shape)
        return intel64.native().sum(inputs),

    def backward(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        return tuple(_sum_to(gy, self._shapes[i]) for i in indexes)

    def backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        shape = gy.shape
        s0, s1 = self._shapes
        if len(indexes) == 2 and s0 == shape and s1 == shape:
            return gy, gy  # (same shapes, the common case)
        return tuple(_sum_to_array(gy, self._shapes[i]) for i in indexes)


class AddConstant(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return '_ + ' + _shown(self)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))

    def forward(self, inputs):
        x = inputs[0]
        y = x + self.value
        return (y if type(y) is _ndarray and y.dtype is x.dtype
                else utils.force_array(y, x.dtype)),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0],

    def backward_arrays(self, indexes, grad_outputs):
        return grad_outputs[0],


def _bf16_with_float32(arrays):
    """Whether bf16-stored mdarrays (mixed_bf16) come with float32 arrays."""
    for a in arrays:
        if type(a) is not numpy.ndarray:
            break
    else:
        return False  # (NumPy arrays only: the common case)
    kinds = {getattr(a, 'storage_dtype', 'float32') == 'float32'
             for a in arrays}
    return len(kinds) == 2


class MultiAdd(FunctionNode):
    """The sum of several same-shaped arrays, used to accumulate gradients.

    ``donated``: per input, whether the backward engine gives that array up
    (nothing else refers to it); the sum is then accumulated into the first
    such array instead of a new one.
    """

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, donated=None):
        self.donated = donated

    @property
    def label(self):
        return 'MultiAdd'

    def _accumulate_into_donated(self, inputs):
        if not self.donated:
            return None
        if _bf16_with_float32(inputs):
            # the float32 sum of a bf16 gradient and a float32 one cannot be
            # kept in the bf16 buffer (mixed_bf16): a new float32 array
            return None
        for i, given in enumerate(self.donated):
            if given:
                y = inputs[i]
                for j, x in enumerate(inputs):
                    if j != i:
                        y += x
                return y
        return None

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        for t in in_types[1:]:
            type_check.expect(in_types[0].dtype == t.dtype,
                              in_types[0].shape == t.shape)

    def forward(self, inputs):
        y = self._accumulate_into_donated(inputs)
        if y is not None:
            return y,
        y = inputs[0] + inputs[1]
        for x in inputs[2:]:
            y += x
        return utils.force_array(y),

    def intel64_supports(self, inputs):
        return len(inputs) >= 2 and intel64.all_float32(inputs) and \
            inputs[0].ndim >= 1

    # NumPy arrays: NumPy adds them at memory speed already.
    intel64_profitable = intel64.size_rule(None)

    intel64_profitable_on_device = intel64.size_rule('add_on_device', 0)

    def forward_intel64(self, inputs):
        # mdarray arithmetic: the sum in the first mdarray's layout, on the
        # physical buffers (faster here than oneDNN's sum primitive).
        y = self._accumulate_into_donated(inputs)
        if y is not None:
            return y,
        y = inputs[0] + inputs[1]
        for x in inputs[2:]:
            y += x
        return y,

    def backward(self, indexes, grad_outputs):
        return tuple(grad_outputs[0] for _ in indexes)

    def backward_arrays(self, indexes, grad_outputs):
        return tuple(grad_outputs[0] for _ in indexes)


def _accumulate_add(variables, donated=None):
    """Sum of a list of same-shaped Variables (gradient accumulation);
    ``donated`` as in MultiAdd."""
    shapes = {v.shape for v in variables}
    if len(shapes) != 1:
        y = variables[0]
        for v in variables[1:]:
            y = y + v
        return y
    return MultiAdd(donated).apply(tuple(variables))[0]


def add(*xs):
    """Elementwise sum of the inputs (two or more, broadcast together)."""
    if len(xs) == 2:
        return xs[0] + xs[1]
    if len(xs) < 2:
        raise TypeError('add: expected at least two inputs, got {}'.format(
            len(xs)))
    y = xs[0]
    for x in xs[1:]:
        y = y + x
    return y


class Sub(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    @property
    def label(self):
        return '_ - _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_binary(in_types)

    def forward(self, inputs):
        x0, x1 = inputs
        self._shapes = (x0.shape, x1.shape)
        y = x0 - x1
        return (y if type(y) is _ndarray else utils.force_array(y)),

    def backward(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            g = gy if i == 0 else -gy
            ret.append(_sum_to(g, self._shapes[i]))
        return tuple(ret)

    def backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            g = gy if i == 0 else Neg()._compute((gy,))[0]
            ret.append(_sum_to_array(g, self._shapes[i]))
        return tuple(ret)


class SubFromConstant(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return _shown(self) + ' - _'

    def forward(self, inputs):
        return utils.force_array(self.value - inputs[0], inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        return -grad_outputs[0],

    def backward_arrays(self, indexes, grad_outputs):
        return Neg()._compute(grad_outputs)


class Mul(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    @property
    def label(self):
        return '_ * _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_binary(in_types)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        y = inputs[0] * inputs[1]
        return (y if type(y) is _ndarray else utils.force_array(y)),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            other = x1 if i == 0 else x0
            shape = (x0 if i == 0 else x1).shape
            ret.append(_sum_to(gy * other, shape))
        return tuple(ret)

    def backward_arrays(self, indexes, grad_outputs):
        x0, x1 = self._retained_input_arrays()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            other = x1 if i == 0 else x0
            shape = (x0 if i == 0 else x1).shape
            ret.append(_sum_to_array(Mul()._compute((gy, other))[0], shape))
        return tuple(ret)


class MulConstant(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return '_ * ' + _shown(self)

    def forward(self, inputs):
        x = inputs[0]
        y = x * self.value
        return (y if type(y) is _ndarray and y.dtype is x.dtype
                else utils.force_array(y, x.dtype)),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * self.value,

    def backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        return MulConstant(_const(gy, self.value))._compute((gy,))


class Div(FunctionNode):
    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    @property
    def label(self):
        return '_ / _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_binary(in_types)
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        y = inputs[0] / inputs[1]
        return (y if type(y) is _ndarray else utils.force_array(y)),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        gx0 = gy / x1
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to(gx0, x0.shape))
            else:
                ret.append(_sum_to(-gx0 * x0 / x1, x1.shape))
        return tuple(ret)

    def backward_arrays(self, indexes, grad_outputs):
        x0, x1 = self._retained_input_arrays()
        gx0, = Div()._compute((grad_outputs[0], x1))
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to_array(gx0, x0.shape))
            else:
                g, = Neg()._compute((gx0,))
                g, = Mul()._compute((g, x0))
                g, = Div()._compute((g, x1))
                ret.append(_sum_to_array(g, x1.shape))
        return tuple(ret)


class DivFromConstant(FunctionNode):
    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return _shown(self) + ' / _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_unary(in_types)

    def forward(self, inputs):
        self.retain_inputs((0,))
        return utils.force_array(self.value / inputs[0], inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0]
        return grad_outputs[0] * (-self.value) / (x * x),


class PowVarVar(FunctionNode):
    @property
    def label(self):
        return '_ ** _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_binary(in_types)
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return utils.force_array(inputs[0] ** inputs[1]),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.math.exponential import log
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to(gy * x1 * x0 ** (x1 - 1), x0.shape))
            else:
                ret.append(_sum_to(gy * log(x0) * x0 ** x1, x1.shape))
        return tuple(ret)


class PowVarConst(FunctionNode):
    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return '_ ** ' + _shown(self)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_unary(in_types)

    def forward(self, inputs):
        self.retain_inputs((0,))
        return utils.force_array(inputs[0] ** self.value, inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0]
        if self.value == 0:
            return grad_outputs[0] * 0,
        if self.value == 1:
            return grad_outputs[0],
        if self.value == 2:
            return grad_outputs[0] * (x * 2),
        return grad_outputs[0] * self.value * x ** (self.value - 1),


class PowConstVar(FunctionNode):
    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return _shown(self) + ' ** _'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        _check_unary(in_types)

    def forward(self, inputs):
        self.retain_outputs((0,))
        return utils.force_array(self.value ** inputs[0], inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        y = self.get_retained_outputs()[0]
        return grad_outputs[0] * y * float(numpy.log(self.value)),


class MatMul(FunctionNode):
    """Stacked matrix product with optional transposes (ndim >= 2)."""

    def __init__(self, transa=False, transb=False):
        self.transa = transa
        self.transb = transb

    @property
    def label(self):
        return 'MatMul'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('transa', 'transb')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('a', 'b'))
        a, b = in_types
        type_check.expect(a.dtype.kind == 'f', a.dtype == b.dtype,
                          a.ndim >= 2, b.ndim >= 2)
        a_col = a.shape[-2] if self.transa else a.shape[-1]
        b_row = b.shape[-1] if self.transb else b.shape[-2]
        type_check.expect(a_col == b_row)
        type_check.expect_broadcast_shapes(a.shape[:-2], b.shape[:-2])

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        xp = backend.get_array_module(a, b)
        if self.transa:
            a = xp.swapaxes(a, -1, -2)
        if self.transb:
            b = xp.swapaxes(b, -1, -2)
        return utils.force_array(xp.matmul(a, b)),

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                if self.transa:
                    g = _matmul(b, gy, self.transb, True)
                else:
                    g = _matmul(gy, b, False, not self.transb)
                ret.append(_sum_to(g, a.shape))
            else:
                if self.transb:
                    g = _matmul(gy, a, True, self.transa)
                else:
                    g = _matmul(a, gy, not self.transa, False)
                ret.append(_sum_to(g, b.shape))
        return tuple(ret)


def _matmul(a, b, transa, transb):
    return MatMul(transa, transb).apply((a, b))[0]


def _matmul_operands(a, b):
    """Variables of ``a`` and ``b`` in their common float dtype.

    As Chainer's MatMul, operands of different float dtypes multiply in
    NumPy's result dtype; each gradient comes back in its operand's dtype
    (through ``cast``).  Non-float operands are left for the type check.
    """
    from cpuframe.functions.array.cast import cast
    a = a if isinstance(a, Variable) else Variable(a, requires_grad=False)
    b = b if isinstance(b, Variable) else Variable(b, requires_grad=False)
    if a.dtype != b.dtype and a.dtype.kind == 'f' and b.dtype.kind == 'f':
        dtype = numpy.result_type(a.dtype, b.dtype)
        if a.dtype != dtype:
            a = cast(a, dtype)
        if b.dtype != dtype:
            b = cast(b, dtype)
    return a, b


def matmul(a, b, transa=False, transb=False):
    """Matrix product of ``a`` and ``b`` (NumPy's matmul semantics).

    ``a`` and ``b`` are Variables or arrays of float dtypes (different
    float dtypes multiply in NumPy's result dtype).  1-D operands are
    vectors (``transa``/``transb`` do nothing to them); operands with more
    than two dimensions are stacks of matrices in their last two axes,
    broadcast against each other; a 0-D operand scales the other.
    ``transa``/``transb`` transpose the last two axes first.

    >>> a = np.ones((2, 3), np.float32); b = np.ones((3, 4), np.float32)
    >>> F.matmul(a, b).shape
    (2, 4)
    """
    from cpuframe.functions.array.reshape import reshape
    a, b = _matmul_operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        if a.dtype.kind != 'f' or b.dtype.kind != 'f':
            raise type_check.InvalidType(
                'a.dtype.kind == b.dtype.kind == f',
                '{}, {}'.format(a.dtype, b.dtype),
                msg='Invalid operation is performed in: MatMul (Forward)\n\n'
                    'Expect: a.dtype.kind == b.dtype.kind == f\n'
                    'Actual: {}, {}'.format(a.dtype, b.dtype))
        return a * b
    a_vec = a.ndim == 1
    b_vec = b.ndim == 1
    if a_vec:
        a = reshape(a, (1, a.shape[0]))
        transa = False
    if b_vec:
        b = reshape(b, (b.shape[0], 1))
        transb = False
    y = _matmul(a, b, transa, transb)
    if a_vec and b_vec:
        return reshape(y, ())
    if a_vec:
        return reshape(y, y.shape[:-2] + y.shape[-1:])
    if b_vec:
        return reshape(y, y.shape[:-1])
    return y


def batch_matmul(a, b, transa=False, transb=False):
    """Batched matrix product of 3-D (or 2-D as batches of column vectors).

    .. deprecated:: Chainer v3
       Use :func:`matmul` (it warns ``DeprecationWarning``, as Chainer 7).
    """
    from cpuframe.functions.array.reshape import reshape
    warnings.warn('batch_matmul is deprecated. Use matmul instead.',
                  DeprecationWarning, stacklevel=2)
    if a.ndim == 2:
        a = reshape(a, a.shape + (1,))
    if b.ndim == 2:
        b = reshape(b, b.shape + (1,))
    return _matmul(a, b, transa, transb)


def _binary(node_cls, const_cls, reflected_const_cls=None, name='',
            shown=None):
    # ``shown``: the constant a node of const_cls stands for, from the
    # operand as given (``x - c`` is ``x + (-c)``), for its label.
    def method(self, other):
        rhs = _check_rhs(self, other, name)
        if isinstance(rhs, Variable):
            return node_cls().apply((self, rhs))[0]
        node = const_cls(rhs)
        node._shown = other if shown is None else shown(other)
        return node.apply((self,))[0]

    def rmethod(self, other):
        rhs = _check_rhs(self, other, name)
        if isinstance(rhs, Variable):
            return node_cls().apply((rhs, self))[0]
        node = reflected_const_cls(rhs)
        node._shown = other
        return node.apply((self,))[0]
    return method, rmethod


def _floordiv(self, other):
    # Chainer 7: floor(self / other), a constant (floor has no gradient).
    from cpuframe.functions.math.rounding import floor
    return floor(self / other)


def _rfloordiv(self, other):
    # ``other // self`` with ``other`` a scalar or an array (not a Variable).
    from cpuframe.functions.math.rounding import floor
    return floor(self.__rtruediv__(other))


def _matmul_op(self, other):
    return matmul(self, _check_rhs(self, other, '__matmul__')
                  if not numpy.isscalar(other) else _scalar_matmul())


def _rmatmul_op(self, other):
    return matmul(_check_rhs(self, other, '__rmatmul__')
                  if not numpy.isscalar(other) else _scalar_matmul(), self)


def _scalar_matmul():
    raise TypeError('__matmul__: expected a Variable or an array operand, '
                    'got a scalar')


def install_variable_arithmetics():
    """Give Variable its operators (called once at import)."""
    add_, radd = _binary(Add, AddConstant, AddConstant, '__add__')
    sub_, _ = _binary(Sub, lambda v: AddConstant(-v), None, '__sub__',
                      shown=lambda c: -c)
    _, rsub = _binary(Sub, None, SubFromConstant, '__rsub__')
    mul_, rmul = _binary(Mul, MulConstant, MulConstant, '__mul__')
    div_, _ = _binary(Div, lambda v: MulConstant(1 / v)
                      if v != 0 else _DivByConstant(v), None, '__truediv__',
                      shown=lambda c: 1. / c if c != 0 else c)
    _, rdiv = _binary(Div, None, DivFromConstant, '__rtruediv__')
    pow_, _ = _binary(PowVarVar, PowVarConst, None, '__pow__')
    _, rpow = _binary(PowVarVar, None, PowConstVar, '__rpow__')
    Variable.__neg__ = neg
    Variable.__pos__ = lambda self: self
    Variable.__abs__ = absolute
    Variable.__add__ = add_
    Variable.__radd__ = radd
    Variable.__sub__ = sub_
    Variable.__rsub__ = rsub
    Variable.__mul__ = mul_
    Variable.__rmul__ = rmul
    Variable.__truediv__ = div_
    Variable.__rtruediv__ = rdiv
    Variable.__pow__ = pow_
    Variable.__rpow__ = rpow
    Variable.__floordiv__ = _floordiv
    Variable.__rfloordiv__ = _rfloordiv
    Variable.__matmul__ = _matmul_op
    Variable.__rmatmul__ = _rmatmul_op


class _DivByConstant(FunctionNode):
    """``x / 0`` keeps NumPy's inf/nan semantics instead of ``x * inf``."""

    # (its backward_arrays computes gradient nodes of constant settings:
    # @static_graph may replay those directly)
    _static_backward = True

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return '_ / ' + _shown(self)

    def forward(self, inputs):
        with numpy.errstate(divide='ignore', invalid='ignore'):
            return utils.force_array(inputs[0] / self.value, inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] / self.value,

    def backward_arrays(self, indexes, grad_outputs):
        # the node ``gy / value`` makes (Variable.__truediv__)
        gy = grad_outputs[0]
        v = _const(gy, self.value)
        node = MulConstant(1 / v) if v != 0 else _DivByConstant(v)
        return node._compute((gy,))
