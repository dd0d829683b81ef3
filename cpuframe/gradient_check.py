"""Numerical gradient checks (Chainer's ``gradient_check``).

``check_backward`` compares the analytic gradient of a function against
central differences along a random direction, in float64 unless told
otherwise; ``check_double_backward`` does the same for the gradient of the
gradient.  ``numerical_grad`` gives full numerical gradients.
"""
import numpy

from cpuframe import backend
from cpuframe._backprop import backward
from cpuframe.configuration import using_config
from cpuframe.variable import Variable


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _to_array(x):
    return x.array if isinstance(x, Variable) else x


def numerical_grad(f, inputs, grad_outputs, eps=1e-3,
                   detect_nondifferentiable=False, diff_atol=0, diff_rtol=1e-2,
                   center_outputs=None):
    """Central-difference gradients of ``sum(f() * grad_outputs)``.

    ``f`` takes no argument and reads ``inputs`` (arrays that this function
    perturbs in place and restores).  Returns one array per input.
    """
    if eps <= 0:
        raise ValueError('numerical_grad: expected eps > 0, got {}'.format(eps))
    inputs = tuple(inputs)
    grad_outputs = tuple(grad_outputs)

    def evaluate():
        ys = _as_tuple(f())
        return [numpy.asarray(backend.cpu_device.send(_to_array(y)),
                              dtype=numpy.float64) for y in ys]

    grads = []
    for x in inputs:
        gx = numpy.zeros(x.shape, dtype=numpy.float64)
        flat = x.reshape(-1) if x.flags.c_contiguous else None
        if flat is None:
            raise ValueError('numerical_grad: expected C-contiguous inputs')
        for i in range(flat.size):
            orig = flat[i].copy()
            flat[i] = orig + eps
            ys_plus = evaluate()
            flat[i] = orig - eps
            ys_minus = evaluate()
            flat[i] = orig
            total = 0.0
            for yp, ym, gy in zip(ys_plus, ys_minus, grad_outputs):
                if gy is None:
                    continue
                gy = numpy.asarray(backend.cpu_device.send(gy), numpy.float64)
                total += float(((yp - ym) * gy).sum())
            gx.reshape(-1)[i] = total / (2 * eps)
        grads.append(gx.astype(x.dtype, copy=False))
    return grads


def assert_allclose(x, y, atol=1e-5, rtol=1e-4, verbose=True):
    """``numpy.testing.assert_allclose`` accepting Variables and CuPy arrays."""
    x = numpy.asarray(backend.cpu_device.send(_to_array(x)))
    y = numpy.asarray(backend.cpu_device.send(_to_array(y)))
    numpy.testing.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose)


class NondifferentiableError(Exception):
    """The function is not differentiable at the point checked (raised by
    ``check_backward(..., detect_nondifferentiable=True)``)."""


def _one_sided_slopes(f0, f1, f2, fm1, fm2, eps):
    """Second-order one-sided derivative estimates from the right and the
    left; they agree within O(eps**2) where the function is smooth."""
    right = (-3 * f0 + 4 * f1 - f2) / (2 * eps)
    left = (3 * f0 - 4 * fm1 + fm2) / (2 * eps)
    return left, right


class _Checker:
    """Directional-derivative check of ``func`` around ``x_data``."""

    def __init__(self, func, x_data, y_grad, params, eps, atol, rtol,
                 no_grads, dtype, detect_nondifferentiable=False):
        self.detect_nondifferentiable = detect_nondifferentiable
        self.func = func
        self.x_data = tuple(_to_array(x) for x in _as_tuple(x_data))
        self.y_grad = y_grad
        self.params = _as_tuple(params)
        self.eps = eps
        self.atol = atol
        self.rtol = rtol
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        if no_grads is None:
            no_grads = [x is None or x.dtype.kind != 'f' for x in self.x_data]
        elif len(no_grads) != len(self.x_data):
            raise ValueError(
                'check_backward: expected len(no_grads) == len(x_data), got '
                '{} and {}'.format(len(no_grads), len(self.x_data)))
        self.no_grads = list(no_grads)

    def _inputs(self, directions=None, scale=0.0):
        """Fresh input Variables, shifted by ``scale * direction``."""
        xs = []
        k = 0
        for x, ng in zip(self.x_data, self.no_grads):
            if x is None:
                xs.append(None)
                continue
            if ng:
                arr = x.copy()
                if directions is not None and self.dtype is not None and \
                        x.dtype.kind == 'f':
                    # Chainer: skipped float inputs share the dtype too.
                    arr = arr.astype(self.dtype, copy=False)
                xs.append(Variable(arr, requires_grad=False))
                continue
            arr = x
            if directions is not None:
                xp = backend.get_array_module(x)
                dtype = self.dtype or x.dtype
                arr = xp.asarray(x.astype(numpy.float64) +
                                 scale * xp.asarray(directions[k]),
                                 dtype=dtype)
            xs.append(Variable(arr.copy()))
            k += 1
        return xs

    def _backward(self, ys, y_grad):
        # Each output is seeded with its own gradient (in its own dtype):
        # outputs of different dtypes are never summed together.
        outs, seeds = [], []
        for y, gy in zip(ys, y_grad):
            if gy is None:
                continue
            outs.append(y)
            seeds.append(Variable(gy.astype(y.dtype, copy=False),
                                  requires_grad=False))
        if not outs:
            raise ValueError('check_backward: no output has a gradient')
        backward(outs, seeds)

    def run(self):
        for p in self.params:
            p.cleargrad()
        xs = self._inputs()
        ys = [y if isinstance(y, Variable) else Variable(y)
              for y in _as_tuple(self.func(*xs))]
        y_grad = self._y_grads(ys)
        self._backward(ys, y_grad)
        grads = []
        for x, ng in zip(xs, self.no_grads):
            if x is None:
                continue
            if ng:
                if x.grad is not None:
                    raise AssertionError(
                        'check_backward: an input marked no_grads received '
                        'a gradient')
                continue
            grads.append(x.xp.zeros_like(x.array) if x.grad is None
                         else x.grad)
        for p in self.params:
            grads.append(p.xp.zeros_like(p.array) if p.grad is None
                         else p.grad)
        if grads:
            self._compare(grads, y_grad)

    def _y_grads(self, ys):
        if self.y_grad is None:
            for y in ys:
                if y.size != 1:
                    raise ValueError(
                        'check_backward: y_grad is None but an output has '
                        'shape {}'.format(y.shape))
            return [y.xp.ones_like(y.array) for y in ys]
        gys = _as_tuple(self.y_grad)
        if len(gys) != len(ys):
            raise ValueError(
                'check_backward: expected {} y_grad entries (one per output), '
                'got {}'.format(len(ys), len(gys)))
        return [None if g is None else _to_array(g) for g in gys]

    def _compare(self, grads, y_grad):
        rng = numpy.random.RandomState(0)
        directions = [rng.normal(size=g.shape) for g in grads]
        norm = numpy.sqrt(sum(float((d * d).sum()) for d in directions))
        directions = [d / (norm or 1.0) for d in directions]
        analytic = sum(
            float((numpy.asarray(backend.cpu_device.send(g), numpy.float64) *
                   d).sum()) for g, d in zip(grads, directions))
        n_x = len(grads) - len(self.params)
        param_arrays = [p.array for p in self.params]
        param_orig = [a.copy() for a in param_arrays]

        def evaluate(scale):
            xs = self._inputs(directions[:n_x], scale)
            for p, o, d in zip(self.params, param_orig, directions[n_x:]):
                xp = backend.get_array_module(o)
                shifted = o.astype(numpy.float64) + scale * xp.asarray(d)
                if self.dtype is None:
                    p.array[...] = shifted.astype(o.dtype)
                else:
                    # ``dtype`` applies to the parameters too (Chainer 7).
                    p.array = xp.asarray(shifted, dtype=self.dtype)
            # As Chainer's numerical side: no type checks, so that inputs
            # cast to ``dtype`` may meet parameters that were not (a link's
            # float32 bias next to a float64 x).
            with using_config('type_check', False):
                ys = _as_tuple(self.func(*xs))
            total = 0.0
            for y, gy in zip(ys, y_grad):
                if gy is None:
                    continue
                ya = numpy.asarray(backend.cpu_device.send(_to_array(y)),
                                   numpy.float64)
                total += float((ya * numpy.asarray(
                    backend.cpu_device.send(gy), numpy.float64)).sum())
            return total

        try:
            f_plus, f_minus = evaluate(self.eps), evaluate(-self.eps)
            numeric = (f_plus - f_minus) / (2 * self.eps)
            if self.detect_nondifferentiable:
                left, right = _one_sided_slopes(
                    evaluate(0.0), f_plus, evaluate(2 * self.eps), f_minus,
                    evaluate(-2 * self.eps), self.eps)
                if not numpy.isclose(left, right, atol=self.atol, rtol=1e-2):
                    raise NondifferentiableError(
                        'check_backward: the function is not differentiable '
                        'at the point checked: the slope from the left is '
                        '{:.10g}, from the right {:.10g} (eps={})'.format(
                            left, right, self.eps))
        finally:
            for p, a, o in zip(self.params, param_arrays, param_orig):
                p.array = a
                p.array[...] = o
        if not numpy.isclose(analytic, numeric, atol=self.atol,
                             rtol=self.rtol):
            raise AssertionError(
                'check_backward failed: the analytic directional derivative '
                '{:.10g} differs from the numerical one {:.10g} '
                '(atol={}, rtol={}, eps={})'.format(
                    analytic, numeric, self.atol, self.rtol, self.eps))


def check_backward(func, x_data, y_grad, params=(), eps=1e-3, atol=1e-5,
                   rtol=1e-4, no_grads=None, dtype=None,
                   detect_nondifferentiable=False):
    """Assert that ``func``'s backward agrees with numerical differentiation.

    Args:
        func: callable taking Variables (one per entry of ``x_data``).
        x_data: an array or tuple of arrays (the inputs).
        y_grad: an array or tuple of arrays, the output gradients (None for
            a scalar output).
        params: Parameters ``func`` uses whose gradients are checked too.
        eps, atol, rtol: step and tolerances of the comparison.
        no_grads: booleans per input; True skips that input (default:
            non-float inputs).
        dtype: evaluate the numerical side in this dtype (e.g. float64).
        detect_nondifferentiable: also compare the slopes from the left and
            from the right (two more evaluations each side) and raise
            :class:`NondifferentiableError` where they differ (a kink such
            as ``relu`` at 0), instead of reporting a wrong gradient.

    Raises ``AssertionError`` with both values when they disagree.
    """
    _Checker(func, x_data, y_grad, params, eps, atol, rtol, no_grads,
             dtype, detect_nondifferentiable).run()


def check_double_backward(func, x_data, y_grad, x_grad_grad, params=(),
                          params_grad_grad=(), eps=1e-3, atol=1e-4, rtol=1e-3,
                          no_grads=None, dtype=None,
                          detect_nondifferentiable=False):
    """Assert that the gradient of ``func``'s gradient is right.

    Checks the function ``(x, gy) -> gx`` (computed with
    ``enable_double_backprop=True``) with ``check_backward``, seeded with
    ``x_grad_grad``.
    """
    x_data = _as_tuple(x_data)
    params = _as_tuple(params)
    y_grad = _as_tuple(y_grad)
    x_grad_grad = _as_tuple(x_grad_grad)
    n_x = len(x_data)
    if no_grads is None:
        no_grads = [x is None or x.dtype.kind != 'f' for x in x_data]
    first_order_no_grads = list(no_grads)

    def first_order(*args):
        from cpuframe.function_node import grad
        from cpuframe.functions.array.cast import cast
        xs = args[:n_x]
        gys = args[n_x:]
        ys = _as_tuple(func(*xs))
        # Each output is seeded with its gradient in the output's dtype;
        # outputs of different dtypes are never summed together.
        outs, seeds = [], []
        for y, gy in zip(ys, gys):
            if gy is None:
                continue
            if not isinstance(y, Variable):
                y = Variable(y)
            if gy.dtype != y.dtype:
                gy = cast(gy, y.dtype)
            outs.append(y)
            seeds.append(gy)
        if not outs:
            raise ValueError('check_double_backward: no output has a '
                             'gradient')
        inputs = [x for x, ng in zip(xs, first_order_no_grads)
                  if x is not None and not ng] + list(params)
        gxs = grad(outs, inputs, grad_outputs=seeds,
                   enable_double_backprop=True)
        # A zero gradient stays connected to the input so that the second
        # order check still sees a (zero) dependency.
        return tuple(g if g is not None else x * 0
                     for g, x in zip(gxs, inputs))

    ggs = tuple(g for g, ng in zip(x_grad_grad, no_grads) if not ng) + \
        _as_tuple(params_grad_grad)
    check_backward(first_order, x_data + y_grad, ggs, params=params, eps=eps,
                   atol=atol, rtol=rtol,
                   no_grads=list(no_grads) + [False] * len(y_grad),
                   dtype=dtype,
                   detect_nondifferentiable=detect_nondifferentiable)
