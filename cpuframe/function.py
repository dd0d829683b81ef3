"""The old-style ``Function``: forward and backward on arrays.

Kept for Chainer scripts that define ``chainer.Function`` subclasses.  The
function runs inside a ``FunctionAdapter`` node; its backward works on
arrays, so it cannot be differentiated twice (as in Chainer).
"""

import numpy

from cpuframe import backend

# Chainer defines these two here; cpuframe keeps them with the configuration.
from cpuframe.configuration import force_backprop_mode, no_backprop_mode  # noqa: F401
from cpuframe.function_node import FunctionNode
from cpuframe.variable import Variable


class FunctionAdapter(FunctionNode):
    """Runs an old-style ``Function`` as a graph node."""

    def __init__(self, function):
        self._function = function

    @property
    def function(self):
        return self._function

    @property
    def label(self):
        return self._function.label

    def check_type_forward(self, in_types):
        self._function.check_type_forward(in_types)

    def forward(self, inputs):
        f = self._function
        f._input_indexes_to_retain = None
        f._output_indexes_to_retain = None
        outputs = f.forward(inputs)
        if isinstance(outputs, list):
            outputs = tuple(outputs)
        if not isinstance(outputs, tuple):
            raise TypeError('{}.forward: expected a tuple of arrays, got '
                            '{}'.format(self.label, type(outputs).__name__))
        retain_in = f._input_indexes_to_retain
        self.retain_inputs(range(len(inputs)) if retain_in is None
                           else retain_in)
        retain_out = f._output_indexes_to_retain
        self.retain_outputs(range(len(outputs)) if retain_out is None
                            else retain_out)
        return outputs

    def backward(self, target_input_indexes, grad_outputs):
        in_data = [None] * len(self.inputs)
        for i, var in zip(self._input_indexes_to_retain,
                          self.get_retained_inputs()):
            in_data[i] = var.array
        out_data = [None] * len(self.outputs)
        for i, data in zip(self._output_indexes_to_retain,
                           self._retained_output_data):
            out_data[i] = data
        self._function._output_data = tuple(out_data)
        gys = tuple(None if g is None else g.array for g in grad_outputs)
        gxs = self._function.backward(tuple(in_data), gys)
        if not isinstance(gxs, (tuple, list)):
            gxs = (gxs,)
        if len(gxs) != len(self.inputs):
            raise ValueError(
                '{}.backward: expected {} gradients (one per input), got '
                '{}'.format(self.label, len(self.inputs), len(gxs)))
        ret = []
        for i in target_input_indexes:
            gx = gxs[i]
            if gx is None:
                ret.append(None)
                continue
            if numpy.isscalar(gx):
                gx = numpy.asarray(gx, dtype=self.inputs[i].dtype)
            ret.append(Variable(gx, requires_grad=False))
        return tuple(ret)


class Function:
    """Base of old-style functions (``forward``/``backward`` on arrays).

    Override ``forward_cpu``/``forward_gpu`` (or ``forward``) and
    ``backward_cpu``/``backward_gpu`` (or ``backward``).  By default all
    inputs and outputs are retained; call ``retain_inputs``/
    ``retain_outputs`` in forward to keep fewer.
    """

    _node = None
    _input_indexes_to_retain = None
    _output_indexes_to_retain = None
    _output_data = None

    def __call__(self, *inputs):
        node = self.node
        node._function = self
        outputs = node.apply(inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    @property
    def node(self):
        if self._node is None:
            self._node = FunctionAdapter(self)
        return self._node

    @property
    def label(self):
        return type(self).__name__

    @property
    def inputs(self):
        return tuple(n.get_variable() for n in self.node.inputs or ())

    @property
    def outputs(self):
        return tuple(ref for ref in self.node.outputs or ())

    @property
    def output_data(self):
        return self._output_data

    @property
    def rank(self):
        return self.node.rank

    def check_type_forward(self, in_types):
        """Check input types (no-op by default)."""

    def forward(self, inputs):
        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs):
        raise NotImplementedError(
            '{}: forward_cpu is not implemented'.format(self.label))

    def forward_gpu(self, inputs):
        raise NotImplementedError(
            '{}: forward_gpu is not implemented'.format(self.label))

    def backward(self, inputs, grad_outputs):
        arrays = [x for x in inputs + grad_outputs if x is not None]
        if backend.get_array_module(*arrays) is numpy:
            return self.backward_cpu(inputs, grad_outputs)
        return self.backward_gpu(inputs, grad_outputs)

    def backward_cpu(self, inputs, grad_outputs):
        return tuple(None for _ in inputs)

    def backward_gpu(self, inputs, grad_outputs):
        return tuple(None for _ in inputs)

    def retain_inputs(self, indexes):
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes, retain_after_backward=False):
        self._output_indexes_to_retain = tuple(indexes)

    def unchain(self):
        self.node.unchain()

    @property
    def local_function_hooks(self):
        """The hooks added to this function (those of its node)."""
        return self.node.local_function_hooks

    def add_hook(self, hook, name=None):
        """Register a FunctionHook for this function only (see FunctionNode)."""
        self.node.add_hook(hook, name)

    def delete_hook(self, name):
        """Unregister the hook added under ``name``."""
        self.node.delete_hook(name)


