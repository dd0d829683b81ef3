"""Test harnesses for functions and links (``chainer.testing.function_link``).

``FunctionTestCase`` checks a function's forward output against a NumPy
reference, and its backward and double backward against numerical
differentiation (``cpuframe.gradient_check``), on the device of the
injected ``backend_config``::

    @testing.inject_backend_tests(None, [{}, {'use_ideep': 'always'}])
    class TestReLU(testing.FunctionTestCase):
        dodge_nondifferentiable = True

        def generate_inputs(self):
            return numpy.random.uniform(-1, 1, (3, 4)).astype('f'),

        def forward(self, inputs, device):
            x, = inputs
            return F.relu(x),

        def forward_expected(self, inputs):
            x, = inputs
            return numpy.maximum(x, 0),

``LinkTestCase`` does the same for a link (the gradients of the inputs and
of the parameters named by ``param_names``), ``LinkInitializersTestCase``
checks that a link fills its parameters with the initializers it is given.

Differences from Chainer: inputs on the Intel64 device stay dense
``mdarray``s (``contiguous=None`` makes only NumPy/CuPy arrays
non-contiguous), and a class that was not given ``inject_backend_tests``
runs its tests once on the NumPy device instead of failing.
"""
import contextlib
import io
import unittest

import numpy

from cpuframe.testing import array as array_module

_MAX_DODGE_ATTEMPTS = 100


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class _TestError(AssertionError):
    """A harness failure (an ``AssertionError``)."""

    @classmethod
    def check(cls, expr, message):
        if not expr:
            raise cls(message)

    @classmethod
    def fail(cls, message, exc=None):
        if exc is not None:
            raise cls('{}\n\n(caused by) {}: {}'.format(
                message, type(exc).__name__, exc)) from exc
        raise cls(message)

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(cls, message, error_types=AssertionError):
        try:
            yield
        except error_types as e:
            cls.fail(message, e)


class FunctionTestError(_TestError):
    """Raised when the function under test is implemented incorrectly."""


class LinkTestError(_TestError):
    """Raised when the link under test is implemented incorrectly."""


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _cpu_device():
    from cpuframe import backend
    return backend.cpu_device


def _default_backend_config():
    from cpuframe.testing.backend import BackendConfig
    return BackendConfig({})


def _format_array_props(arrays):
    return '({})'.format(', '.join(
        'None' if a is None else '{}:{}'.format(tuple(a.shape), a.dtype)
        for a in arrays))


def _check_array_types(arrays, device, func_name):
    if not isinstance(arrays, tuple):
        raise TypeError('`{}()` must return a tuple, not {}.'.format(
            func_name, type(arrays).__name__))
    if not all(a is None or isinstance(a, device.supported_array_types)
               for a in arrays):
        raise TypeError(
            '{}() must return a tuple of arrays supported by device {} or '
            'None.\nActual: {}'.format(
                func_name, device, tuple(type(a) for a in arrays)))


def _check_variable_types(outputs, device, func_name, error_cls):
    from cpuframe.variable import Variable
    if not isinstance(outputs, tuple):
        error_cls.fail('`{}()` must return a tuple, not {}.'.format(
            func_name, type(outputs).__name__))
    if not all(isinstance(v, Variable) for v in outputs):
        error_cls.fail('{}() must return a tuple of Variables.\n'
                       'Actual: {}'.format(
                           func_name, ', '.join(str(type(v))
                                                for v in outputs)))
    if not all(isinstance(v.array, device.supported_array_types)
               for v in outputs):
        error_cls.fail(
            '{}() must return a tuple of Variables of arrays supported by '
            'device {}.\nActual: {}'.format(
                func_name, device,
                ', '.join(str(type(v.array)) for v in outputs)))


def _check_arrays_equal(actual_arrays, expected_arrays, error_cls, **opts):
    """Fail with ``error_cls`` unless the arrays match (count, shape, dtype
    and values within ``opts``, passed to ``assert_allclose``)."""
    message = detail = None
    if len(actual_arrays) != len(expected_arrays):
        message = 'Number of outputs ({}, {}) does not match'.format(
            len(actual_arrays), len(expected_arrays))
    elif not all(a.shape == e.shape and a.dtype == e.dtype
                 for a, e in zip(actual_arrays, expected_arrays)):
        message = 'Shapes and/or dtypes do not match'
    else:
        errors = []
        for i, (a, e) in enumerate(zip(actual_arrays, expected_arrays)):
            try:
                array_module.assert_allclose(a, e, **opts)
            except AssertionError as err:
                errors.append((i, err))
        if errors:
            message = ('Outputs do not match the expected values.\n'
                       'Indices of outputs that do not match: {}'.format(
                           ', '.join(str(i) for i, _ in errors)))
            f = io.StringIO()
            for i, err in errors:
                f.write('Error details of output [{}]:\n{}\n'.format(i, err))
            detail = f.getvalue()
    if message is not None:
        msg = ('{}\nExpected shapes and dtypes: {}\n'
               'Actual shapes and dtypes:   {}\n'.format(
                   message, _format_array_props(expected_arrays),
                   _format_array_props(actual_arrays)))
        if detail is not None:
            msg += '\n\n' + detail
        error_cls.fail(msg)


def _is_float(a):
    return a is not None and numpy.dtype(a.dtype).kind == 'f'


def _to_variables(arrays):
    from cpuframe.variable import Variable
    return tuple(None if a is None else
                 Variable(a, requires_grad=_is_float(a)) for a in arrays)


def _sign_directions(shapes):
    """Directions moving every element by +-1: all +1, then one per bit of
    the elements' joint index (+1 where the bit is set, -1 elsewhere), so
    that any two elements move apart along at least one of them."""
    sizes = [int(numpy.prod(shape)) for shape in shapes]
    total = sum(sizes)
    n_bits = max(1, int(total - 1).bit_length())
    index = numpy.arange(total)
    patterns = [numpy.ones(total)] + [
        numpy.where((index >> bit) & 1, 1.0, -1.0) for bit in range(n_bits)]
    offsets = numpy.cumsum([0] + sizes)
    for pattern in patterns:
        yield [pattern[offsets[i]:offsets[i + 1]].reshape(shape)
               for i, shape in enumerate(shapes)]


def _nondifferentiable(evaluate, arrays, perturb, eps):
    """Whether ``evaluate`` has a kink (or a jump) within ``2 * eps`` of
    ``arrays``.

    ``evaluate(arrays)`` returns NumPy arrays; ``perturb[i]`` tells whether
    ``arrays[i]`` moves.  Along each of ``_sign_directions`` (every element
    moves by ``eps`` per step, at least as far as the gradient check moves
    it), each output element's left and right one-sided derivatives
    (second-order stencils on -2h..0 and 0..2h) must agree within 0.1%
    (more for a large ``eps``) plus rounding noise; where they do not, the
    same with half the step (the points within ``eps``) tells a kink (the
    mismatch stays) from curvature (it falls about 4x): only a kink makes
    the point nondifferentiable.  A non-finite value counts as
    nondifferentiable.
    """
    base = [None if a is None else
            numpy.asarray(_cpu_device().send(a), numpy.float64)
            for a in arrays]
    moving = [i for i, (b, p) in enumerate(zip(base, perturb))
              if p and b is not None and b.size]
    if not moving:
        return False
    floats = [a for a in arrays if _is_float(a)]
    dtype_eps = max(numpy.finfo(numpy.dtype(a.dtype)).eps for a in floats) \
        if floats else 1e-16
    rtol = max(1e-3, 4 * eps * eps)
    for parts in _sign_directions([base[i].shape for i in moving]):
        directions = dict(zip(moving, parts))

        def at(k, directions=directions):
            shifted = []
            for i, (a, b) in enumerate(zip(arrays, base)):
                if i in directions:
                    shifted.append((b + k * eps * directions[i])
                                   .astype(a.dtype))
                else:
                    shifted.append(a)
            return [numpy.asarray(y, numpy.float64).ravel()
                    for y in evaluate(shifted)]
        values = [at(k) for k in (-2, -1, -0.5, 0, 0.5, 1, 2)]
        for m2, m1, mh, c, ph, p1, p2 in zip(*values):
            stencil = (m2, m1, mh, c, ph, p1, p2)
            if not all(numpy.all(numpy.isfinite(v)) for v in stencil):
                return True
            scale = max(numpy.abs(v).max(initial=0.0) for v in stencil)
            wide = _slope_mismatch(m2, m1, c, p1, p2, eps, scale, dtype_eps,
                                   rtol)
            if wide is None:
                continue
            # A smooth function's mismatch is its curvature's, which falls
            # 4x with the step (many inputs moving at once make it large);
            # a kink within the check's reach (eps) keeps it.
            narrow = _slope_mismatch(m1, mh, c, ph, p1, eps / 2, scale,
                                     dtype_eps, rtol)
            if narrow is not None and numpy.any(narrow > wide / 2):
                return True
    return False


def _slope_mismatch(m2, m1, c, p1, p2, h, scale, dtype_eps, rtol):
    """``|left - right|`` of the one-sided second-order slopes at ``c``
    (points ``-2h..2h``) where it exceeds rounding noise and ``rtol`` of
    the slopes (0 elsewhere), or None where it nowhere does."""
    left = (3 * c - 4 * m1 + m2) / (2 * h)
    right = (-3 * c + 4 * p1 - p2) / (2 * h)
    noise = 20 * dtype_eps * (scale + 1) / h
    bound = noise + rtol * numpy.maximum(numpy.abs(left), numpy.abs(right))
    gap = numpy.abs(left - right)
    over = gap > bound
    if not numpy.any(over):
        return None
    return numpy.where(over, gap, 0.0)


def _check_options(numerical_grad_dtype, options):
    """Keyword arguments of a gradient check: ``dtype`` is
    ``numerical_grad_dtype`` unless the options name one."""
    opts = {'dtype': numerical_grad_dtype}
    opts.update(options)
    return opts


def _dodging(check_point, run_check, error_cls):
    """Call ``check_point()`` for fresh data until it reports a
    differentiable point, then ``run_check`` on that data."""
    for _ in range(_MAX_DODGE_ATTEMPTS):
        data = check_point()
        if data is not None:
            return run_check(data)
    error_cls.fail('dodge_nondifferentiable: no differentiable point found '
                   'in {} attempts of generate_inputs'.format(
                       _MAX_DODGE_ATTEMPTS))


def _as_float64_for_check(arrays, device):
    """The float arrays as float64 on ``device`` (others as they are)."""
    return tuple(
        a if not _is_float(a) else device.send(
            numpy.asarray(_cpu_device().send(a), numpy.float64))
        for a in arrays)


def _evaluate_with_fallback(evaluate, arrays, device):
    """An evaluate function for ``_nondifferentiable``: in float64 when the
    function accepts it, else in the arrays' own dtypes."""
    def evaluate_as_is(xs):
        return evaluate(xs)
    try:
        evaluate(_as_float64_for_check(arrays, device))
    except Exception:
        return evaluate_as_is, arrays
    return evaluate_as_is, _as_float64_for_check(arrays, device)


# ---------------------------------------------------------------------------
# Initializers
# ---------------------------------------------------------------------------

def _check_is_initializer_like(init):
    from cpuframe import backend
    if not (callable(init) or numpy.isscalar(init) or backend.is_array(init)):
        raise TypeError('expected an initializer, a scalar or an array, got '
                        '{!r}'.format(init))


class InitializerArgument:
    """A link constructor argument and the initializer it stands for.

    For ``LinkTestCase.generate_params`` and
    ``LinkInitializersTestCase.get_initializers`` when what the link is
    given (e.g. ``None``) is not itself the initializer it ends up using
    (e.g. its default ``initializers.LeCunNormal()``).
    """

    def __init__(self, argument_value, expected_initializer):
        if expected_initializer is None:
            raise ValueError('InitializerArgument: the expected initializer '
                             'cannot be None')
        _check_is_initializer_like(expected_initializer)
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer

    def __repr__(self):
        return 'InitializerArgument({!r}, {!r})'.format(
            self.argument_value, self.expected_initializer)


def _check_generated_initializer(init):
    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    elif init is None:
        raise ValueError(
            'A None initializer must be wrapped in an InitializerArgument '
            'together with the initializer the link falls back to.')
    _check_is_initializer_like(init)


def _argument_value(init):
    return init.argument_value if isinstance(init, InitializerArgument) \
        else init


def _expected_initializer(init):
    return init.expected_initializer \
        if isinstance(init, InitializerArgument) else init


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------

class FunctionTestBase:
    """The ``FunctionTestCase`` machinery without the test methods.

    Required: ``generate_inputs()`` (a tuple of NumPy arrays),
    ``forward(inputs, device)`` (Variables in, a tuple of Variables out)
    and ``forward_expected(inputs)`` (NumPy in, a tuple of NumPy arrays
    out).  Optional: ``generate_grad_outputs(outputs_template)``,
    ``generate_grad_grad_inputs(inputs_template)``, ``before_test(name)``.

    Attributes: ``check_forward_options``, ``check_backward_options``,
    ``check_double_backward_options`` (dicts: ``atol``/``rtol`` of the
    forward comparison, keyword arguments of ``check_backward`` and
    ``check_double_backward``), ``skip_forward_test``,
    ``skip_backward_test``, ``skip_double_backward_test``,
    ``dodge_nondifferentiable`` (regenerate inputs that lie within the
    gradient check's step of a point where the function is not
    differentiable), ``numerical_grad_dtype`` (float64) and ``contiguous``
    (``None``: non-contiguous inputs, ``'C'``: C-contiguous).
    """

    backend_config = None
    check_forward_options = None
    check_backward_options = None
    check_double_backward_options = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64
    contiguous = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.check_forward_options = dict(
            type(self).check_forward_options or {})
        self.check_backward_options = dict(
            type(self).check_backward_options or {})
        self.check_double_backward_options = dict(
            type(self).check_double_backward_options or {})

    def before_test(self, test_name):
        pass

    def forward(self, inputs, device):
        raise NotImplementedError('forward() is not implemented.')

    def forward_expected(self, inputs):
        raise NotImplementedError('forward_expected() is not implemented.')

    def generate_inputs(self):
        raise NotImplementedError('generate_inputs() is not implemented.')

    def generate_grad_outputs(self, outputs_template):
        return tuple(
            None if a is None else
            numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in outputs_template)

    def generate_grad_grad_inputs(self, inputs_template):
        return tuple(
            None if a is None else
            numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in inputs_template)

    def check_forward_outputs(self, outputs, expected_outputs):
        assert isinstance(outputs, tuple)
        assert isinstance(expected_outputs, tuple)
        _check_arrays_equal(outputs, expected_outputs, FunctionTestError,
                            **self.check_forward_options)

    # -- internals ----------------------------------------------------------

    def _to_noncontiguous_as_needed(self, arrays):
        if self.contiguous is None:
            return array_module._as_noncontiguous_array(arrays)
        if self.contiguous == 'C':
            return arrays
        raise ValueError("contiguous: expected None or 'C', got {!r}".format(
            self.contiguous))

    def _generate_inputs(self):
        inputs = self.generate_inputs()
        _check_array_types(inputs, _cpu_device(), 'generate_inputs')
        return inputs

    def _generate_grad_outputs(self, outputs_template):
        grads = self.generate_grad_outputs(outputs_template)
        _check_array_types(grads, _cpu_device(), 'generate_grad_outputs')
        return grads

    def _generate_grad_grad_inputs(self, inputs_template):
        grads = self.generate_grad_grad_inputs(inputs_template)
        _check_array_types(grads, _cpu_device(), 'generate_grad_grad_inputs')
        return grads

    def _forward_expected(self, inputs):
        outputs = self.forward_expected(inputs)
        _check_array_types(outputs, _cpu_device(), 'forward_expected')
        return outputs

    def _forward(self, inputs, backend_config):
        from cpuframe.variable import Variable
        assert all(x is None or isinstance(x, Variable) for x in inputs)
        with backend_config:
            outputs = self.forward(inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, 'forward',
                              FunctionTestError)
        return outputs

    def _start(self, backend_config, test_name):
        if backend_config is None:
            backend_config = _default_backend_config()
        self.backend_config = backend_config
        self.test_name = test_name
        self.before_test(test_name)
        return backend_config

    def run_test_forward(self, backend_config):
        """The forward test: outputs match ``forward_expected``, inputs are
        left unmodified."""
        if self.skip_forward_test:
            raise unittest.SkipTest('skip_forward_test is set')
        backend_config = self._start(backend_config, 'test_forward')

        cpu_inputs = self._to_noncontiguous_as_needed(self._generate_inputs())
        inputs_copied = [None if a is None else a.copy() for a in cpu_inputs]
        cpu_expected = self._forward_expected(cpu_inputs)

        inputs = self._to_noncontiguous_as_needed(
            backend_config.get_array(cpu_inputs))
        outputs = self._forward(_to_variables(inputs), backend_config)

        modified = []
        for i, (before, after) in enumerate(zip(inputs_copied, inputs)):
            if before is None:
                continue
            try:
                array_module.assert_allclose(before, after, atol=0, rtol=0)
            except AssertionError:
                modified.append(i)
        if modified:
            f = io.StringIO()
            f.write('Input arrays have been modified during forward.\n'
                    'Indices of modified inputs: {}\n'
                    'Input array shapes and dtypes: {}\n'.format(
                        ', '.join(str(i) for i in modified),
                        _format_array_props(inputs)))
            for i in modified:
                f.write('\nInput[{}]:\nOriginal:\n{}\nAfter forward:\n{}\n'
                        .format(i, inputs_copied[i],
                                _cpu_device().send(inputs[i])))
            FunctionTestError.fail(f.getvalue())

        self.check_forward_outputs(tuple(v.array for v in outputs),
                                   cpu_expected)

    def _backward_data(self, backend_config, double):
        inputs = self._generate_inputs()
        outputs = self._forward_expected(inputs)
        grad_outputs = self._generate_grad_outputs(outputs)
        grad_grad_inputs = None
        if double:
            grad_grad_inputs = self._generate_grad_grad_inputs(inputs)
            if len(grad_grad_inputs) != len(inputs):
                raise ValueError(
                    'generate_grad_grad_inputs() must return one array per '
                    'input ({}), got {}'.format(len(inputs),
                                                len(grad_grad_inputs)))
        device_inputs = self._to_noncontiguous_as_needed(
            backend_config.get_array(inputs))
        grad_outputs = self._to_noncontiguous_as_needed(
            backend_config.get_array(grad_outputs))
        if double:
            # One entry per input, None for the non-float ones (as
            # cpuframe's check_double_backward takes them).
            grad_grad_inputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(tuple(
                    g if _is_float(x) else None
                    for g, x in zip(grad_grad_inputs, inputs))))
        return device_inputs, grad_outputs, grad_grad_inputs

    def _differentiable_at(self, backend_config, inputs, grad_outputs,
                           double):
        from cpuframe.function_node import grad as grad_fn
        eps = (self.check_double_backward_options if double
               else self.check_backward_options).get('eps', 1e-3)
        perturb = [_is_float(x) for x in inputs]
        device = backend_config.device

        def evaluate(xs):
            with backend_config:
                vs = _to_variables(backend_config.get_array(xs))
                ys = self.forward(vs, device)
                out = [_cpu_device().send(y.array) for y in ys]
                if double:
                    targets = [v for v in vs if v is not None and
                               v.requires_grad]
                    gys = [None if g is None else
                           _to_variables((g.astype(y.dtype),))[0]
                           for g, y in zip(grad_outputs, ys)]
                    gxs = grad_fn(list(ys), targets, gys)
                    out += [_cpu_device().send(g.array) for g in gxs
                            if g is not None]
            return out

        evaluate, arrays = _evaluate_with_fallback(evaluate, inputs, device)
        return not _nondifferentiable(evaluate, arrays, perturb, eps)

    def _run_gradient_test(self, backend_config, double):
        from cpuframe import gradient_check

        def f(*args):
            return self._forward(args, backend_config)

        def point():
            data = self._backward_data(backend_config, double)
            if self.dodge_nondifferentiable and not self._differentiable_at(
                    backend_config, data[0], data[1], double):
                return None
            return data

        def check(data):
            inputs, grad_outputs, grad_grad_inputs = data
            if double:
                with backend_config:
                    with FunctionTestError.raise_if_fail(
                            'double backward is not implemented correctly'):
                        gradient_check.check_double_backward(
                            f, inputs, grad_outputs, grad_grad_inputs,
                            **_check_options(
                                self.numerical_grad_dtype,
                                self.check_double_backward_options))
            else:
                with FunctionTestError.raise_if_fail(
                        'backward is not implemented correctly'):
                    gradient_check.check_backward(
                        f, inputs, grad_outputs,
                        **_check_options(self.numerical_grad_dtype,
                                         self.check_backward_options))

        _dodging(point, check, FunctionTestError)

    def run_test_backward(self, backend_config):
        """The backward test against numerical gradients."""
        if self.skip_backward_test:
            raise unittest.SkipTest('skip_backward_test is set')
        backend_config = self._start(backend_config, 'test_backward')
        self._run_gradient_test(backend_config, double=False)

    def run_test_double_backward(self, backend_config):
        """The double backward test against numerical gradients."""
        if self.skip_double_backward_test:
            raise unittest.SkipTest('skip_double_backward_test is set')
        backend_config = self._start(backend_config, 'test_double_backward')
        self._run_gradient_test(backend_config, double=True)


class FunctionTestCase(FunctionTestBase, unittest.TestCase):
    """Forward, backward and double backward tests of a function.

    See ``FunctionTestBase`` for what a subclass defines; decorate it with
    ``testing.inject_backend_tests`` to run on several backends.
    """

    def test_forward(self, backend_config=None):
        """Tests forward computation."""
        self.run_test_forward(backend_config)

    def test_backward(self, backend_config=None):
        """Tests backward computation."""
        self.run_test_backward(backend_config)

    def test_double_backward(self, backend_config=None):
        """Tests double-backward computation."""
        self.run_test_double_backward(backend_config)


# ---------------------------------------------------------------------------
# Links
# ---------------------------------------------------------------------------

def _resolve_param(link, name):
    """``(owner, attribute)`` of a parameter name (``'W'``, ``'l1/W'``)."""
    parts = [p for p in name.replace('.', '/').split('/') if p]
    owner = link
    for part in parts[:-1]:
        owner = getattr(owner, part)
    return owner, parts[-1]


def _get_link_params(link, param_names):
    from cpuframe.variable import Parameter
    params = []
    for name in param_names:
        owner, attr_name = _resolve_param(link, name)
        param = getattr(owner, attr_name, None)
        if not isinstance(param, Parameter):
            LinkTestError.fail(
                'Link {} has no parameter {!r} (param_names)'.format(
                    type(link).__name__, name))
        params.append(param)
    return params


class _LinkTestBase:

    backend_config = None
    contiguous = None
    param_names = ()
    check_forward_options = None
    check_backward_options = None
    check_initializers_options = None
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.check_forward_options = dict(
            type(self).check_forward_options or {})
        self.check_backward_options = dict(
            type(self).check_backward_options or {})
        self.check_initializers_options = dict(
            type(self).check_initializers_options or {})

    def before_test(self, test_name):
        pass

    def generate_params(self):
        raise NotImplementedError('generate_params() is not implemented.')

    def generate_inputs(self):
        raise NotImplementedError('generate_inputs() is not implemented.')

    def create_link(self, initializers):
        raise NotImplementedError('create_link() is not implemented.')

    def forward(self, link, inputs, device):
        outputs = link(*inputs)
        if not isinstance(outputs, tuple):
            outputs = outputs,
        return outputs

    def forward_expected(self, link, inputs):
        raise NotImplementedError('forward_expected() is not implemented.')

    def generate_grad_outputs(self, outputs_template):
        return tuple(
            None if a is None else
            numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in outputs_template)

    def check_forward_outputs(self, outputs, expected_outputs):
        _check_arrays_equal(outputs, expected_outputs, LinkTestError,
                            **self.check_forward_options)

    # -- internals ----------------------------------------------------------

    _to_noncontiguous_as_needed = FunctionTestBase._to_noncontiguous_as_needed

    def _start(self, backend_config, test_name):
        if backend_config is None:
            backend_config = _default_backend_config()
        self.backend_config = backend_config
        self.test_name = test_name
        self.before_test(test_name)
        return backend_config

    def _generate_params(self):
        inits = self.generate_params()
        if not isinstance(inits, (tuple, list)):
            raise TypeError('`generate_params` must return a tuple or a '
                            'list.')
        for init in inits:
            _check_generated_initializer(init)
        return inits

    def _generate_inputs(self):
        inputs = self.generate_inputs()
        _check_array_types(inputs, _cpu_device(), 'generate_inputs')
        return inputs

    def _generate_grad_outputs(self, outputs_template):
        grads = self.generate_grad_outputs(outputs_template)
        _check_array_types(grads, _cpu_device(), 'generate_grad_outputs')
        return grads

    def _forward_expected(self, link, inputs):
        outputs = self.forward_expected(link, inputs)
        _check_array_types(outputs, _cpu_device(), 'forward_expected')
        return outputs

    def _create_link(self, inits, backend_config):
        from cpuframe.link import Link
        link = self.create_link(tuple(_argument_value(i) for i in inits))
        if not isinstance(link, Link):
            raise TypeError('`create_link` must return a cpuframe.Link, got '
                            '{}'.format(type(link).__name__))
        link.to_device(backend_config.device)
        return link

    def _forward(self, link, inputs, backend_config):
        with backend_config:
            outputs = self.forward(link, inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, 'forward',
                              LinkTestError)
        return outputs

    def _create_initialized_link(self, inits, backend_config):
        """A link on the device, its parameters initialized by one forward
        pass; returns ``(link, device inputs, device outputs)``."""
        link = self._create_link(inits, backend_config)
        inputs = self._to_noncontiguous_as_needed(
            backend_config.get_array(self._generate_inputs()))
        outputs = self._forward(link, _to_variables(inputs), backend_config)
        link.cleargrads()
        return link, inputs, [v.array for v in outputs]


class LinkTestCase(_LinkTestBase, unittest.TestCase):
    """Forward and backward tests of a link.

    Required: ``generate_params()`` (a tuple of initializer-likes, one per
    initializer argument of the link; ``InitializerArgument`` where the
    argument is not the initializer), ``create_link(initializers)``,
    ``generate_inputs()`` (a tuple of NumPy arrays) and, for the forward
    test, ``forward_expected(link, inputs)`` (the link is on the CPU,
    inputs and outputs are NumPy arrays).  Optional:
    ``forward(link, inputs, device)`` (default ``link(*inputs)``),
    ``generate_grad_outputs(outputs_template)``, ``before_test(name)``.

    ``param_names`` lists the parameters whose gradients the backward test
    checks along with the inputs'.  Attributes as in ``FunctionTestBase``:
    ``check_forward_options``, ``check_backward_options``,
    ``skip_forward_test``, ``skip_backward_test``,
    ``dodge_nondifferentiable``, ``contiguous``.
    """

    def test_forward(self, backend_config=None):
        """Tests forward computation."""
        if self.skip_forward_test:
            raise unittest.SkipTest('skip_forward_test is set')
        backend_config = self._start(backend_config, 'test_forward')

        inits = self._generate_params()
        link = self._create_link(inits, backend_config)
        inputs_np = self._generate_inputs()
        inputs = self._to_noncontiguous_as_needed(
            backend_config.get_array(inputs_np))
        outputs = self._forward(link, _to_variables(inputs), backend_config)
        outputs = tuple(v.array for v in outputs)

        # The expectation is computed on the CPU.
        link.to_device(_cpu_device())
        expected = self._forward_expected(link, inputs_np)
        self.check_forward_outputs(outputs, expected)

    def test_backward(self, backend_config=None):
        """Tests backward computation (inputs and ``param_names``)."""
        if self.skip_backward_test:
            raise unittest.SkipTest('skip_backward_test is set')
        backend_config = self._start(backend_config, 'test_backward')
        from cpuframe import gradient_check

        def point():
            inits = self._generate_params()
            link, inputs, outputs = self._create_initialized_link(
                inits, backend_config)
            params = _get_link_params(link, self.param_names)
            grad_outputs = self._generate_grad_outputs(
                tuple(_cpu_device().send(y) for y in outputs))
            grad_outputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_outputs))
            param_arrays = tuple(p.array for p in params)
            data = (link, tuple(inputs), grad_outputs, param_arrays)
            if self.dodge_nondifferentiable:
                f = self._params_as_inputs(link, len(inputs), backend_config)

                def evaluate(xs):
                    xs = backend_config.get_array(xs)
                    return [_cpu_device().send(y.array)
                            for y in f(*_to_variables(xs))]
                arrays = tuple(inputs) + param_arrays
                evaluate, arrays = _evaluate_with_fallback(
                    evaluate, arrays, backend_config.device)
                eps = self.check_backward_options.get('eps', 1e-3)
                if _nondifferentiable(evaluate, arrays,
                                      [_is_float(a) for a in arrays], eps):
                    return None
            return data

        def check(data):
            link, inputs, grad_outputs, param_arrays = data
            f = self._params_as_inputs(link, len(inputs), backend_config)
            with LinkTestError.raise_if_fail(
                    'backward is not implemented correctly'):
                gradient_check.check_backward(
                    f, inputs + param_arrays, grad_outputs,
                    **_check_options(self.numerical_grad_dtype,
                                     self.check_backward_options))

        _dodging(point, check, LinkTestError)

    def _params_as_inputs(self, link, n_inputs, backend_config):
        """``f(*inputs, *params)``: the link's forward with the Variables
        after the inputs standing in for the parameters of
        ``param_names``."""
        slots = [_resolve_param(link, name) for name in self.param_names]

        def f(*args):
            xs, ps = args[:n_inputs], args[n_inputs:]
            saved = [getattr(owner, name) for owner, name in slots]
            try:
                for (owner, name), p in zip(slots, ps):
                    object.__setattr__(owner, name, p)
                return self._forward(link, xs, backend_config)
            finally:
                for (owner, name), p in zip(slots, saved):
                    object.__setattr__(owner, name, p)
        return f


class LinkInitializersTestCase(_LinkTestBase, unittest.TestCase):
    """Tests that a link initializes its parameters with the given
    initializers.

    Required as in ``LinkTestCase`` (``generate_params``, ``create_link``,
    ``generate_inputs``) plus ``get_initializers()``: one tuple per
    initializer argument of the link, each listing initializer-likes (or
    ``InitializerArgument``s) to try; the other arguments take the values of
    ``generate_params``.  The initializers must be deterministic.
    ``param_names[i]`` names the parameter the i-th argument initializes;
    ``check_initializers_options`` are the tolerances of the comparison.
    """

    def get_initializers(self):
        raise NotImplementedError('get_initializers() is not implemented.')

    def test_initializers(self, backend_config=None):
        """Tests that the parameters are initialized as expected."""
        backend_config = self._start(backend_config, 'test_initializers')
        all_inits = self.get_initializers()
        if not isinstance(all_inits, (tuple, list)):
            raise TypeError('`get_initializers` must return a tuple or a '
                            'list.')
        if len(all_inits) > len(self.param_names):
            raise ValueError(
                'get_initializers() returned {} groups but param_names names '
                '{} parameters'.format(len(all_inits), len(self.param_names)))
        for i_param, candidates in enumerate(all_inits):
            if not isinstance(candidates, (tuple, list)):
                raise TypeError('`get_initializers` must return a tuple or a '
                                'list of tuples or lists.')
            for init in candidates:
                _check_generated_initializer(init)
            for init in candidates:
                inits = list(self._generate_params())
                inits[i_param] = init
                self._test_single_initializer(i_param, inits, backend_config)

    def _test_single_initializer(self, i_param, inits, backend_config):
        from cpuframe import initializers
        link, _, _ = self._create_initialized_link(inits, backend_config)
        param, = _get_link_params(link, (self.param_names[i_param],))
        actual = numpy.asarray(_cpu_device().send(param.array))
        expected_init = initializers._get_initializer(
            _expected_initializer(inits[i_param]))
        expected = numpy.empty_like(actual)
        expected_init(expected)
        with LinkTestError.raise_if_fail(
                'parameter {!r} is not initialized as expected by {!r}'
                .format(self.param_names[i_param], inits[i_param])):
            array_module.assert_allclose(expected, actual,
                                         **self.check_initializers_options)
