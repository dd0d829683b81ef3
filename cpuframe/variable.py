"""Variable, Parameter and the backward engine.

A ``Variable`` holds an array and, when it was computed, a ``VariableNode``
linking it to the ``FunctionNode`` that created it.  Nodes keep array data
only when a function retained it for backward, so dropping a Variable frees
its array unless backward needs it (Chainer's aggressive buffer release).
"""
import heapq
import importlib
import itertools
import sys
import threading
import warnings
import weakref

import numpy

from cpuframe import _temporaries, backend, function_hook
from cpuframe.configuration import config, using_config


class _BackwardState(threading.local):
    #: True while this thread's backward engine runs gradient ops that
    #: nothing will differentiate again (``enable_double_backprop=False``):
    #: their applies skip the type checks of cpuframe's own functions (the
    #: engine made their inputs; see
    #: ``FunctionNode._check_skippable_in_backward``).
    untracked = False


backward_state = _BackwardState()

#: ``[True]``: the engine calls ``FunctionNode.backward_arrays`` where it may;
#: tests set it False to compare with the Variable-level ``backward``.
backward_arrays_enabled = [True]


def _check_layout(layout, where):
    if layout is not None:
        raise ValueError(
            '{}: expected layout=None, got {!r}; cpuframe keeps every array '
            'in its logical layout (Chainer\'s experimental layout= for '
            'channel-last cuDNN arrays has no counterpart here)'.format(
                where, layout))


def _check_array(array, where):
    if array is not None and not backend.is_array(array):
        raise TypeError(
            '{}: expected an array (numpy.ndarray, cupy.ndarray or None), '
            'got {}'.format(where, type(array).__name__))


class VariableNode:
    """A Variable's place in the computational graph.

    Holds the creator, rank and shape/dtype; holds the data only when a
    function retained it.
    """

    # (slots: the native core reads and writes them at fixed offsets; other
    # attributes go to the instance dictionary as before)
    __slots__ = ('_variable', 'name', 'creator_node', 'rank', 'data',
                 'requires_grad', 'shape', 'dtype', '__dict__',
                 '__weakref__')

    def __init__(self, variable, name):
        self._variable = weakref.ref(variable)
        self.name = name
        self.creator_node = None
        self.rank = 0
        self.data = None
        self.requires_grad = variable.requires_grad
        self._update_meta(variable.array)

    def _update_meta(self, array):
        if array is None:
            self.shape = self.dtype = None
        else:
            self.shape = tuple(array.shape)
            self.dtype = array.dtype

    @property
    def creator(self):
        node = self.creator_node
        return getattr(node, '_function', node)

    @property
    def label(self):
        if self.shape is None:
            return 'None'
        return '({}), {}'.format(', '.join(map(str, self.shape)), self.dtype)

    def set_creator_node(self, fnode):
        self.creator_node = fnode
        self.rank = fnode.rank + 1

    def get_variable(self):
        """The Variable of this node, rebuilt from retained data if it died."""
        var = self._variable()
        if var is not None:
            return var
        var = Variable(self.data, name=self.name,
                       requires_grad=self.requires_grad)
        var._node = self
        self._variable = weakref.ref(var)
        return var

    def get_variable_or_none(self):
        return self._variable()

    def retain_data(self):
        var = self._variable()
        if var is None:
            raise RuntimeError(
                'retain_data: the variable of this node has been released')
        self.data = var.array

    def unchain(self):
        self.creator_node = None


class Variable:
    """An array with gradient and graph information.

    Args:
        data: the array (NumPy or CuPy), or None.
        name (str): a name shown in ``repr`` and graph dumps.
        grad: an initial gradient array.
        requires_grad (bool): whether backward computes a gradient for it.
        layout: Chainer's memory layout; only None (the logical layout).
    """

    __array_priority__ = 200
    # (slots: the native core reads and writes them at fixed offsets;
    # ``Parameter`` keeps ``_array`` in a property of its own, and any other
    # attribute goes to the instance dictionary as before)
    __slots__ = ('_array', '_requires_grad', '_node', '_grad_var',
                 '_loss_scale', '__dict__', '__weakref__')

    def __init__(self, data=None, *, name=None, grad=None, requires_grad=True,
                 layout=None):
        _check_layout(layout, 'Variable')
        if isinstance(data, Variable):
            raise TypeError('Variable: expected an array, got a Variable; '
                            'use as_variable() or Variable(x.array)')
        _check_array(data, 'Variable')
        self._array = data
        self._requires_grad = requires_grad
        self._node = VariableNode(self, name)
        self._grad_var = None
        self._loss_scale = None
        if grad is not None:
            self.grad = grad

    @staticmethod
    def _init_unchecked(data=None, device=None, name=None, grad=None,
                        grad_valid=True, requires_grad=True,
                        is_chainerx_array=None, node=None, layout=None):
        """A Variable made without the constructor's checks (Chainer 7's
        internal constructor, which user code calls for speed)."""
        if is_chainerx_array:
            raise ValueError('Variable._init_unchecked: ChainerX arrays are '
                             'not available in cpuframe')
        _check_layout(layout, 'Variable._init_unchecked')
        var = Variable._of_output(data, requires_grad)
        if node is None:
            var._node.name = name
        else:
            node._variable = weakref.ref(var)
            node.requires_grad = requires_grad
            node._update_meta(data)
            var._node = node
        if grad is not None and grad_valid:
            var.grad = grad
        return var

    @property
    def _has_chainerx_array(self):
        # Chainer 7's flag; no array here is a ChainerX array.
        return False

    @property
    def _grad(self):
        # Chainer 7's internal name of the gradient array.
        return self.grad

    @_grad.setter
    def _grad(self, g):
        self.grad = g

    def set_creator(self, gen_func):
        """Chainer's setter method of ``creator`` (old-style Function or
        FunctionNode)."""
        self.creator = gen_func

    def set_creator_node(self, fnode):
        """Chainer's setter method of ``creator_node``."""
        self.creator_node = fnode

    @classmethod
    def _of_output(cls, array, requires_grad):
        """A function's output: ``Variable(array, requires_grad=...)``
        without the checks (``apply`` made sure ``array`` is an array)."""
        var = object.__new__(Variable)
        var._array = array
        var._requires_grad = requires_grad
        # VariableNode(var, None), its attributes set here directly (a
        # node per output and per gradient: the hottest constructor)
        node = var._node = object.__new__(VariableNode)
        node._variable = weakref.ref(var)
        node.name = None
        node.creator_node = None
        node.rank = 0
        node.data = None
        node.requires_grad = requires_grad
        if array is None:
            node.shape = node.dtype = None
        else:
            shape = array.shape
            node.shape = shape if type(shape) is tuple else tuple(shape)
            node.dtype = array.dtype
        var._grad_var = None
        var._loss_scale = None
        return var

    # -- data and gradient ------------------------------------------------
    @property
    def array(self):
        return self._array

    @array.setter
    def array(self, data):
        _check_array(data, 'Variable.array')
        self._array = data
        self._node._update_meta(data)

    data = array

    @property
    def grad_var(self):
        return self._grad_var

    @grad_var.setter
    def grad_var(self, g):
        if g is not None and not isinstance(g, Variable):
            raise TypeError('Variable.grad_var: expected a Variable or None, '
                            'got {}'.format(type(g).__name__))
        if g is not None:
            self._check_grad_shape(g.array)
        self._grad_var = g

    @property
    def grad(self):
        g = self._grad_var
        return None if g is None else g.array

    @grad.setter
    def grad(self, g):
        if g is None:
            self._grad_var = None
            return
        _check_array(g, 'Variable.grad')
        self._check_grad_shape(g)
        self._grad_var = Variable._of_output(g, False)

    def _check_grad_shape(self, g):
        if self._array is None:
            return
        if tuple(g.shape) != tuple(self._array.shape):
            raise ValueError(
                'Variable.grad: expected a gradient of shape {}, got {}'.format(
                    tuple(self._array.shape), tuple(g.shape)))
        if g.dtype != self._array.dtype:
            raise ValueError(
                'Variable.grad: expected a gradient of dtype {}, got {}'.format(
                    self._array.dtype, g.dtype))

    # -- array-like attributes --------------------------------------------
    @property
    def shape(self):
        return self._array.shape

    @property
    def ndim(self):
        return self._array.ndim

    @property
    def size(self):
        return self._array.size

    @property
    def dtype(self):
        return self._array.dtype

    @property
    def xp(self):
        return backend.get_array_module(self._array)

    @property
    def device(self):
        return backend.get_device_from_array(self._array)

    @property
    def T(self):
        return self.transpose()

    def __len__(self):
        if self._array is None or self._array.ndim == 0:
            raise TypeError('len() of a 0-dimensional Variable')
        return self._array.shape[0]

    # -- graph attributes -------------------------------------------------
    @property
    def node(self):
        return self._node

    @property
    def name(self):
        return self._node.name

    @name.setter
    def name(self, n):
        self._node.name = n

    @property
    def label(self):
        return self._node.label

    @property
    def requires_grad(self):
        return self._requires_grad

    @property
    def creator(self):
        """The function (old-style Function or FunctionNode) that made this."""
        return self._node.creator

    @creator.setter
    def creator(self, func):
        self.creator_node = getattr(func, 'node', func)

    @property
    def creator_node(self):
        return self._node.creator_node

    @creator_node.setter
    def creator_node(self, fnode):
        if fnode is None:
            self._node.unchain()
        else:
            self._node.set_creator_node(fnode)

    @property
    def rank(self):
        return self._node.rank

    def retain_data(self):
        self._node.data = self._array

    # -- representation ---------------------------------------------------
    def __repr__(self):
        prefix = 'variable' if self.name is None else 'variable ' + self.name
        if self._array is None:
            return prefix + '(None)'
        arr = backend.cpu_device.send(self._array)
        return prefix + '(' + numpy.array2string(
            arr, separator=', ', prefix=prefix + '(') + ')'

    def __str__(self):
        prefix = 'variable' if self.name is None else 'variable ' + self.name
        if self._array is None:
            return prefix + '(None)'
        arr = backend.cpu_device.send(self._array)
        return prefix + '(' + numpy.array2string(arr, prefix=prefix + '(') + ')'

    def summary(self):
        return '<variable{} shape={} dtype={}>'.format(
            '' if self.name is None else ' ' + self.name,
            None if self._array is None else self.shape,
            None if self._array is None else self.dtype)

    def debug_print(self):
        """A multi-line summary: shape, dtype, statistics and grad."""
        lines = [self.summary()]
        if self._array is not None and self.size:
            arr = backend.cpu_device.send(self._array)
            lines.append('- statistics: mean={:.8f}, std={:.8f}'.format(
                float(arr.mean()), float(arr.std())))
        lines.append('- grad: {}'.format(
            None if self.grad is None else 'shape={}'.format(self.grad.shape)))
        return '\n'.join(lines)

    def __bool__(self):
        raise TypeError('Variable: truth value of a Variable is ambiguous; '
                        'compare its .array instead')

    # As in Chainer 7: comparisons are refused (compare ``.array``), and a
    # Variable is unhashable.
    def _refuse_comparison(op):
        def compare(self, other):
            raise TypeError('Variables do not support {} operator. You could '
                            'use `array` attribute instead.'.format(op))
        compare.__name__ = '__{}__'.format(
            {'==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'le', '>': 'gt',
             '>=': 'ge'}[op])
        return compare

    __eq__ = _refuse_comparison('==')
    __ne__ = _refuse_comparison('!=')
    __lt__ = _refuse_comparison('<')
    __le__ = _refuse_comparison('<=')
    __gt__ = _refuse_comparison('>')
    __ge__ = _refuse_comparison('>=')
    __hash__ = None
    del _refuse_comparison

    # -- gradient bookkeeping ---------------------------------------------
    def cleargrad(self):
        """Set the gradient to None."""
        self._grad_var = None

    def zerograd(self):
        """Set the gradient to zeros of the array's shape (deprecated in
        Chainer since v1.15: use ``cleargrad``)."""
        warnings.warn(
            'Variable.zerograd is deprecated. Use Variable.cleargrad instead.',
            DeprecationWarning, stacklevel=2)
        self._zerograd()

    def _zerograd(self):
        # zerograd without the warning (cpuframe's own callers)
        if self._array is None:
            return
        xp = self.xp
        self.grad = xp.zeros_like(self._array)

    def addgrad(self, var):
        """Add ``var``'s gradient to this variable's gradient."""
        if var.grad_var is None:
            return
        g = var.grad
        dst_device = self.device
        g = dst_device.send(g)
        if self._grad_var is None:
            self.grad = g.copy()
        else:
            self.grad = self.grad + g

    def copydata(self, var):
        """Copy ``var``'s array into this variable's array in place."""
        src = var.array
        if self._array is None:
            self.array = src.copy()
            return
        backend.copyto(self._array, src)

    def unchain(self):
        """Make this variable a root: forget its creator."""
        self._node.unchain()

    def unchain_backward(self):
        """Cut every reference of the graph behind this variable."""
        func = self._node.creator_node
        self.unchain()
        stack = [func] if func is not None else []
        seen = set()
        while stack:
            f = stack.pop()
            if id(f) in seen:
                continue
            seen.add(id(f))
            for node in f.inputs or ():
                if node.creator_node is not None:
                    stack.append(node.creator_node)
                node.unchain()
            f.unchain()

    # -- devices ------------------------------------------------------------
    def to_device(self, device):
        """Move the array and gradient to ``device`` (in place)."""
        device = backend.get_device(device)
        if self._array is not None:
            self._array = device.send(self._array)
        if self._grad_var is not None:
            self._grad_var._array = device.send(self._grad_var._array)
        if isinstance(self, Parameter):
            self._initial_device = device

    def to_cpu(self):
        self.to_device(backend.cpu_device)

    def to_gpu(self, device=None):
        from cpuframe.backends import cuda
        cuda.check_cuda_available()
        if device is None:
            device = cuda.cupy.cuda.Device().id
        self.to_device(backend.get_device(device))

    def to_intel64(self):
        self.to_device('@intel64')

    # -- array methods -------------------------------------------------------
    def reshape(self, *shape):
        from cpuframe.functions.array.reshape import reshape
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return reshape(self, shape)

    def transpose(self, *axes):
        from cpuframe.functions.array.transpose import transpose
        if not axes:
            axes = None
        elif len(axes) == 1 and (axes[0] is None or
                                 isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return transpose(self, axes)

    def __getitem__(self, slices):
        return _module('cpuframe.functions.array.get_item').get_item(
            self, slices)

    def item(self):
        """The single element of the array as a Python scalar."""
        arr = self._array
        if not isinstance(arr, numpy.ndarray):
            arr = backend.cpu_device.send(arr)
        return arr.item()

    def mean(self, axis=None, *, weights=None, keepdims=False):
        """The (weighted) average over ``axis`` (Chainer: ``F.average``)."""
        from cpuframe.functions.math.average import average
        return average(self, axis=axis, weights=weights, keepdims=keepdims)

    def sum(self, axis=None, keepdims=False):
        from cpuframe.functions.math.sum import sum as sum_
        return sum_(self, axis=axis, keepdims=keepdims)

    # -- backward ------------------------------------------------------------
    def backward(self, retain_grad=False, enable_double_backprop=False,
                 loss_scale=None):
        """Compute gradients of this variable w.r.t. every leaf of its graph.

        When ``grad`` is unset and the array has one element, the initial
        gradient is one; an empty array (a model-parallel "delegate"
        variable) starts from an empty gradient, so the functions behind it
        still run their backward.  Gradients of leaves are accumulated into
        their ``grad``; those of intermediate variables, and this variable's
        own ``grad``, are cleared (as in Chainer) unless ``retain_grad=True``
        keeps them.  ``enable_double_backprop=True`` records the
        backward computation itself so it can be differentiated again.
        ``loss_scale`` multiplies the initial gradient (optimizers divide it
        back out of the parameter gradients).
        """
        if self.creator_node is None:
            return
        if self._grad_var is None:
            if self._array.size == 1:
                if self._array.ndim != 0:
                    warnings.warn(
                        'Treating a variable with only one element as a '
                        'scalar in Variable.backward is deprecated (as in '
                        'Chainer 7): a scalar variable is 0-dimensional; '
                        'apply F.squeeze, or set .grad explicitly',
                        DeprecationWarning, stacklevel=2)
                if type(self) is Variable and \
                        type(self._array) is numpy.ndarray:
                    # (what ``self.grad = ...`` does, for a NumPy loss: its
                    # checks hold for ones shaped as the array)
                    self._grad_var = _of_output(
                        numpy.ones_like(self._array), False)
                else:
                    self.grad = self.xp.ones_like(self._array)
            elif self._array.size == 0:
                self.grad = self.xp.zeros_like(self._array)
            else:
                raise ValueError(
                    'Variable.backward: the initial gradient is only implied '
                    'for a variable of size 1; set .grad for a variable of '
                    'shape {}'.format(self.shape))
        gy = self._grad_var
        # Chainer clears the output's gradient; retain_grad sets it again.
        self._grad_var = None
        if loss_scale is not None:
            gy = Variable(self.xp.asarray(gy.array * loss_scale,
                                          dtype=gy.dtype),
                          requires_grad=False)
        listener = _final_leaf_listener.fn
        given = set()
        on_leaf = None
        if listener is not None:
            def on_leaf(node, g):
                # the leaf's gradient is final: set now, then announced
                _set_leaf_grads({node: g}, loss_scale,
                                enable_double_backprop, given)
                var = node.get_variable_or_none()
                if var is not None:
                    listener(var)
        leaf_grads = _backprop([self._node], [gy], retain_grad,
                               enable_double_backprop, on_leaf=on_leaf)
        _set_leaf_grads(leaf_grads, loss_scale, enable_double_backprop,
                        given)


class _FinalLeafListener(threading.local):
    fn = None


_final_leaf_listener = _FinalLeafListener()


class final_leaf_gradients:
    """``with final_leaf_gradients(fn):`` makes ``Variable.backward`` (in
    this thread) set each leaf's gradient as soon as it is final, while the
    backward goes on, and call ``fn(variable)`` then: every function of the
    graph that uses the leaf has contributed (the uses are counted before
    the walk). What no function reached is set at the end, unannounced.

    For communication overlapped with backward (``cpuframe.mn``): a
    parameter's gradient can travel while the layers below it still
    compute. Without a listener (the default) the backward counts nothing.
    """

    def __init__(self, fn):
        self._fn = fn
        self._outer = None

    def __enter__(self):
        self._outer = _final_leaf_listener.fn
        _final_leaf_listener.fn = self._fn
        return self

    def __exit__(self, *exc):
        _final_leaf_listener.fn = self._outer


def _leaf_uses(output_nodes):
    """``{leaf node: number of (function, input) uses}`` over the
    functions ``output_nodes`` depend on, for the leaves that need a
    gradient."""
    uses = {}
    seen = set()
    stack = [n.creator_node for n in output_nodes
             if n.creator_node is not None]
    while stack:
        func = stack.pop()
        if func in seen:
            continue
        seen.add(func)
        for node in func.inputs:
            creator = node.creator_node
            if creator is not None:
                if creator not in seen:
                    stack.append(creator)
            elif node.requires_grad:
                uses[node] = uses.get(node, 0) + 1
    return uses


def _set_leaf_grads(leaf_grads, loss_scale, enable_double_backprop,
                    given=None):
    """Accumulate the engine's leaf gradients into the leaves' ``grad``
    (``given``: ids of the gradient arrays already given to leaves). The
    definition; the native core's ``set_leaf_grads`` replaces it under
    this name where it runs (``function_node.native_core``)."""
    if given is None:
        given = set()
    for node, g in leaf_grads.items():
        var = node._variable()
        if var is None or g is None:
            continue
        var._loss_scale = loss_scale
        if var._grad_var is None:
            # Each leaf owns a writeable gradient: the engine may hand the
            # same array (or a read-only broadcast view) to several leaves.
            array = g._array
            if id(array) in given or not (
                    array.flags.writeable if type(array) is numpy.ndarray
                    else _is_writeable(array)):
                g = _copy_grad(g, enable_double_backprop)
            var._grad_var = g
        else:
            var._grad_var = _add_grads([var._grad_var, g],
                                       enable_double_backprop)
        given.add(id(var._grad_var._array))


_set_leaf_grads_python = _set_leaf_grads


class Parameter(Variable):
    """A Variable that a Link owns and an optimizer updates.

    Args:
        initializer: an initializer, an array (becomes the data) or a
            scalar (constant fill).  ``None`` fills with NaN.
        shape: the shape; ``None`` defers initialization until
            ``initialize(shape)`` is called (lazy shape inference).

    As in Chainer, the gradient of a parameter made from an initializer
    is NaN-filled when its array is allocated (at construction with a
    shape, else at ``initialize``), so that a gradient nobody computed
    shows; ``cleargrad`` (or ``zerograd``) before the allocation makes it
    None (or zeros).  A parameter made from an array has no gradient.

    The array lives in a one-element list, the *slot*: ``copy.copy`` of a
    parameter (what ``Link.copy(mode='share')`` makes) shares it, so an
    array assigned to, or initialized in, either is seen by both.
    """

    # What initialize() fills the gradient with: 'nan', 'zero' or None.
    _grad_fill = None

    def __init__(self, initializer=None, shape=None, name=None, *,
                 layout=None):
        _check_layout(layout, 'Parameter')
        from cpuframe import initializers
        self._data = [None]
        if backend.is_array(initializer):
            super().__init__(initializer, name=name)
            self.initializer = initializers.Constant(initializer)
        else:
            super().__init__(None, name=name)
            if initializer is None:
                initializer = initializers.NaN()
            elif numpy.isscalar(initializer):
                initializer = initializers.Constant(initializer)
            self.initializer = initializer
            self._grad_fill = 'nan'
        self.update_rule = None
        self._initial_device = backend.get_device_from_array(self._array) \
            if self._array is not None else backend.cpu_device
        if shape is not None and self._array is None:
            self.initialize(shape)

    @property
    def _array(self):
        return self._data[0]

    @_array.setter
    def _array(self, value):
        self._data[0] = value

    def __copy__(self):
        # A new parameter on the same slot (and, until it is cleared, the
        # same gradient), as Chainer's shallow copy.
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in _VARIABLE_SLOTS:
            try:
                setattr(new, name, getattr(self, name))
            except AttributeError:
                pass
        new._node = VariableNode(new, self.name)
        return new

    def __reduce__(self):
        return _recover_parameter, (self.array, self.name, self.grad,
                                    self.initializer, self.update_rule)

    def __repr__(self):
        return super().__repr__().replace('variable', 'parameter', 1)

    @property
    def is_initialized(self):
        return self._array is not None

    @property
    def dtype(self):
        if self._array is not None:
            return self._array.dtype
        dt = getattr(self.initializer, 'dtype', None)
        return numpy.dtype(dt if dt is not None else config.dtype)

    def initialize(self, shape):
        """Allocate the array of ``shape`` with the initializer.

        The gradient becomes NaN-filled (zeros after ``zerograd``, None
        after ``cleargrad`` on the uninitialized parameter).
        """
        from cpuframe import initializers
        device = getattr(self, '_initial_device', backend.cpu_device)
        data = initializers.generate_array(
            self.initializer, shape, device.xp, device=device)
        grad = None
        if self._grad_fill is not None:
            fill = initializers.NaN(data.dtype) if self._grad_fill == 'nan' \
                else initializers.Zero(data.dtype)
            grad = initializers.generate_array(
                fill, shape, device.xp, device=device)
        self.array = data
        self.grad = grad

    def cleargrad(self):
        self._grad_var = None
        if self._array is None:
            self._grad_fill = None

    def _zerograd(self):
        super()._zerograd()
        if self._array is None:
            self._grad_fill = 'zero'

    def to_device(self, device):
        device = backend.get_device(device)
        if self._array is None and self._initial_device != device:
            # An uninitialized copy sent elsewhere stops sharing the slot.
            self._data = [None]
        super().to_device(device)

    def update(self):
        """Update the array by its update rule, if it has one."""
        if self.update_rule is not None:
            self.update_rule.update(self)


# (what Parameter.__copy__ copies besides the instance dictionary)
_VARIABLE_SLOTS = tuple(name for name in Variable.__slots__
                        if not name.startswith('__'))


def _recover_parameter(data, name, grad, initializer, update_rule):
    p = Parameter(initializer=initializer, name=name)
    p.array = data
    p.grad = grad
    p.update_rule = update_rule
    return p


def as_variable(obj):
    """Return ``obj`` if it is a Variable, else wrap the array.

    The wrapper has ``requires_grad=False``: arrays passed to functions are
    constants.
    """
    if isinstance(obj, Variable):
        return obj
    if not backend.is_array(obj):
        raise TypeError('as_variable: expected a Variable or an array, got '
                        '{}'.format(type(obj).__name__))
    return Variable(obj, requires_grad=False)


def as_array(obj):
    """Return the array of a Variable, or ``obj`` itself for an array."""
    if isinstance(obj, Variable):
        return obj.array
    return obj


def _is_writeable(array):
    flags = getattr(array, 'flags', None)
    return flags is None or bool(getattr(flags, 'writeable', True))


def _copy_grad(g, enable_double_backprop):
    if enable_double_backprop:
        from cpuframe.functions.array.copy import copy
        return copy(g, backend.get_device_from_array(g.array))
    return Variable._of_output(g._array.copy(), False)


def _module(name):
    """A module that imports this one, without an import statement per call
    (the per-op paths: ``Variable.__getitem__``, the backward engine)."""
    mod = sys.modules.get(name)
    return mod if mod is not None else importlib.import_module(name)


def _add_grads(grads, enable_double_backprop):
    """Sum a list of gradient Variables (recorded when double backprop)."""
    if len(grads) == 1:
        return grads[0]
    math = _module('cpuframe.functions.math.basic_math')
    # Gradients only the engine holds may take the sum (see _donated).
    donated = None if enable_double_backprop else _donated(grads)
    if donated is not None and backward_arrays_enabled[0]:
        # Not recorded: MultiAdd's forward on the arrays, as its apply
        # would run it (same-shaped, same-dtype gradients, no hook).
        first = grads[0]._array
        for g in grads:
            a = g._array
            if a is None or a.shape != first.shape or \
                    a.dtype != first.dtype:
                break
        else:
            node = math.MultiAdd(donated)
            if not node._function_hooks():
                y, = node._compute(tuple(g._array for g in grads))
                return Variable._of_output(y, False)
    with using_config('enable_backprop', enable_double_backprop):
        return math._accumulate_add(grads, donated)


def _check_nan(arrays, what):
    for a in arrays:
        if a is None:
            continue
        a = a.array if isinstance(a, Variable) else a
        if a.dtype.kind != 'f' and a.dtype.kind != 'c':
            continue
        xp = backend.get_array_module(a)
        if not bool(xp.isfinite(a).all()):
            raise RuntimeError('NaN or Inf detected in {}'.format(what))


def _needed_functions(output_nodes, target_nodes, stop_nodes=()):
    """The functions through which some output depends on some target
    (not looking behind ``stop_nodes``)."""
    funcs = {}
    stack = [n.creator_node for n in output_nodes if n.creator_node]
    while stack:
        f = stack.pop()
        if f in funcs:
            continue
        funcs[f] = False
        for node in f.inputs:
            if node.creator_node is not None and \
                    node.creator_node not in funcs and node not in stop_nodes:
                stack.append(node.creator_node)
    for f in sorted(funcs, key=lambda f: f.rank):
        funcs[f] = any(node in target_nodes or
                       funcs.get(node.creator_node, False)
                       for node in f.inputs)
    return funcs


# target input indexes of one- and two-input nodes (_backprop)
_ONE, _SECOND, _BOTH, _ALL3 = (0,), (1,), (0, 1), (0, 1, 2)


#: ``[cpuframe._core.backprop]`` where the native core runs (installed by
#: ``function_node.native_core``), else ``[None]``.
_native_backprop = [None]


def _backprop(output_nodes, output_grads, retain_grad, enable_double_backprop,
              target_nodes=None, on_leaf=None, stop_nodes=None):
    """Run backward (see ``_backprop_python``, the definition): the native
    core's walk takes the common case (no double backprop, target, leaf
    listener or retained gradient), and says NotImplemented before any
    work where it does not (the engine's array mode off, lazy_grad_sum)."""
    walk = _native_backprop[0]
    if walk is not None and target_nodes is None and on_leaf is None and \
            not retain_grad and not enable_double_backprop:
        leaf_grads = walk(output_nodes, output_grads)
        if leaf_grads is not NotImplemented:
            return leaf_grads
    return _backprop_python(output_nodes, output_grads, retain_grad,
                            enable_double_backprop, target_nodes, on_leaf,
                            stop_nodes)


def _backprop_python(output_nodes, output_grads, retain_grad,
                     enable_double_backprop, target_nodes=None, on_leaf=None,
                     stop_nodes=None):
    """Run backward from ``output_nodes`` seeded with ``output_grads``.

    Functions are visited once each, highest rank first, so every consumer
    of a variable has contributed its gradient before the variable's
    creator runs.  With ``target_nodes`` only the paths leading to them are
    walked, and the gradients of the targets are returned; otherwise the
    gradients of the leaves (variables without creator) are returned, and
    ``on_leaf(node, gradient)`` takes each leaf's instead as soon as every
    use of the leaf has contributed (see ``final_leaf_gradients``).
    ``stop_nodes`` (with ``target_nodes``): nodes whose creators are not
    visited (a subgraph's inputs: ``StaticScheduleFunction``).
    Gradients come in and go out as Variables.

    Inside, where nothing records the backward (``arrays``: no double
    backprop), the engine carries the gradients as arrays and nodes with
    ``backward_arrays`` compute on them: a Variable is made only for what
    leaves the engine (a leaf's, a target's or a retained gradient) and for
    the nodes that run ``backward`` (hooks, no ``backward_arrays``, a
    gradient to accumulate). With double backprop every gradient is a
    Variable and every node runs ``backward``, recorded.
    """
    base_accumulate = _base_accumulate[0]
    needed = None if target_nodes is None else \
        _needed_functions(output_nodes, target_nodes, stop_nodes or ())
    heappop, heappush = heapq.heappop, heapq.heappush
    # Nodes with ``backward_arrays`` compute on arrays where nothing records
    # the backward (see FunctionNode.backward_arrays).
    arrays = not enable_double_backprop and backward_arrays_enabled[0]
    # gradient values, per node: arrays (``arrays``) or Variables
    grads = {}
    heap = []
    queued = set()
    counter = itertools.count()
    results = None if target_nodes is None else {}
    # (arrays: the seed Variables, so that a gradient that leaves the engine
    # as it came in is the Variable given, as with Variables throughout)
    seeds = {} if arrays else None

    for node, g in zip(output_nodes, output_grads):
        if g is not None:
            if arrays:
                seeds[node] = g
                g = g._array
            grads.setdefault(node, []).append(g)
        func = node.creator_node
        if func is not None and func not in queued and (
                needed is None or needed.get(func, False)):
            queued.add(func)
            heappush(heap, (-func.rank, next(counter), func))
    func = node = g = None
    sum_ = _add_grad_arrays if arrays else _add_grads

    uses = None
    if on_leaf is not None and target_nodes is None:
        uses = _leaf_uses(output_nodes)
    # (no target to record, no gradient to keep: the engine takes a node's
    # output gradient itself instead of calling _take)
    plain_take = target_nodes is None and not retain_grad
    lazy = bool(getattr(config, 'lazy_grad_sum', False))
    # The global hooks are read once; a node's own hooks at the node.
    global_hooks = function_hook._global.hooks
    was_untracked = backward_state.untracked
    # Gradient ops of a backward nothing differentiates again skip their
    # type checks (backward_state); the flag is restored for nested calls.
    backward_state.untracked = not enable_double_backprop
    # ``using_config('enable_backprop', ...)`` for the walk, written out
    # (this thread's configuration dictionary; restored in ``finally``).
    config_dict = config.__dict__
    old_backprop = config_dict.get('enable_backprop', _MISSING)
    config_dict['enable_backprop'] = enable_double_backprop
    try:
        while heap:
            func = heappop(heap)[2]
            outputs = func.outputs
            if len(outputs) == 1:  # (the common case, first)
                node = outputs[0]()
                if node is None:
                    continue
                if plain_take:
                    gs = grads.pop(node, None)
                    if not gs:
                        continue
                    g = gs[0] if len(gs) == 1 else \
                        sum_(gs, enable_double_backprop)
                    gs = None
                else:
                    g = _take(grads, node, target_nodes, results, retain_grad,
                              enable_double_backprop, seeds)
                    if g is None:
                        continue
                gys = (g,)
            else:
                gys = [None if n is None else
                       _take(grads, n, target_nodes, results, retain_grad,
                             enable_double_backprop, seeds)
                       for n in [ref() for ref in outputs]]
                if all(g is None for g in gys):
                    continue
                gys = tuple(
                    g if g is not None else func._zero_output(i) if arrays
                    else Variable(func._zero_output(i), requires_grad=False)
                    for i, g in enumerate(gys))
            # (from here on only ``gys`` holds the output gradients: see
            # _temporaries.donated)
            g = node = None
            inputs = func.inputs
            if needed is None:
                if len(inputs) == 1:  # (the common cases, first)
                    targets = _ONE if inputs[0].requires_grad else ()
                elif len(inputs) == 2:
                    if inputs[0].requires_grad:
                        targets = _BOTH if inputs[1].requires_grad \
                            else _ONE
                    else:
                        targets = _SECOND if inputs[1].requires_grad \
                            else ()
                elif len(inputs) == 3 and inputs[0].requires_grad and \
                        inputs[1].requires_grad and inputs[2].requires_grad:
                    targets = _ALL3  # (a linear or convolution with bias)
                else:
                    targets = tuple(i for i, node in enumerate(inputs)
                                    if node.requires_grad)
            else:
                targets = tuple(
                    i for i, node in enumerate(inputs)
                    if node.requires_grad and (
                        node in target_nodes or
                        needed.get(node.creator_node, False)))
            if not targets:
                continue
            hooks = func._function_hooks() if global_hooks or \
                func._local_function_hooks else ()
            cls = type(func)
            if arrays and not hooks and cls.backward_arrays is not None \
                    and cls.backward_accumulate is base_accumulate:
                # (the common case: ``backward_arrays`` on the arrays, no
                # hook, nothing recorded, no gradient to accumulate into)
                if func.accepts_donated_grads:
                    func._donated_grad_outputs = _donated_arrays(gys)
                try:
                    gxs = func._call_backward(targets, gys, None, True)
                finally:
                    func._donated_grad_outputs = None
                    func._donated_grad_inputs = None
                # Drop every reference to this step's gradients: a gradient
                # the engine alone holds may be overwritten in place by the
                # node that consumes it (each new gradient is taken out of
                # ``gxs`` before it joins a sum, so that the list alone
                # holds it).
                gys = None
                if type(gxs) is not list:
                    gxs = list(gxs)
            else:
                box = [gys]
                gys = None
                gxs = _node_backward(func, box, targets, grads, hooks, arrays,
                                     enable_double_backprop, lazy)
            for k in range(len(targets)):
                gx = gxs[k]
                if gx is None:
                    continue
                gxs[k] = None
                node = inputs[targets[k]]
                pending = grads.get(node)
                if pending is None:
                    grads[node] = [gx]
                    gx = None
                elif lazy:
                    pending.append(gx)
                    gx = None
                else:
                    # Summed at once, as Chainer does unless lazy_grad_sum:
                    # a parameter used at every step of an unrolled RNN
                    # would otherwise hold one gradient per step until the
                    # end (35 x 26 MB twice over for the PTB model's
                    # stepwise softmax and embedding).
                    pending.append(gx)
                    gx = None
                    grads[node] = [sum_(pending, enable_double_backprop)]
                pending = None
                creator = node.creator_node
                if creator is not None:
                    if creator not in queued and (
                            needed is None or needed.get(creator, False)):
                        queued.add(creator)
                        heappush(heap, (-creator.rank, next(counter),
                                        creator))
                elif uses is not None:
                    left = uses.get(node, 0) - 1
                    uses[node] = left
                    if left == 0:
                        gs = grads.pop(node)
                        g = gs[0] if len(gs) == 1 else \
                            sum_(gs, enable_double_backprop)
                        gs = None
                        on_leaf(node, _as_variable(g, node, seeds))
                        g = None
            gxs = None

    finally:
        backward_state.untracked = was_untracked
        if old_backprop is _MISSING:
            config_dict.pop('enable_backprop', None)
        else:
            config_dict['enable_backprop'] = old_backprop

    if target_nodes is not None:
        for node in target_nodes:
            if node not in results:
                gs = grads.get(node)
                g = None if not gs else sum_(gs, enable_double_backprop)
                results[node] = _as_variable(g, node, seeds)
        return results
    leaf_grads = {}
    for node, gs in grads.items():
        if gs:
            g = gs[0] if len(gs) == 1 else sum_(gs, enable_double_backprop)
            leaf_grads[node] = _as_variable(g, node, seeds)
    return leaf_grads


def _node_backward(func, box, targets, grads, hooks, arrays,
                   enable_double_backprop, lazy):
    """One node's input gradients (a list, per target: an array where the
    engine carries arrays, else a Variable, or None) for every case but
    the common one (``_backprop``; the native walk calls it too): hooks,
    a ``backward_accumulate`` of the class's own, no ``backward_arrays``,
    or double backprop. ``box`` is ``[output gradients]``, handed over so
    that this frame alone holds them (see _temporaries.donated)."""
    gys = box.pop()
    inputs = func.inputs
    cls = type(func)
    sum_ = _add_grad_arrays if arrays else _add_grads
    # (``backward_arrays`` on the arrays: no hook, nothing
    # recorded, and no gradient for backward_accumulate to add to,
    # or only sums it would not add into in place)
    on_arrays = arrays and not hooks and cls.backward_arrays is not None
    grad_inputs = None
    if cls.backward_accumulate is not _base_accumulate[0]:
        # The node adds the gradients its inputs already have (as
        # Chainer's backward_accumulate): hand them over, once each.
        grad_inputs = []
        given = False
        for i in targets:
            gs = grads.pop(inputs[i], None)
            if gs:
                given = True
                grad_inputs.append(sum_(gs, enable_double_backprop))
                gs = None
            else:
                grad_inputs.append(None)
        if given and on_arrays and not lazy and \
                not func._accumulates_into(grad_inputs):
            # (it would only add to them: summed here as for any
            # node, after its backward_arrays)
            for k, i in enumerate(targets):
                if grad_inputs[k] is not None:
                    grads[inputs[i]] = [grad_inputs[k]]
            given = False
        if given:
            on_arrays = False
            if arrays:
                for k in range(len(grad_inputs)):
                    g = grad_inputs[k]
                    grad_inputs[k] = None
                    if g is not None:
                        grad_inputs[k] = _of_output(g, False)
                    g = None
        grad_inputs = None if on_arrays else tuple(grad_inputs)
    if arrays and not on_arrays:
        # (a node running ``backward`` takes Variables: the arrays
        # are held by them alone from here on)
        gys = tuple([_of_output(g, False) for g in gys])
    if hooks:
        # Built before _donated: a hook that sees the gradients
        # keeps them from being overwritten in place (unless no
        # hook holds them: FunctionHook.holds_backward_arrays).
        in_data = tuple(node.data for node in inputs)
        out_grad = tuple(g.array for g in gys)
        for hook in hooks:
            hook.backward_preprocess(func, in_data, out_grad)
        if not any(h.holds_backward_arrays for h in hooks):
            in_data = out_grad = None
    if not enable_double_backprop:
        if func.accepts_donated_grads:
            func._donated_grad_outputs = _donated_arrays(gys) \
                if on_arrays else _donated(gys)
        if grad_inputs is not None:
            # The node may add its gradient into a sum only the
            # engine holds (FunctionNode.donated_grad_inputs).
            func._donated_grad_inputs = _donated(grad_inputs)
    try:
        if on_arrays:
            gxs = func._call_backward(targets, gys, None, True)
        else:
            gxs = func._call_backward(targets, gys, grad_inputs)
    finally:
        func._donated_grad_outputs = None
        func._donated_grad_inputs = None
    if hooks:
        if in_data is None:
            in_data = tuple(node.data for node in inputs)
            out_grad = tuple(g.array for g in gys)
        for hook in hooks:
            hook.backward_postprocess(func, in_data, out_grad)
        del in_data, out_grad
    # Drop every reference to this step's gradients: a gradient the
    # engine alone holds may be overwritten in place by the node
    # that consumes it (each new gradient is taken out of ``gxs``
    # before it joins a sum, so that the list alone holds it).
    gys = grad_inputs = None
    if arrays and not on_arrays:
        return [None if gx is None else gx._array for gx in gxs]
    return gxs if type(gxs) is list else list(gxs)


def _take(grads, node, target_nodes, results, retain_grad,
          enable_double_backprop, seeds):
    """The gradient of ``node`` (its contributions summed), out of
    ``grads``; recorded in ``results`` for a target, kept on the variable
    with ``retain_grad`` (as Variables; ``seeds``: see _backprop)."""
    gs = grads.pop(node, None)
    if not gs:
        g = None
    elif len(gs) == 1:
        g = gs[0]
    else:
        g = _add_grad_arrays(gs) if seeds is not None else \
            _add_grads(gs, enable_double_backprop)
    gs = None
    if g is None:
        return None
    var = None
    if target_nodes is not None and node in target_nodes:
        var = results[node] = _as_variable(g, node, seeds)
    if retain_grad:
        held = node.get_variable_or_none()
        if held is not None:
            if var is None:
                var = _as_variable(g, node, seeds)
            held._grad_var = var
    return g


def _as_variable(g, node, seeds):
    """A gradient leaving the engine, as a Variable: ``g`` itself without
    ``seeds`` (the engine carried Variables), else the seed Variable given
    for ``node`` when ``g`` is its array unchanged, else a new one."""
    if seeds is None or g is None:
        return g
    seed = seeds.get(node) if seeds else None
    if seed is not None and seed._array is g:
        return seed
    return _of_output(g, False)


def _add_grad_arrays(arrays, enable_double_backprop=False):
    """``_add_grads`` on gradient arrays (the engine's, where nothing is
    recorded): their sum, into one of them where only the engine holds it
    (``_temporaries.donated_arrays``)."""
    if len(arrays) == 1:
        return arrays[0]
    # (asked before this frame holds any of them)
    donated = _donated_arrays(arrays)
    first = arrays[0]
    for a in arrays:
        if a.shape != first.shape or a.dtype != first.dtype:
            break
    else:
        first = a = None
        node = _module('cpuframe.functions.math.basic_math').MultiAdd(donated)
        if not node._function_hooks():
            return node._compute(tuple(arrays))[0]
    first = a = None
    # (broadcast shapes, or a hook to see the sum: as Variables)
    return _add_grads([_of_output(a, False) for a in arrays], False)._array


# FunctionNode.backward_accumulate, set when cpuframe.function_node loads
# (it imports this module; every graph's nodes come from it)
_base_accumulate = [None]
_MISSING = object()


# Gradient donation's rule lives in cpuframe/_temporaries.py; the engine
# asks it through these names.
_donated = _temporaries.donated
_donated_arrays = _temporaries.donated_arrays
_of_output = Variable._of_output
_ref_counts = _temporaries._ref_counts
_ENGINE_REFS = _temporaries.engine_refs()


def _repr_prefix(var):
    return 'variable ' + var.name if var.name else 'variable'


def variable_repr(var):
    """Chainer's ``repr`` of a Variable: ``variable name([...])`` with
    comma-separated elements (as ``numpy.array_repr``); an empty array
    other than shape (0,) shows its shape."""
    prefix = _repr_prefix(var)
    if var.array is None:
        return prefix + '(None)'
    arr = backend.cpu_device.send(var.array)
    if arr.size > 0 or arr.shape == (0,):
        body = numpy.array2string(arr, separator=', ', prefix=prefix + '(')
    else:
        body = '[], shape={!r}'.format(arr.shape)
    return '{}({})'.format(prefix, body)


def variable_str(var):
    """Chainer's ``str`` of a Variable: ``variable name([...])`` with
    space-separated elements (as ``numpy.array_str``)."""
    prefix = _repr_prefix(var)
    if var.array is None:
        return prefix + '(None)'
    arr = backend.cpu_device.send(var.array)
    return '{}({})'.format(
        prefix, numpy.array2string(arr, separator=' ', prefix=prefix + '('))
