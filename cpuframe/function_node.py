"""FunctionNode: one differentiable operation in the graph, and ``grad``.

An op subclasses ``FunctionNode`` and provides ``forward_cpu`` (NumPy),
``forward_gpu`` (CuPy) or an xp-generic ``forward``, and ``backward`` built
of other FunctionNodes.  An op with a oneDNN kernel also provides
``forward_intel64`` and ``intel64_supports(inputs)``; whether that route
runs is decided here, in ``_choose_intel64``, and nowhere else.
"""
import collections
import os
import weakref

import numpy

from cpuframe import _bf16, _hook_registry, _temporaries, _trace, backend, function_hook
from cpuframe import variable as _variable_module
from cpuframe.backends import intel64
from cpuframe.configuration import check_use_ideep, config, mixed_bf16, using_config
from cpuframe.utils import type_check
from cpuframe.variable import (
    Parameter,
    Variable,
    VariableNode,
    _backprop,
    _check_nan,
    as_variable,
    backward_state,
)


class FunctionNode:
    """A node of the computational graph: an operation and its backward.

    Subclasses implement ``forward`` (or ``forward_cpu``/``forward_gpu``),
    ``backward``, optionally ``check_type_forward`` and, for a oneDNN
    kernel, ``forward_intel64`` plus ``intel64_supports``.
    """

    inputs = None
    outputs = None
    rank = 0
    _input_indexes_to_retain = None
    _output_indexes_to_retain = None
    _retained_output_data = None
    _output_meta = None
    lazy_grad_sum = False
    #: For a class with two routes (``forward`` and ``forward_intel64``): the
    #: ``(input indexes, output indexes)`` its backward needs, declared once
    #: for both; ``apply`` retains them whichever route runs, and neither
    #: forward method calls ``retain_inputs``/``retain_outputs``. None (the
    #: default, Chainer's way): the forward methods call those themselves.
    retained_for_backward = None
    #: Set True by a node whose backward can write its input gradient over
    #: the output gradient it receives; the engine then says, per output, in
    #: ``donated_grad_outputs`` whether that may happen (see there).
    accepts_donated_grads = False
    #: The bfloat16 mixed mode (``config.dtype = cpuframe.mixed_bf16``,
    #: rules in ``cpuframe._bf16``): the input indexes this op reads rounded
    #: to bf16 (activations: the intel64 route converts them to bf16
    #: storage first), those the oneDNN primitive converts itself (weights),
    #: and the outputs it writes in bf16. ``'all'`` for every one. Empty
    #: (the default): the op computes in float32 in the mode too.
    bf16_inputs = ()
    bf16_weights = ()
    bf16_outputs = ()
    _bf16_forward = False  # whether the last forward ran in the mode
    # config.dtype when forward ran: the backward runs in the same mode
    # where either is mixed_bf16 (see _call_backward)
    _forward_dtype = None
    _donated_grad_outputs = None
    _donated_grad_inputs = None
    #: Whether the type check may be skipped where the backward engine made
    #: the inputs (a backward that is not recorded): True for cpuframe's own
    #: functions, whose checks only check. A user's class keeps its check
    #: (it may set attributes its forward reads, as some Chainer code does).
    _check_skippable_in_backward = False
    #: cpuframe's own, for speed: the names of the node attributes its
    #: ``check_type_forward`` reads besides the inputs (``()``: none). Set,
    #: a check that passed is not run again for the same signature (the
    #: class, these attributes' values, each input's array type, shape and
    #: dtype): what ARCHITECTURE.md's "decided once per signature" means
    #: for type validity. A check that fails, unhashable attribute values
    #: and ``None`` inputs are checked every call. None (the default, and
    #: for any subclass that overrides ``check_type_forward`` without
    #: setting this): every call checks.
    _type_check_attrs = None

    #: Optional, for speed: ``backward_arrays(target_input_indexes,
    #: grad_outputs)``, this node's ``backward`` on arrays. Where nothing
    #: differentiates the backward again (``enable_double_backprop=False``),
    #: no function hook is registered and no input already has a gradient
    #: to accumulate, the engine calls it with the output gradients' arrays
    #: instead of ``backward``, and it returns one array (or None) per
    #: target input. It must compute exactly what ``backward`` computes,
    #: with the same nodes in the same order (``_compute`` runs a node's
    #: forward on arrays, its route chosen as ``apply`` would), and may
    #: return ``NotImplemented`` to have ``backward`` run instead. A
    #: subclass that overrides ``backward`` or ``backward_accumulate`` and
    #: not this loses it (``__init_subclass__``).
    backward_arrays = None
    #: The methods ``backward_arrays`` mirrors: a subclass overriding one
    #: of them without it loses the inherited ``backward_arrays``.
    _backward_arrays_follows = ('backward', 'backward_accumulate')

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if '_check_skippable_in_backward' not in vars(cls):
            cls._check_skippable_in_backward = \
                cls.__module__.startswith('cpuframe.functions.')
        own = vars(cls)
        if 'check_type_forward' in own and '_type_check_attrs' not in own:
            cls._type_check_attrs = None
        if 'backward_arrays' not in own and any(
                name in own for name in cls._backward_arrays_follows):
            cls.backward_arrays = None

    @property
    def donated_grad_outputs(self):
        """During ``backward``: per output, whether its gradient is donated.

        A donated gradient array is referenced by nothing but the backward
        engine (no user variable, no other pending gradient, no view; not
        recorded for double backprop), so ``backward`` may overwrite it in
        place instead of allocating its result: at the bottom of a deep
        network this drops one activation-sized buffer from the peak.  Only
        nodes with ``accepts_donated_grads`` are told; otherwise (and outside
        ``backward``) every entry is False. The rule and its contract:
        ``cpuframe/_temporaries.py``.
        """
        flags = self._donated_grad_outputs
        if flags is None:
            return (False,) * len(self.outputs or ())
        return flags

    def donated_grad_input(self, k, grad_inputs):
        """During ``backward_accumulate``: the array of ``grad_inputs[k]``
        when the engine gives it up, else None.

        The gradient summed so far for the ``k``-th target input is donated
        in the sense of :attr:`donated_grad_outputs` (only the engine refers
        to it, the backward is not recorded): the node may add its own
        contribution into that array in place and return ``grad_inputs[k]``
        as the total, as the weight gradient of a layer used at every step
        of an unrolled RNN is accumulated in the GEMM that computes it.
        """
        flags = self._donated_grad_inputs
        if flags is None or not flags[k] or grad_inputs[k] is None:
            return None
        return grad_inputs[k].array

    def _accumulate_rest(self, targets, grad_outputs, grad_inputs, done):
        """``backward_accumulate``'s default for the targets whose position
        is not in ``done`` (``{position: total gradient}``, already summed)."""
        rest = tuple(i for k, i in enumerate(targets) if k not in done)
        gxs = tuple(self.backward(rest, grad_outputs)) if rest else ()
        if len(gxs) == len(self.inputs) and len(gxs) != len(rest):
            gxs = tuple(gxs[i] for i in rest)  # one per input, as Chainer allows
        fresh = iter(gxs)
        ret = []
        for k in range(len(targets)):
            if k in done:
                ret.append(done[k])
                continue
            gx, g_in = next(fresh), grad_inputs[k]
            ret.append(gx if g_in is None else g_in if gx is None else gx + g_in)
        return tuple(ret)

    @property
    def label(self):
        """The name shown in errors and graph dumps (the class name)."""
        return type(self).__name__

    # The hooks to call for this node (global, then local); () when none.
    _function_hooks = function_hook.hooks_of
    _local_function_hooks = None

    @property
    def local_function_hooks(self):
        """The ordered dict ``{name: hook}`` of hooks added to this node."""
        if self._local_function_hooks is None:
            self._local_function_hooks = collections.OrderedDict()
        return self._local_function_hooks

    def __repr__(self):
        return '<{} rank={}>'.format(self.label, self.rank)

    # -- forward ------------------------------------------------------------
    def apply(self, inputs):
        """Compute the outputs of this function on ``inputs``.

        ``inputs`` are Variables or arrays (arrays become constants).
        Returns a tuple of Variables.  The graph is recorded whenever
        ``config.enable_backprop`` holds (as in Chainer 7, also when no
        input requires a gradient); an output requires a gradient when
        some input does.

        The bookkeeping is the whole cost of an op on small arrays, so this
        path reads each configuration key once and asks per-class facts by
        identity; a type check that passes builds no expression
        (``type_check.light_check``), and the gradient ops of a backward
        that nothing will differentiate again skip it (see
        ``variable.backward_state``).
        """
        if _trace_active[0]:
            # (``@static_graph`` records this thread's ops: cpuframe._trace)
            recorder = _trace_state.recorder
            if recorder is not None and not recorder.busy:
                return recorder.record_apply(self, inputs)
        # inputs as given (arrays are constants, wrapped only when the
        # graph is recorded), their arrays, and whether one needs a gradient
        tensor_type = intel64.mdarray
        n_in = len(inputs)
        # (one, two or three Variables, or one array, the common cases,
        # without lists: n_in then says how many Variables input_vars holds;
        # a constant array beside Variables makes it a list, n_in 0)
        x = inputs[0] if n_in else None
        t = type(x)
        if n_in == 1:
            if t is Variable or t is Parameter:
                input_vars = (x,)
                in_data = (x._array,)
                requires_grad = x._requires_grad
            elif t is _ndarray or t is tensor_type:
                # (a constant, wrapped only if the graph is recorded)
                n_in = 0
                input_vars = [None]
                in_data = (x,)
                requires_grad = False
            else:
                n_in = -1
        elif n_in == 2 and t in _VARIABLES:
            x1 = inputs[1]
            t = type(x1)
            if t in _VARIABLES:
                input_vars = x, x1
                in_data = (x._array, x1._array)
                requires_grad = x._requires_grad or x1._requires_grad
            elif t is _ndarray or t is tensor_type:
                # (a loss's targets: a Variable and a constant, wrapped
                # only if the graph is recorded; a list: n_in 0)
                n_in = 0
                input_vars = [x, None]
                in_data = (x._array, x1)
                requires_grad = x._requires_grad
            else:
                n_in = -1
            x1 = None
        elif n_in == 3 and type(inputs[1]) in _VARIABLES and \
                type(inputs[2]) in _VARIABLES:
            # (x, W, b of a layer: every Linear and Convolution)
            x1, x2 = inputs[1], inputs[2]
            if t in _VARIABLES:
                input_vars = x, x1, x2
                in_data = (x._array, x1._array, x2._array)
                requires_grad = x._requires_grad or x1._requires_grad or \
                    x2._requires_grad
            elif t is _ndarray or t is tensor_type:
                # (a first layer's: x an array, a constant)
                n_in = 0
                input_vars = [None, x1, x2]
                in_data = (x, x1._array, x2._array)
                requires_grad = x1._requires_grad or x2._requires_grad
            else:
                n_in = -1
            x1 = x2 = None
        else:
            n_in = -1
        if n_in < 0:
            n_in = 0
            input_vars = []
            in_data = []
            requires_grad = False
            for x in inputs:
                t = type(x)
                if t is not Variable:
                    if t is _ndarray or t is tensor_type:
                        input_vars.append(None)
                        in_data.append(x)
                        continue
                    if not isinstance(x, Variable):
                        x = as_variable(x)
                input_vars.append(x)
                in_data.append(x._array)
                if x._requires_grad:
                    requires_grad = True
            in_data = tuple(in_data)
        x = None

        cls = type(self)
        if cls.check_type_forward is not _no_type_check and \
                config.type_check and not (
                    backward_state.untracked and
                    cls._check_skippable_in_backward):
            attrs = cls._type_check_attrs
            if attrs is None:
                if not type_check.light_check(self.check_type_forward,
                                              in_data):
                    self._check_data_type_forward(in_data)
            else:
                self._check_by_signature(cls, attrs, in_data)

        hooks = self._function_hooks()
        for hook in hooks:
            hook.forward_preprocess(self, in_data)

        declared = self.retained_for_backward
        if declared is None:
            self._input_indexes_to_retain = None
            self._output_indexes_to_retain = None
        else:
            self._input_indexes_to_retain = tuple(declared[0]) or None
            self._output_indexes_to_retain = tuple(declared[1]) or None
        outputs = self._forward_routed(in_data)
        if type(outputs) is not tuple:
            if not isinstance(outputs, tuple):
                raise TypeError(
                    '{}.forward: expected a tuple of arrays, got {}'.format(
                        self.label, type(outputs).__name__))
        for y in outputs:
            if type(y) is not _ndarray and type(y) is not tensor_type and \
                    not backend.is_array(y):
                raise TypeError(
                    '{}.forward: expected a tuple of arrays, got an element '
                    'of type {}'.format(self.label, type(y).__name__))
        if config.debug:
            _check_nan(outputs, 'the forward computation of ' + self.label)
        for hook in hooks:
            hook.forward_postprocess(self, in_data)

        # As Chainer 7: the graph is recorded whenever backprop is enabled,
        # also when no input needs a gradient (``F.dropout(x).creator`` of
        # an array x is the Dropout node); the outputs need a gradient when
        # some input does.
        build_graph = config.enable_backprop
        if len(outputs) == 1:  # (the common case, without a list)
            ret = (_of_output(outputs[0], requires_grad),)
        else:
            ret = tuple([_of_output(y, requires_grad) for y in outputs])
        if build_graph:
            if n_in == 1:
                node = input_vars[0]._node
                rank = node.rank
                self.inputs = (node,)
            elif n_in == 2:
                node = input_vars[0]._node
                node1 = input_vars[1]._node
                rank = node.rank if node.rank > node1.rank else node1.rank
                self.inputs = (node, node1)
                node1 = None
            elif n_in == 3:
                node = input_vars[0]._node
                node1 = input_vars[1]._node
                node2 = input_vars[2]._node
                rank = node.rank
                if node1.rank > rank:
                    rank = node1.rank
                if node2.rank > rank:
                    rank = node2.rank
                self.inputs = (node, node1, node2)
                node1 = node2 = None
            else:
                rank = 0
                nodes = []
                for i, x in enumerate(input_vars):
                    if x is None:
                        # (an array apply already accepted: no checks again)
                        x = input_vars[i] = _of_output(in_data[i], False)
                    node = x._node
                    nodes.append(node)
                    if node.rank > rank:
                        rank = node.rank
                self.inputs = tuple(nodes)
            self.rank = rank
            # (the outputs' nodes, linked as set_creator_node links them)
            if len(ret) == 1:  # (the common case, without lists)
                y = outputs[0]
                node = ret[0]._node
                node.creator_node = self
                node.rank = rank + 1
                self.outputs = (weakref.ref(node),)
                self._output_meta = ((y.shape, y.dtype, _cpu_device
                                      if type(y) is _ndarray
                                      else backend.get_device_from_array(y)),)
            else:
                out_refs = []
                meta = []
                for y, var in zip(outputs, ret):
                    node = var._node
                    node.creator_node = self
                    node.rank = rank + 1
                    out_refs.append(weakref.ref(node))
                    meta.append((y.shape, y.dtype, _cpu_device
                                 if type(y) is _ndarray
                                 else backend.get_device_from_array(y)))
                self.outputs = tuple(out_refs)
                self._output_meta = tuple(meta)
            if self._input_indexes_to_retain is not None:
                for i in self._input_indexes_to_retain:
                    input_vars[i].retain_data()
            retained = self._output_indexes_to_retain
            if retained is not None:
                self._retained_output_data = (outputs[0],) \
                    if retained == _FIRST else \
                    tuple([outputs[i] for i in retained])
        else:
            self._input_indexes_to_retain = None
            self._output_indexes_to_retain = None
        return ret

    def _check_by_signature(self, cls, attrs, in_data):
        """``check_type_forward`` once per signature (``_type_check_attrs``)."""
        try:
            n = len(in_data)
            if n == 1:  # (the common cases, first)
                x = in_data[0]
                key = (cls, type(x), x.shape, x.dtype)
            elif n == 2:
                x, y = in_data
                key = (cls, type(x), x.shape, x.dtype,
                       type(y), y.shape, y.dtype)
            elif n == 3:
                x, y, z = in_data
                key = (cls, type(x), x.shape, x.dtype,
                       type(y), y.shape, y.dtype,
                       type(z), z.shape, z.dtype)
            else:
                key = [cls]
                for x in in_data:
                    key += (type(x), x.shape, x.dtype)
                key = tuple(key)
            if attrs:
                key = (key, tuple([getattr(self, name) for name in attrs]))
            if key in _checked_signatures:
                return
        except (AttributeError, TypeError):
            # (a None input; an unhashable attribute value)
            key = None
        if not type_check.light_check(self.check_type_forward, in_data):
            self._check_data_type_forward(in_data)
        if key is not None:
            if len(_checked_signatures) >= _CHECKED_SIGNATURES_MAX:
                _checked_signatures.clear()
            _checked_signatures[key] = True

    def _check_data_type_forward(self, in_data):
        in_types = type_check.get_types(in_data, 'in_types', False)
        try:
            self.check_type_forward(in_types)
        except type_check.InvalidType as e:
            msg = 'Invalid operation is performed in: {0} (Forward)\n\n{1}'.format(
                self.label, str(e))
            raise type_check.InvalidType(e.expect, e.actual, msg=msg) from None

    def check_type_forward(self, in_types):
        """Check the shapes and dtypes of the inputs (no-op by default)."""

    def _forward_routed(self, in_data, _on_device=None):
        """Run the chosen route; convert arrays at the Intel64 boundary.

        An op that does not take its oneDNN route sees NumPy arrays (mdarray
        inputs are converted here, the one boundary of the Intel64 device).
        A route taken on NumPy inputs returns NumPy arrays: NumPy in, NumPy
        out; on mdarray inputs its outputs stay mdarrays.

        ``_on_device`` (the native core): ``(answer, dtype)``, what the
        class's own ``intel64_on_device`` said for ``in_data`` when the
        caller asked it, after writing ``dtype`` (``config.dtype``) as
        ``_forward_dtype``: neither is asked or written again.
        """
        if _on_device is None:
            dtype = config.dtype
            self._forward_dtype = dtype
        else:
            dtype = _on_device[1]
        cls = type(self)
        # (numpy_only: every input a NumPy array and not on the device by
        # the class's rule: the route choice is then _choose_off_device's)
        numpy_only = default_rule = \
            cls.intel64_on_device is _default_on_device
        # (other: some input neither a NumPy array nor an mdarray)
        on_device = other = False
        if default_rule:
            tensor_type = intel64.mdarray
            for x in in_data:
                t = type(x)
                if t is not _ndarray:
                    numpy_only = False
                    if t is tensor_type:
                        on_device = True
                    else:
                        other = True
                        if intel64.is_native_array(x):
                            on_device = True
        else:
            on_device = self.intel64_on_device(in_data) \
                if _on_device is None else _on_device[0]
            if not on_device:
                numpy_only = True
                for x in in_data:
                    if type(x) is not _ndarray:
                        numpy_only = False
                        break
            elif intel64._dnnl is None:
                other = True    # (the general choice says what is missing)
            else:
                tensor_type = intel64.mdarray
                for x in in_data:
                    t = type(x)
                    if t is not _ndarray and t is not tensor_type:
                        other = True
                        break
        mixed = dtype is mixed_bf16 and bool(
            self.bf16_inputs or self.bf16_weights or self.bf16_outputs) and \
            _bf16.active()
        self._bf16_forward = mixed
        if cls.forward_intel64 is _no_intel64_route:
            route = None    # (no route to choose)
        elif numpy_only and self._route_choice is None:  # (the common case)
            route = self._choose_off_device(in_data, config.use_ideep)
        elif on_device and not other and self._route_choice is None:
            # _choose_intel64 on the device for its common case (NumPy
            # arrays and mdarrays only, on the device by the default rule
            # or the class's own, e.g. a weight gradient with the weight's
            # layout): a small op pays this per call
            mode = config.use_ideep
            if mode == 'auto':
                # (_choose_on_device's 'auto' inline: a small op on device
                # arrays declines here, with its NumPy views)
                wants = self._wants_route_on_device(in_data)
                if wants is True:
                    route = bool(self.intel64_supports(in_data))
                else:
                    route = False
                    if wants is not False:
                        # (their NumPy views: off the device from here)
                        in_data = wants
                        on_device = False
            else:
                route = self._choose_on_device(in_data, _checked_mode())
        else:
            route = self._take_route_choice(in_data)
        if _route_watch[0] is not None and route is not None:
            _route_watch[0](self, bool(route))
        if route:
            if mixed:
                in_data = _bf16.to_bf16_inputs(self, in_data)
            outputs = self.forward_intel64(in_data)
            if not on_device and isinstance(outputs, tuple):
                for y in outputs:
                    if type(y) is not _ndarray:
                        outputs = tuple(intel64.to_numpy(y) for y in outputs)
                        break
            return outputs
        if on_device:
            plain = self._plain_inputs
            if plain is not None and plain[0] is in_data:
                # (read by the route choice just now)
                in_data = plain[1]
            else:
                in_data = _plain_arrays(in_data)
            self._plain_inputs = None
        if not mixed:
            return self.forward(in_data)
        return _bf16.round_outputs(
            self, self.forward(_bf16.round_inputs(self, in_data)))

    #: ``@static_graph`` may trace this class's ``backward_arrays`` into the
    #: gradient nodes it computes (``_compute``), replayed without it: true
    #: where their constructors' state is constants, arrays and this node,
    #: none of it read from values (graph_optimizations.static_graph)
    _static_backward = False

    #: ``@static_graph``: a node this class's state refers to (a gradient
    #: node's forward node) is read only for what its forward set, never
    #: for its graph (inputs, outputs, retained arrays): a program may run
    #: this class on a replay whose graph is not linked
    _static_reads_node_state = False

    _route_choice = None
    #: (inputs, their NumPy views): what ``_wants_route_on_device`` read
    #: when it declined the route asked through ``_choose_on_device`` (the
    #: general choice, a composite's ``choose_intel64``), for the
    #: ``_forward_routed`` that follows (cleared there: a recorded node must
    #: not keep the views alive; its inline choice takes them directly)
    _plain_inputs = None

    def choose_intel64(self, inputs):
        """Whether ``apply`` on these input arrays will run ``forward_intel64``.

        For composite routes (an op that builds this node only when its
        route runs, e.g. the fused ``L.LSTM`` step): the same decision
        ``apply`` makes, asked beforehand. The answer is kept for the next
        ``apply`` on the same arrays, which then does not decide again (the
        checks of a route read every input: 27 MB of weights per call for
        the PTB model's LSTM stack).
        """
        chosen = self._choose_intel64(inputs)
        self._route_choice = (tuple(inputs), chosen)
        return chosen

    def _take_route_choice(self, inputs):
        choice = self._route_choice
        if choice is not None:
            self._route_choice = None
            asked, chosen = choice
            if len(asked) == len(inputs) and all(
                    a is b for a, b in zip(inputs, asked)):
                return chosen
        return self._choose_intel64(inputs)

    def _choose_intel64(self, inputs):
        """Whether this call runs ``forward_intel64``: the single route choice.

        Arrays already on the Intel64 device use the oneDNN route whenever
        the op supports them, except under 'auto', which asks
        ``intel64_profitable_on_device`` (see ``_wants_route_on_device``).
        Otherwise ``config.use_ideep`` decides: 'never' keeps the NumPy
        path, 'always' takes every supported case, 'auto' only those
        ``intel64_profitable`` approves.  Without the native module
        'always' raises and 'auto' runs NumPy (warning once when the cause
        is an unbuilt source checkout).
        """
        if type(self).forward_intel64 is FunctionNode.forward_intel64:
            return False
        mode = _checked_mode()
        tensor_type = intel64.mdarray
        native = False
        for x in inputs:
            t = type(x)
            if t is tensor_type:
                native = True
            elif t is not _ndarray:
                break
        else:
            if native:
                # NumPy arrays and mdarrays only, some on the device (an
                # mdarray exists only when the module loaded): the answer
                # is the op's, unless the class decides the device itself.
                if type(self).intel64_on_device is not _default_on_device \
                        and not self.intel64_on_device(inputs):
                    return self._choose_off_device(inputs, mode)
                return self._choose_on_device(inputs, mode)
            # NumPy arrays only (the common case): on the device only if
            # the class says so (a gradient node with device constants).
            if type(self).intel64_on_device is _default_on_device or \
                    not self.intel64_on_device(inputs):
                return self._choose_off_device(inputs, mode)
        if backend.get_array_module(*inputs) is not numpy:
            return False
        if not self.intel64_on_device(inputs):
            return self._choose_off_device(inputs, mode)
        if not intel64.is_ideep_available():
            if mode == 'always':
                intel64.check_ideep_available()
            return False
        return self._choose_on_device(inputs, mode)

    def _choose_on_device(self, inputs, mode):
        """``_choose_intel64`` on the device: the route where the op supports
        these arrays, except under 'auto' when ``_wants_route_on_device``
        declines first (a size rule: ``intel64_supports`` may read every
        value)."""
        if mode == 'auto':
            wants = self._wants_route_on_device(inputs)
            if wants is not True:
                if wants is not False:
                    # (the views, for the ``_forward_routed`` that follows)
                    self._plain_inputs = (inputs, wants)
                return False
        return bool(self.intel64_supports(inputs))

    def _wants_route_on_device(self, inputs):
        """'auto' on device arrays: True (the route, where the op supports
        the arrays) where ``intel64_profitable_on_device`` approves (its
        size rule), else the NumPy path, which reads the device's plain
        buffers without a copy and returns NumPy arrays, as for an op
        without a route: then the inputs' NumPy views where they were read
        here (a tuple), else False. On small arrays a primitive's fixed
        cost (~5-20 us here) is most of an op's time; the NumPy path's,
        ~1 us per array. Under ``mixed_bf16`` the route is kept (its
        bfloat16 activations are the mode's point), and so it is for
        laid-out (blocked) or bfloat16 buffers."""
        if config.dtype is mixed_bf16 and _bf16.active():
            return True
        try:
            if type(self).intel64_profitable_on_device is \
                    _default_profitable_on_device:
                # (the default asks the NumPy-array rule: one call less; the
                # rule is the class's, as the other per-class facts apply
                # asks by identity)
                if self.intel64_profitable(inputs):
                    return True
            elif self.intel64_profitable_on_device(inputs):
                return True
        except Exception:  # noqa: BLE001 - the route decides then
            return True
        if type(inputs) is tuple:
            # NumPy arrays and plain float32 buffers only (the common case):
            # their views, read once for ``_forward_routed`` (the native
            # module is loaded: both ways here ask it first)
            views = intel64._dnnl.plain_views(inputs)
            if views is not None:
                return views
        tensor_type = intel64.mdarray
        for x in inputs:
            if (type(x) is tensor_type or (
                    x is not None and intel64.is_native_array(x))) and not (
                    x.is_plain and x.storage_dtype == 'float32'):
                # a laid-out (blocked) or bfloat16 buffer: NumPy would need
                # a reorder of it, and the route keeps the layout
                return True
        return False

    def _choose_off_device(self, inputs, mode):
        """``_choose_intel64`` for NumPy inputs: 'never' declines, 'auto'
        asks ``intel64_profitable`` first (a size rule, while
        ``intel64_supports`` may read every value) and then both. ``mode``
        is ``config.use_ideep`` as read: any other value raises here."""
        if mode == 'never':
            return False
        if mode == 'auto':
            # (the size rule first: most small calls end here, without
            # asking for the native module)
            try:
                if not self.intel64_profitable(inputs):
                    return False
            except Exception:  # noqa: BLE001 - asked again after supports
                pass
        elif mode != 'always':
            check_use_ideep(mode)
        return self._choose_off_device_rest(inputs, mode)

    def _choose_off_device_rest(self, inputs, mode):
        """``_choose_off_device`` after the size rule passed ('auto'), for
        'always' after the mode's check (the native core asks the rule
        itself, then this)."""
        if not intel64.is_ideep_available():
            if mode == 'always':
                intel64.check_ideep_available()
            elif mode == 'auto':
                intel64.warn_if_native_missing()
            return False
        if not self.intel64_supports(inputs):
            return False
        if mode == 'auto':
            return bool(self.intel64_profitable(inputs))
        return True

    def intel64_on_device(self, inputs):
        """Whether this call computes on the Intel64 device.

        True when some input is an mdarray.  A gradient node whose constants
        come from the device (e.g. the forward output it keeps) overrides it
        so that its result stays an mdarray too.
        """
        tensor_type = intel64.mdarray
        for x in inputs:
            # (NumPy arrays first: before the module loads, ``isinstance``
            # with the placeholder type runs Python code)
            if type(x) is not _ndarray and isinstance(x, tensor_type):
                return True
        return False

    def intel64_supports(self, inputs):
        """Whether ``forward_intel64`` can compute these inputs exactly."""
        return False

    def intel64_profitable(self, inputs):
        """Whether oneDNN is known to be faster here (used by 'auto')."""
        return True

    def intel64_profitable_on_device(self, inputs):
        """Whether oneDNN is faster on these device arrays than NumPy on
        views of their buffers (used by 'auto'; by default the rule for
        NumPy arrays, ``intel64_profitable``). Ops whose NumPy-array rule
        counts a conversion the device does not pay override it."""
        return self.intel64_profitable(inputs)

    def forward_intel64(self, inputs):
        """The oneDNN route; ops with a native kernel override it."""
        raise NotImplementedError

    def forward(self, inputs):
        """Dispatch to ``forward_cpu`` or ``forward_gpu`` by array module."""
        for x in inputs:
            if type(x) is not _ndarray:
                break
        else:
            return self.forward_cpu(inputs)
        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs):
        raise NotImplementedError(
            '{}: no forward for NumPy arrays'.format(self.label))

    def forward_gpu(self, inputs):
        raise NotImplementedError(
            '{}: no forward for CuPy arrays'.format(self.label))

    # -- retention ------------------------------------------------------------
    def retain_inputs(self, indexes):
        """Keep the inputs at ``indexes`` for backward (call in forward)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes):
        """Keep the outputs at ``indexes`` for backward (call in forward)."""
        self._output_indexes_to_retain = tuple(indexes)

    def get_retained_inputs(self):
        """The retained inputs as Variables connected to the graph."""
        if self._input_indexes_to_retain is None or self.inputs is None:
            return ()
        return tuple(self.inputs[i].get_variable()
                     for i in self._input_indexes_to_retain)

    def get_retained_outputs(self):
        """The retained outputs as Variables connected to the graph."""
        if self._output_indexes_to_retain is None or self.outputs is None:
            return ()
        ret = []
        for i, data in zip(self._output_indexes_to_retain,
                           self._retained_output_data):
            node = self.outputs[i]()
            if node is None:
                var = Variable(data, requires_grad=True)
                var.creator_node = self
                outputs = list(self.outputs)
                outputs[i] = weakref.ref(var.node)
                self.outputs = tuple(outputs)
                node = var.node
            node.data = data
            ret.append(node.get_variable())
        return tuple(ret)

    def _retained_input_arrays(self):
        """The arrays of ``get_retained_inputs()`` (for ``backward_arrays``):
        a live input Variable's array, else the retained one."""
        ret = []
        for i in self._input_indexes_to_retain:
            node = self.inputs[i]
            var = node._variable()
            ret.append(node.data if var is None else var._array)
        return tuple(ret)

    def _retained_output_arrays(self):
        """The arrays of ``get_retained_outputs()`` (for
        ``backward_arrays``): a live output Variable's array, else the
        retained one."""
        ret = []
        for i, data in zip(self._output_indexes_to_retain,
                           self._retained_output_data):
            node = self.outputs[i]()
            var = None if node is None else node._variable()
            ret.append(data if var is None else var._array)
        return tuple(ret)

    @property
    def output_data(self):
        """The retained output arrays (Chainer compatibility)."""
        return self._retained_output_data

    # -- backward -------------------------------------------------------------
    def backward(self, target_input_indexes, grad_outputs):
        """Return gradients (Variables) of the inputs at ``target_input_indexes``.

        ``grad_outputs`` holds one Variable per output.  The computation
        must use FunctionNodes so that it can be differentiated again.
        """
        raise NotImplementedError(
            '{}: backward is not implemented'.format(self.label))

    def backward_accumulate(self, target_input_indexes, grad_outputs,
                            grad_inputs):
        """``backward`` plus the gradients already computed for the inputs.

        ``grad_inputs`` holds, per target input, the gradient accumulated
        for it so far (a Variable, or None); the result is the total
        gradient per target input.  The backward engine calls it instead of
        ``backward`` when a subclass overrides it, so a node can fuse the
        accumulation into its gradient computation.  The default adds the
        result of ``backward`` to ``grad_inputs``.
        """
        return self._accumulate_rest(target_input_indexes, grad_outputs,
                                     grad_inputs, {})

    def _zero_output(self, index):
        shape, dtype, device = self._output_meta[index]
        # On the Intel64 device a zero gradient is an mdarray too.
        return device.send(device.xp.zeros(shape, dtype=dtype))

    def _overrides_backward_accumulate(self):
        return type(self).backward_accumulate is not \
            FunctionNode.backward_accumulate

    def _accumulates_into(self, sums):
        """Whether ``backward_accumulate``, given ``sums`` (per target input
        the array of the gradient summed so far, or None), would do more
        than add this node's gradients to them (add into one in place).

        Asked by the backward engine where nothing records the backward:
        where it says no, the engine computes this node's gradients as any
        other node's (``backward_arrays``) and adds them to the sums itself,
        the same values without the Variable backward. cpuframe's own
        classes that accumulate in place say when they would; any other
        class overriding ``backward_accumulate`` is always given the sums.
        """
        return True

    def _accumulates_into_device_arrays(self, owner, mixed, sums):
        """``_accumulates_into`` of ``owner``, a class whose
        ``backward_accumulate`` adds in place only into a device array and
        in ``mixed`` (mixed_bf16) keeps the default's Variable sums: yes
        there, where a sum is a device array, and for a subclass with its
        own ``backward_accumulate``."""
        if mixed or type(self).backward_accumulate is not \
                owner.backward_accumulate:
            return True
        for s in sums:
            if s is not None and intel64.is_native_array(s):
                return True
        return False

    def _call_backward(self, targets, grad_outputs, grad_inputs=None,
                       arrays=False):
        """The gradients of the inputs at ``targets`` (Variables or None),
        shapes checked; with ``arrays`` (the engine asks only where that may
        run) through ``backward_arrays``, gradients in and out as arrays."""
        fdt = self._forward_dtype
        if fdt is not None and fdt is not config.dtype and (
                fdt is mixed_bf16 or config.dtype is mixed_bf16):
            # A backward computes in the mixed_bf16 mode exactly when its
            # forward did: a graph built in a using_config('dtype', ...)
            # scope backpropagates the same way outside it, and a float32
            # scope inside the mode (the float32 RNN layers' NumPy path)
            # stays float32 backward too.
            with using_config('dtype', fdt):
                return self._call_backward_in_mode(targets, grad_outputs,
                                                   grad_inputs, arrays)
        if arrays:
            return self._call_backward_arrays_now(targets, grad_outputs)
        return self._call_backward_now(targets, grad_outputs, grad_inputs)

    def _call_backward_in_mode(self, targets, grad_outputs, grad_inputs,
                               arrays):
        if arrays:
            return self._call_backward_arrays_now(targets, grad_outputs)
        return self._call_backward_now(targets, grad_outputs, grad_inputs)

    def _compute(self, in_data):
        """This node's outputs (a tuple of arrays) for the arrays
        ``in_data``, nothing recorded: what ``apply`` computes inside a
        backward nothing differentiates again, where cpuframe's own
        functions skip their type checks and no hook is registered (the
        route is chosen as ``apply`` chooses it). The building block of
        ``backward_arrays``."""
        if _trace_active[0]:
            # (``@static_graph`` traces the array backward of a replayed
            # schedule in this thread: cpuframe._trace)
            recorder = _trace_state.recorder
            if recorder is not None and recorder.traces_compute and \
                    not recorder.busy:
                return recorder.record_compute(self, in_data)
        outputs = self._forward_routed(in_data)
        if config.debug:
            _check_nan(outputs, 'the forward computation of ' + self.label)
        return outputs

    def _call_backward_arrays_now(self, targets, grad_outputs):
        """``backward_arrays`` on the arrays ``grad_outputs``: the input
        gradients at ``targets`` as a list of arrays (or None), shapes
        checked; through ``backward`` on Variables when backward_arrays
        declines."""
        gxs = self.backward_arrays(targets, grad_outputs)
        if gxs is NotImplemented:
            return self._backward_arrays_declined(targets, grad_outputs)
        if len(gxs) != len(targets):
            raise ValueError(
                '{}.backward_arrays: expected {} gradients (one per target '
                'input), got {}'.format(self.label, len(targets), len(gxs)))
        inputs = self.inputs
        ret = list(gxs)
        gxs = None
        for k in range(len(targets)):
            gx = ret[k]
            if gx is None:
                continue
            gshape = gx.shape
            shape = inputs[targets[k]].shape
            if gshape != shape and shape is not None and \
                    tuple(gshape) != shape:
                raise ValueError(
                    '{}.backward: the gradient of input {} has shape {}, '
                    'expected {}'.format(self.label, targets[k], gshape,
                                         shape))
        gx = None
        if config.debug:
            _check_nan(ret, 'the backward computation of ' + self.label)
        return ret

    def _backward_arrays_declined(self, targets, grad_outputs):
        """``_call_backward_arrays_now`` where ``backward_arrays`` said
        NotImplemented: ``backward`` on Variables, arrays out."""
        gxs = self._call_backward_now(
            targets, tuple([_of_output(g, False) for g in grad_outputs]),
            None)
        return [None if gx is None else gx._array for gx in gxs]

    def _call_backward_now(self, targets, grad_outputs, grad_inputs):
        if grad_inputs is None:
            gxs = self.backward(targets, grad_outputs)
        else:
            gxs = self.backward_accumulate(targets, grad_outputs,
                                           grad_inputs)
        if not isinstance(gxs, (tuple, list)):
            gxs = (gxs,)
        gxs = tuple(gxs)
        if len(gxs) == len(self.inputs) and len(gxs) != len(targets):
            gxs = tuple(gxs[i] for i in targets)
        if len(gxs) != len(targets):
            raise ValueError(
                '{}.backward: expected {} gradients (one per target input), '
                'got {}'.format(self.label, len(targets), len(gxs)))
        return self._checked_gradients(targets, gxs, False)

    def _checked_gradients(self, targets, gxs, from_arrays):
        """One Variable (or None) per target, its shape the input's; arrays
        are wrapped (``from_arrays``: arrays made by cpuframe's own nodes,
        wrapped without the constructor's checks)."""
        ret = []
        inputs = self.inputs
        for i, gx in zip(targets, gxs):
            if gx is None:
                ret.append(None)
                continue
            if from_arrays:
                gshape = gx.shape
                gx = _of_output(gx, False)
            else:
                if not isinstance(gx, Variable):
                    gx = Variable(gx, requires_grad=False)
                gshape = gx.shape
            shape = inputs[i].shape
            if shape is not None and gshape != shape and \
                    tuple(gshape) != shape:
                raise ValueError(
                    '{}.backward: the gradient of input {} has shape {}, '
                    'expected {}'.format(self.label, i, gx.shape, shape))
            ret.append(gx)
        if config.debug:
            _check_nan(ret, 'the backward computation of ' + self.label)
        return ret

    def unchain(self):
        """Forget the links to inputs and outputs."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None
        self.outputs = None
        self._retained_output_data = None

    def add_hook(self, hook, name=None):
        """Register ``hook`` (a FunctionHook) for this node only.

        ``name`` defaults to ``hook.name``; a name already in use here is a
        ``KeyError``.  Local hooks run after the global ones.
        """
        if not isinstance(hook, function_hook.FunctionHook):
            raise TypeError('{}.add_hook: expected a FunctionHook, got '
                            '{}'.format(self.label, type(hook).__name__))
        _hook_registry.add_local(self.local_function_hooks, hook, name, self,
                                 self.label)
        return self

    def delete_hook(self, name):
        """Unregister the hook added to this node under ``name``."""
        _hook_registry.delete_local(self.local_function_hooks, name, self,
                                    self.label)


# Per-class facts asked by identity on every apply: whether a class
# overrides these (the defaults mean "no check", "no oneDNN route", "on the
# device exactly when an input is an mdarray").
_no_type_check = FunctionNode.check_type_forward


def _light_type_check(node, in_data):
    """``apply``'s type check where the class gives no signature attributes
    (``_type_check_attrs`` None): the light check, the full one where it
    did not pass (the native core calls this)."""
    if not type_check.light_check(node.check_type_forward, in_data):
        node._check_data_type_forward(in_data)


def _run_route_off_device(node, in_data):
    """The oneDNN route of ``_forward_routed`` on NumPy inputs (outside
    mixed_bf16): NumPy in, NumPy out (the native core calls this)."""
    outputs = node.forward_intel64(in_data)
    if isinstance(outputs, tuple):
        for y in outputs:
            if type(y) is not _ndarray:
                # (plain float32 buffers: their views in one native call)
                views = intel64.native().plain_views(outputs) \
                    if type(outputs) is tuple else None
                if views is not None:
                    return views
                return tuple(intel64.to_numpy(y) for y in outputs)
    return outputs


def _plain_arrays(in_data):
    """``in_data`` with its device arrays as NumPy arrays (views of plain
    buffers: ``intel64.to_numpy``, its common case inline)."""
    native = intel64.native()
    if type(in_data) is tuple and native is not None:
        # (without the module no array is on the device: a class's own
        # device rule may still say so, and to_numpy keeps them below)
        views = native.plain_views(in_data)
        if views is not None:
            return views
    tensor_type = intel64.mdarray
    out = []
    for x in in_data:
        if type(x) is tensor_type:
            view = x.plain_view()
            out.append(view if view is not None else intel64.to_numpy(x))
        else:
            out.append(intel64.to_numpy(x))
    return tuple(out)


_FIRST = (0,)


def _checked_mode():
    """``config.use_ideep``, a clear error where it is none of the three."""
    mode = config.use_ideep
    if mode != 'auto' and mode != 'never' and mode != 'always':
        check_use_ideep(mode)
    return mode


# The signatures whose type check passed (FunctionNode._type_check_attrs):
# a bounded set, emptied when full (a model has a few dozen).
_checked_signatures = {}
_CHECKED_SIGNATURES_MAX = 4096

#: ``[fn]``: ``fn(node, chosen)`` is told every route choice ``apply``
#: makes (a diagnostic: the convnet harness counts the routes taken)
_route_watch = [None]

_no_intel64_route = FunctionNode.forward_intel64
_default_on_device = FunctionNode.intel64_on_device
_default_profitable_on_device = FunctionNode.intel64_profitable_on_device
_ndarray = numpy.ndarray
# (the input types apply takes without its general loop)
_VARIABLES = (Variable, Parameter)
_trace_active = _trace.active
_trace_state = _trace.state
_cpu_device = backend.cpu_device
_of_output = Variable._of_output


def grad(outputs, inputs, grad_outputs=None, grad_inputs=None, set_grad=False,
         retain_grad=False, enable_double_backprop=False, loss_scale=None):
    """Gradients of ``outputs`` w.r.t. ``inputs``, leaving ``.grad`` untouched.

    Returns a list with one Variable (or None where no path exists) per
    input.  A missing gradient of an output (``grad_outputs`` None, or a
    None entry) is ones of the output's shape, as in Chainer 7, and only
    such a default is multiplied by ``loss_scale``.  Only
    the part of the graph between the inputs and the outputs is walked.

    ``grad_inputs`` (one entry per input, None for none) are gradients the
    inputs already have: each seeds the backward at its input, so it is
    part of the returned gradient of that input and of every input upstream
    of it, as in Chainer 7. Two cases differ from Chainer 7.8.1 on purpose
    (there a later seed replaces an earlier one instead of adding to it):
    an input listed twice gets the sum of its ``grad_inputs``, and an input
    that is also an output gets its ``grad_outputs`` entry plus its
    ``grad_inputs`` entry. A third: Chainer 7.8.1 walks only the paths from
    the outputs, so the given gradient of an input no output depends on
    never reaches the inputs upstream of it; here it does, as it does for
    an input on those paths.
    With ``enable_double_backprop=True`` the returned gradients are
    themselves differentiable.
    """
    if isinstance(outputs, Variable) or not isinstance(outputs, (list, tuple)):
        raise TypeError('grad: expected outputs as a tuple or list of '
                        'Variables, got {}'.format(type(outputs).__name__))
    if isinstance(inputs, Variable) or not isinstance(inputs, (list, tuple)):
        raise TypeError('grad: expected inputs as a tuple or list of '
                        'Variables, got {}'.format(type(inputs).__name__))
    for x in list(outputs) + list(inputs):
        if not isinstance(x, Variable):
            raise TypeError('grad: expected Variables, got {}'.format(
                type(x).__name__))
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError('grad: expected {} grad_outputs, got {}'.format(
            len(outputs), len(grad_outputs)))
    seeds = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            fill = 1 if loss_scale is None else loss_scale
            gy = Variable(y.xp.full_like(y.array, fill), requires_grad=False)
        elif not isinstance(gy, Variable):
            gy = Variable(gy, requires_grad=False)
        seeds.append(gy)
    output_nodes = [y.node for y in outputs]
    if grad_inputs is not None:
        if len(grad_inputs) != len(inputs):
            raise ValueError('grad: expected {} grad_inputs (one per input), '
                             'got {}'.format(len(inputs), len(grad_inputs)))
        # A gradient given for an input seeds the backward at that input:
        # it reaches every input upstream of it, as in Chainer 7.
        for x, gx in zip(inputs, grad_inputs):
            if gx is None:
                continue
            if not isinstance(gx, Variable):
                gx = Variable(gx, requires_grad=False)
            output_nodes.append(x.node)
            seeds.append(gx)
    target_nodes = {x.node for x in inputs}
    results = _backprop(output_nodes, seeds, retain_grad,
                        enable_double_backprop, target_nodes=target_nodes)
    gxs = [results.get(x.node) for x in inputs]
    if set_grad:
        for x, g in zip(inputs, gxs):
            x.grad_var = g
    return gxs


# The backward engine's test for a class's own backward_accumulate (the
# native walk's and _node_backward's, whichever walk runs first).
_variable_module._base_accumulate[0] = FunctionNode.backward_accumulate


# -- the native core -----------------------------------------------------
#: The Python definition of ``FunctionNode.apply``: the reference, what a
#: build without ``cpuframe._core`` runs, and what the native apply hands a
#: call it does not take (see csrc/core.cpp).
FunctionNode._apply_python = FunctionNode.apply
FunctionNode._compute_python = FunctionNode._compute
_of_output_python = Variable.__dict__['_of_output']


def _load_native_core():
    """``(cpuframe._core, None)``, or ``(None, why not)``."""
    if os.environ.get('CPUFRAME_NATIVE_CORE', '1') in ('0', 'false', 'False'):
        return None, 'CPUFRAME_NATIVE_CORE=0'
    try:
        from cpuframe import _core
    except ImportError:
        return None, 'cpuframe._core is not built'
    return _core, None


_native_core, _native_core_missing = _load_native_core()
_native_apply = _native_compute = None
if _native_core is not None:
    _native_apply, _native_compute = _native_core.core_install({
        'FunctionNode': FunctionNode, 'Variable': Variable,
        'Parameter': Parameter, 'VariableNode': VariableNode,
        'ndarray': numpy.ndarray, 'mdarray': intel64.mdarray,
        'trace_active': _trace.active, 'config': config,
        'backward_state': backward_state,
        'global_hooks': function_hook._global,
        'hooks_of': function_hook.hooks_of,
        'no_type_check': _no_type_check,
        'light_type_check': _light_type_check,
        'checked_signatures': _checked_signatures,
        'check_nan': _check_nan, 'cpu_device': backend.cpu_device,
        'get_device_from_array': backend.get_device_from_array,
        'is_array': backend.is_array,
        'apply_python': FunctionNode._apply_python,
        'forward_routed': FunctionNode._forward_routed,
        'default_on_device': _default_on_device,
        'no_intel64_route': _no_intel64_route,
        'default_forward': FunctionNode.forward,
        'mixed_bf16': mixed_bf16, 'route_watch': _route_watch,
        'run_route_off_device': _run_route_off_device,
        'compute_python': FunctionNode._compute_python,
        'wants_route': FunctionNode._wants_route_on_device,
        'choose_off_device': FunctionNode._choose_off_device,
        'choose_on_device': FunctionNode._choose_on_device,
        'default_profitable_on_device': _default_profitable_on_device,
        'plain_arrays': _plain_arrays,
        'size_rules': intel64._routing.SIZE_RULES,
        'routing_globals': vars(intel64._routing),
        'variable_globals': vars(_variable_module),
        'owns_buffer': _temporaries.owns_buffer,
        'base_accumulate': FunctionNode.backward_accumulate,
        'call_backward': FunctionNode._call_backward,
        'call_backward_arrays_now': FunctionNode._call_backward_arrays_now,
    })
    if intel64._dnnl is not None:
        _native_core.set_tensor_type(intel64.mdarray, intel64._dnnl.plain_views)


def native_core(enabled=None):
    """Whether ``FunctionNode.apply``, ``FunctionNode._compute``,
    ``Variable._of_output``, the backward walk (``variable._backprop``'s
    common case) and ``variable._set_leaf_grads`` run in C
    (``cpuframe._core``); ``enabled`` switches them (where the module is
    there) and the previous state is returned. For tests and A/B runs: the
    Python definitions are the reference."""
    global _of_output
    import cpuframe.variable as variable_module
    was = FunctionNode.__dict__['apply'] is not FunctionNode._apply_python
    if enabled is None or _native_apply is None:
        return was
    if enabled:
        FunctionNode.apply = _native_apply
        FunctionNode._compute = _native_compute
        Variable._of_output = _native_core.of_output
        variable_module._native_backprop[0] = _native_core.backprop
        variable_module._set_leaf_grads = _native_core.set_leaf_grads
    else:
        FunctionNode.apply = FunctionNode._apply_python
        FunctionNode._compute = FunctionNode._compute_python
        Variable._of_output = _of_output_python
        variable_module._native_backprop[0] = None
        variable_module._set_leaf_grads = \
            variable_module._set_leaf_grads_python
    _of_output = variable_module._of_output = Variable._of_output
    return was


native_core(True)
