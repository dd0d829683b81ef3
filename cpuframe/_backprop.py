"""``chainer.backward``: backpropagation from several outputs at once."""
import warnings

from cpuframe import variable as _variable
from cpuframe.utils import argument


def backward(outputs, grad_outputs=None, **kwargs):
    """backward(outputs, grad_outputs=None, *, enable_double_backprop=False)

    Run backpropagation from all ``outputs`` together: each function in
    their graphs runs once, with the sum of the gradients flowing into it,
    and the gradients of the leaves are accumulated into their ``grad``.

    Args:
        outputs (tuple or list of Variable): where backprop starts.
        grad_outputs (None, tuple or list): the initial gradient of each
            output (a Variable, an array or None to skip that output).
            With None, each output's ``grad_var`` is used and cleared; unlike
            ``Variable.backward`` no gradient of one is implied.
        enable_double_backprop (bool): record the backward computation so
            that the gradients can be differentiated again.
    """
    enable_double_backprop, = argument.parse_kwargs(
        kwargs, ('enable_double_backprop', False),
        retain_grad='semantics for retain_grad=True is under discussion',
        loss_scale='chainer.backward does not support loss_scale option',
    )
    Variable = _variable.Variable
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(
            'outputs must be a tuple or a list, not {}.'.format(type(outputs)))
    for v in outputs:
        if not isinstance(v, Variable):
            raise TypeError(
                'each output must be a Variable, not {}'.format(type(v)))
    if grad_outputs is not None:
        if not isinstance(grad_outputs, (tuple, list)):
            raise TypeError(
                'grad_outputs must be None, a tuple, or a list, not {}.'
                .format(type(grad_outputs)))
        if len(outputs) != len(grad_outputs):
            raise ValueError(
                'grad_outputs must be of the same length as outputs.\n'
                'len(outputs) = {}, len(grad_outputs) = {}'
                .format(len(outputs), len(grad_outputs)))
        grad_outputs = [
            None if g is None else
            g if isinstance(g, Variable) else Variable(g, requires_grad=False)
            for g in grad_outputs]
    else:
        grad_outputs = []
        for y in outputs:
            g = y.grad_var
            if g is None:
                warnings.warn(
                    'outputs contains a Variable without grad, or duplicate '
                    'outputs. Note that chainer.backward does not set '
                    'default grad.', RuntimeWarning, stacklevel=2)
            y.grad_var = None
            grad_outputs.append(g)

    nodes, grads = [], []
    leaf_grads = {}
    for y, g in zip(outputs, grad_outputs):
        if g is None:
            continue
        if y.creator_node is None:
            # An output that is itself a leaf receives its gradient as is.
            leaf_grads.setdefault(y.node, []).append(g)
        else:
            nodes.append(y.node)
            grads.append(g)
    if nodes:
        found = _variable._backprop(nodes, grads, False,
                                    enable_double_backprop)
        for node, g in found.items():
            if g is not None:
                leaf_grads.setdefault(node, []).append(g)

    given = set()
    for node, gs in leaf_grads.items():
        var = node.get_variable_or_none()
        if var is None:
            continue
        g = gs[0] if len(gs) == 1 else _variable._add_grads(
            gs, enable_double_backprop)
        if var.grad_var is None:
            if id(g.array) in given or not _variable._is_writeable(g.array):
                g = _variable._copy_grad(g, enable_double_backprop)
            var.grad_var = g
        else:
            var.grad_var = _variable._add_grads([var.grad_var, g],
                                                enable_double_backprop)
        given.add(id(var.grad_var.array))
