"""Call a function without keeping its intermediate results for backward."""
from cpuframe.configuration import config, force_backprop_mode, no_backprop_mode
from cpuframe.function_node import FunctionNode, grad
from cpuframe.variable import Variable, as_variable


def _call(func, xs):
    outs = func(*xs)
    single = isinstance(outs, Variable)
    if single:
        outs = (outs,)
    if not isinstance(outs, tuple) or not outs or not all(
            isinstance(y, Variable) for y in outs):
        raise RuntimeError('forget: func must return a Variable or a '
                           'non-empty tuple of Variables, got {!r}'.format(
                               type(outs).__name__))
    return outs, single


class Forget(FunctionNode):
    """Runs ``func`` with no graph in forward and again, with one, in
    backward."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError('forget: func must be callable, got {!r}'.format(
                type(func).__name__))
        self.func = func
        self.single = True

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        with no_backprop_mode():
            xs = [Variable(x, requires_grad=False) for x in inputs]
            outs, self.single = _call(self.func, xs)
        return tuple(y.array for y in outs)

    def backward(self, indexes, grad_outputs):
        double = config.enable_backprop
        inputs = self.get_retained_inputs()
        # Recompute on the input Variables themselves so that, under double
        # backprop, the gradients stay connected to them.
        with force_backprop_mode():
            outs, _ = _call(self.func, inputs)
        gys = [y.xp.zeros_like(y.array) if gy is None else gy
               for y, gy in zip(outs, grad_outputs)]
        targets = [inputs[i] for i in indexes]
        # Variables that func reads besides its inputs (a link's parameters)
        # get their gradients accumulated, as a plain call would give them.
        stop = {id(x.node) for x in inputs} | {id(n) for n in self.inputs}
        extras = _leaves(outs, stop)
        gs = grad(list(outs), targets + extras, grad_outputs=gys,
                  enable_double_backprop=double)
        for v, g in zip(extras, gs[len(targets):]):
            if g is not None:
                v.grad_var = g if v.grad_var is None else v.grad_var + g
        return tuple(gs[:len(targets)])


def _leaves(outs, stop):
    """The leaf Variables requiring grad reachable from ``outs`` without
    passing through a node in ``stop`` (ids)."""
    leaves, seen = [], set(stop)
    stack = [y.node for y in outs]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        fnode = node.creator_node
        if fnode is None:
            var = node.get_variable_or_none()
            if var is not None and var.requires_grad:
                leaves.append(var)
            continue
        stack.extend(n for n in fnode.inputs if n is not None)
    return leaves


def forget(func, *xs):
    """Call ``func(*xs)`` keeping no intermediate value for backward.

    The forward pass runs ``func`` without building a graph, so the
    intermediate arrays it creates are freed at once; backward calls
    ``func`` again on the same inputs, with the graph, and backpropagates
    through that.  This trades computation for memory.  ``func`` must be
    deterministic (no dropout with a fresh mask) for the gradients to be
    right.  Variables that ``func`` uses besides ``xs`` (the parameters of
    a link it calls) get their gradients too.  The gradients are
    differentiable again (double backprop).

    Args:
        func: callable taking Variables and returning a Variable or a tuple
            of Variables.
        xs: its inputs (Variables or arrays).

    Returns:
        A Variable, or a tuple of Variables, like ``func``.

    >>> x = cpuframe.Variable(np.array([1., 2.]))
    >>> y = F.forget(lambda a: F.exp(a) * 2, x)
    >>> F.sum(y).backward()
    >>> x.grad
    array([ 5.43656366, 14.7781122 ])
    """
    xs = tuple(as_variable(x) for x in xs)
    node = Forget(func)
    ys = node.apply(xs)
    return ys[0] if node.single else ys
