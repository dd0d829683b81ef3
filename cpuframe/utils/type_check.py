"""Chainer-style type checking of function inputs.

``check_type_forward`` receives ``in_types``, a tuple of lazy expressions.
Comparisons between them build expressions that remember how they were
written, so a failed ``expect`` reports both the expectation
(``in_types[0].ndim >= 2``) and the actual values (``1 < 2``).
"""
import math
import operator
import threading

import numpy


# Whether check_type_forward runs in light mode in this thread (see
# light_check): set only while one runs.
class _Mode(threading.local):
    light = False


_mode = _Mode()


class InvalidType(TypeError):
    """Raised when the inputs of a function do not satisfy its type check."""

    def __init__(self, expect, actual, msg=None):
        if msg is None:
            msg = 'Expect: {0}\nActual: {1}'.format(expect, actual)
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self):
        return type(self), (self.expect, self.actual, self.args[0])


def _repr(value):
    if isinstance(value, numpy.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, numpy.generic):
        return numpy.dtype(value).name
    return repr(value)


class Expr:
    """A lazily evaluated expression that knows its own source text."""

    priority = 0

    def eval(self):
        raise NotImplementedError

    def _text(self, outer_priority=0):
        text = str(self)
        if self.priority < outer_priority:
            return '(' + text + ')'
        return text

    def __bool__(self):
        raise RuntimeError(
            'type_check: an expression ({}) cannot be used as a bool; '
            'use type_check.expect() or type_check.eval()'.format(self))

    __hash__ = None

    def __getattr__(self, name):
        if name.startswith('_'):
            raise AttributeError(name)
        return Member(self, name)

    def __getitem__(self, key):
        return GetItem(self, key)

    def __call__(self, *args):
        return Call(self, args)

    def __neg__(self):
        return UnaryOperator('-', self, operator.neg)

    def __abs__(self):
        return Call(Constant(abs, 'abs'), (self,))


def _make_binary(symbol, func, priority, reflected=False):
    def method(self, other):
        if reflected:
            return BinaryOperator(symbol, _as_expr(other), self, func, priority)
        return BinaryOperator(symbol, self, _as_expr(other), func, priority)
    return method


def _make_compare(symbol, inverse, func):
    def method(self, other):
        return Testable(symbol, inverse, self, _as_expr(other), func)
    return method


for _name, _sym, _fn, _pr in [
        ('add', '+', operator.add, 4), ('sub', '-', operator.sub, 4),
        ('mul', '*', operator.mul, 5), ('truediv', '/', operator.truediv, 5),
        ('floordiv', '//', operator.floordiv, 5), ('mod', '%', operator.mod, 5),
        ('pow', '**', operator.pow, 7)]:
    setattr(Expr, '__{}__'.format(_name), _make_binary(_sym, _fn, _pr))
    setattr(Expr, '__r{}__'.format(_name), _make_binary(_sym, _fn, _pr, True))

for _name, _sym, _inv, _fn in [
        ('eq', '==', '!=', operator.eq), ('ne', '!=', '==', operator.ne),
        ('lt', '<', '>=', operator.lt), ('le', '<=', '>', operator.le),
        ('gt', '>', '<=', operator.gt), ('ge', '>=', '<', operator.ge)]:
    setattr(Expr, '__{}__'.format(_name), _make_compare(_sym, _inv, _fn))


def _as_expr(value):
    return value if isinstance(value, Expr) else Constant(value)


class Constant(Expr):
    priority = 10

    def __init__(self, value, text=None):
        self.value = value
        self.text = text

    def eval(self):
        return self.value

    def __str__(self):
        return self.text if self.text is not None else _repr(self.value)


class Variable(Expr):
    """A named value, such as ``in_types[0]``."""

    priority = 10

    def __init__(self, value, name):
        self.value = value
        self.name = name

    def eval(self):
        return self.value

    def __str__(self):
        return self.name


class Member(Expr):
    priority = 9

    def __init__(self, obj, name):
        self.obj = obj
        self.name = name

    def eval(self):
        return getattr(self.obj.eval(), self.name)

    def __str__(self):
        return '{}.{}'.format(self.obj._text(9), self.name)


class GetItem(Expr):
    priority = 9

    def __init__(self, obj, key):
        self.obj = obj
        self.key = key

    def eval(self):
        key = self.key
        if isinstance(key, tuple):
            key = tuple(eval(k) for k in key)
        else:
            key = eval(key)
        return self.obj.eval()[key]

    def __str__(self):
        if isinstance(self.key, slice):
            key = '{}:{}'.format(
                '' if self.key.start is None else self.key.start,
                '' if self.key.stop is None else self.key.stop)
        else:
            key = str(self.key)
        return '{}[{}]'.format(self.obj._text(9), key)


class Call(Expr):
    priority = 9

    def __init__(self, obj, args):
        self.obj = obj
        self.args = tuple(_as_expr(a) for a in args)

    def eval(self):
        return self.obj.eval()(*[a.eval() for a in self.args])

    def __str__(self):
        return '{}({})'.format(
            self.obj._text(9), ', '.join(str(a) for a in self.args))


class UnaryOperator(Expr):
    priority = 8

    def __init__(self, symbol, term, func):
        self.symbol = symbol
        self.term = term
        self.func = func

    def eval(self):
        return self.func(self.term.eval())

    def __str__(self):
        return self.symbol + self.term._text(8)


class BinaryOperator(Expr):
    def __init__(self, symbol, lhs, rhs, func, priority):
        self.symbol = symbol
        self.lhs = lhs
        self.rhs = rhs
        self.func = func
        self.priority = priority

    def eval(self):
        return self.func(self.lhs.eval(), self.rhs.eval())

    def __str__(self):
        return '{} {} {}'.format(
            self.lhs._text(self.priority), self.symbol,
            self.rhs._text(self.priority + 1))


class Testable:
    """A comparison that ``expect`` can test."""

    def __init__(self, symbol, inverse, lhs, rhs, func):
        self.symbol = symbol
        self.inverse = inverse
        self.lhs = lhs
        self.rhs = rhs
        self.func = func

    def __str__(self):
        return '{} {} {}'.format(self.lhs, self.symbol, self.rhs)

    def __bool__(self):
        raise RuntimeError(
            'type_check: a comparison ({}) cannot be used as a bool; '
            'use type_check.expect()'.format(self))

    def expect(self):
        left = self.lhs.eval()
        right = self.rhs.eval()
        if not self.func(left, right):
            raise InvalidType(
                str(self),
                '{} {} {}'.format(_repr(left), self.inverse, _repr(right)))


class TypeInfo:
    """Shape and dtype of one input, what ``in_types[i]`` evaluates to."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = numpy.dtype(dtype)
        self.ndim = len(self.shape)
        self.size = math.prod(int(n) for n in self.shape)

    def __repr__(self):
        return '<{} shape={} dtype={}>'.format(
            type(self).__name__, self.shape, self.dtype.name)


class TypeInfoTuple(tuple):
    """The tuple of input type expressions passed to ``check_type_forward``."""

    name = 'in_types'

    def size(self):
        return Variable(len(self), '{}.size()'.format(self.name))


class LightTypeInfoTuple(tuple):
    """``in_types`` in light mode (Chainer's name): the input arrays
    themselves (their ``shape``, ``dtype``, ``ndim`` and ``size`` are what
    the expressions would evaluate to)."""

    name = 'in_types'

    def size(self):
        return len(self)


_LightTypes = LightTypeInfoTuple


def get_light_types(data):
    """``data`` (a tuple of arrays) as the ``in_types`` of a light check."""
    if not isinstance(data, tuple):
        raise TypeError('get_light_types: expected a tuple of arrays, got '
                        '{}'.format(type(data).__name__))
    return LightTypeInfoTuple(data)


def in_light_mode():
    """Whether a check runs in light mode now (``in_types`` are arrays and
    every expression is a plain value)."""
    return bool(getattr(_mode, 'light', False))


class _LightFailure(Exception):
    """A light check did not pass (the full check says why)."""


def light_check(check, in_data):
    """Run ``check(in_types)`` (a ``check_type_forward``) in light mode.

    In light mode ``in_types`` holds the arrays, so every comparison is a
    plain bool and nothing is built for an error message: a check that
    passes costs a few attribute reads. Returns True when it passed, False
    when it did not or could not run this way (a ``None`` input, an
    expression only the full mode knows): the caller then runs the check
    with expressions (``get_types``), which raises the message naming the
    expectation and the actual values, exactly as before.
    """
    for x in in_data:
        if x is None:
            return False
    _mode.light = True
    try:
        check(_LightTypes(in_data))
    except Exception:  # noqa: BLE001 - the full check reports it
        return False
    finally:
        _mode.light = False
    return True


def get_types(data, name, accept_none=False):
    """Build a ``TypeInfoTuple`` named ``name`` describing arrays ``data``."""
    infos = []
    for i, x in enumerate(data):
        var_name = '{}[{}]'.format(name, i)
        if x is None:
            if not accept_none:
                raise InvalidType(
                    '{} is an array'.format(var_name), '{} is None'.format(var_name))
            infos.append(Variable(None, var_name))
            continue
        infos.append(Variable(TypeInfo(x.shape, x.dtype), var_name))
    types = TypeInfoTuple(infos)
    types.name = name
    return types


def argname(in_types, names):
    """Give the entries of ``in_types`` readable names (``x``, ``W``...)."""
    if type(in_types) is _LightTypes:
        if len(in_types) != len(names):
            raise _LightFailure
        return
    if len(in_types) != len(names):
        raise InvalidType(
            '{}.size() == {}'.format(in_types.name, len(names)),
            '{} != {}'.format(len(in_types), len(names)),
            'Invalid number of arguments: expected {} ({}), got {}'.format(
                len(names), ', '.join(names), len(in_types)))
    for var, name in zip(in_types, names):
        if isinstance(var, Variable):
            var.name = name


_argname = argname


def expect(*conditions):
    """Check each comparison; raise ``InvalidType`` at the first failure."""
    for cond in conditions:
        if cond is True:
            continue
        if isinstance(cond, Testable):
            cond.expect()
        elif isinstance(cond, (bool, numpy.bool_)):
            if not cond:
                raise InvalidType('True', 'False')
        else:
            raise TypeError(
                'type_check.expect: expected comparisons of type_check '
                'expressions or bools, got {!r}'.format(cond))


def eval(expr):  # noqa: A001 - Chainer's name
    """Evaluate an expression (or return a plain value unchanged)."""
    if isinstance(expr, Expr):
        return expr.eval()
    if type(expr) is tuple:
        for e in expr:
            if isinstance(e, (Expr, tuple, list)):
                break
        else:
            return expr  # a plain shape: nothing to evaluate
    if isinstance(expr, (tuple, list)):
        return type(expr)(eval(e) for e in expr)
    return expr


def same_dtypes(*types):
    """Expect every given type expression to have the same dtype."""
    if not types:
        return
    expect(*[t.dtype == types[0].dtype for t in types[1:]])


def expect_broadcast_shapes(*shape_types, **kwargs):
    """Expect the given shapes to be broadcastable with each other."""
    shapes = [eval(s) for s in shape_types]
    if all(s == shapes[0] for s in shapes[1:]):
        return  # equal shapes broadcast (the common case)
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise InvalidType(  # noqa: B904 - the NumPy error adds nothing
            'shapes broadcastable to each other: {}'.format(
                ', '.join(str(s) for s in shape_types)),
            ', '.join(str(tuple(s)) for s in shapes))


def make_variable(value, name):
    """``value`` as an expression shown as ``name`` in type errors (in
    light mode, the value itself)."""
    if _mode.light:
        return value
    return Variable(value, name)




def _prod_impl(xs):
    result = 1
    for x in xs:
        result *= x
    return result


_prod = Variable(_prod_impl, 'prod')


def prod(xs):
    """The product of ``xs`` (e.g. ``prod(x_type.shape[1:])``) as an
    expression shown as ``prod(...)`` in type errors (in light mode, the
    product)."""
    if _mode.light and not isinstance(xs, Expr):
        return _prod_impl(xs)
    return _prod(xs)


def same_types(*arrays):
    """True if the arrays are all NumPy arrays or all CuPy arrays."""
    if all(isinstance(x, numpy.ndarray) for x in arrays):
        return True
    from cpuframe.backends import cuda
    return all(cuda.is_cupy_array(x) for x in arrays)
