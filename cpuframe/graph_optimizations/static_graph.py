"""``chainer.graph_optimizations.static_graph``: the ``@static_graph`` decorator.

A chain whose ``forward`` (or ``__call__``) is decorated runs define-by-run
on the first two calls with a given input signature and records the ops it
applies; from the third call on the recorded schedule is replayed: each op's
forward runs on the arrays directly (the same node class with the state its
constructor gave it, the same route choice, the same kernels) and the graph
``backward`` needs is linked in place, without the chain's Python, the
functions' argument handling, type checks or Variables for intermediate
values. Results and gradients are bit for bit those of define-by-run: the
replayed graph is the graph define-by-run builds (same nodes, same ranks,
the same backward engine).

The signature: the arguments' structure, each array's type, shape and dtype
(and ``requires_grad`` of Variables), the other arguments' values, and
``config.train``, ``enable_backprop``, ``dtype`` and ``use_ideep``. A new
signature records a new schedule (at most 32 per chain, 4 with
``minimize_cache_size``; the least recently used goes); after 16 new
signatures in a row without a replay, new ones run define-by-run without
recording until a known signature replays again.

What is replayed and what is not (Chainer's rules, with two checks of ours):

- Ops (``FunctionNode.apply``) and functions decorated with
  ``@static_code`` run on every call; other Python in the decorated method
  runs only while recording (side effects belong in ``@static_code``).
- Parameters are read on every call (an optimizer may update them in place
  or replace their arrays); a parameter whose array changes type, shape or
  dtype, a link persistent (e.g. ``avg_mean``) replaced by another array,
  or a link hook added makes the chain record again.
- The graph must not depend on the data. The second call of a signature
  records again and compares: a different sequence of ops, different
  constant arrays or different op settings (a data-dependent branch, a
  value computed outside the ops) is reported with a ``RuntimeWarning``
  and that signature runs define-by-run from then on, never a replay of
  the wrong graph. Under ``config.debug`` every call runs define-by-run and
  is compared with the schedule.
- Define-by-run also runs while function or link hooks are registered,
  under ``config.use_static_graph = False``, in test mode with
  ``force_test_define_by_run=True``, inside another chain's recording, for
  arguments that are not Variables, arrays, lists/tuples of them or
  hashable constants, and for ops whose state lives outside the node
  (old-style ``chainer.Function``).

Double backprop works through a replayed graph as through define-by-run
(``enable_double_backprop`` is accepted for Chainer's sake).
"""
import collections
import functools
import heapq
import itertools
import warnings
import weakref

import numpy

from cpuframe import _temporaries, _trace, backend, function_hook, link_hook
from cpuframe import function_node as _function_node
from cpuframe import variable as _variable
from cpuframe.configuration import config, mixed_bf16, using_config
from cpuframe.function_node import FunctionNode
from cpuframe.variable import Parameter, Variable, VariableNode

_OPTIONS = {
    'check_input_variables': True,
    'force_test_define_by_run': False,
    'minimize_cache_size': False,
    'verbosity_level': 0,
    'enable_double_backprop': False,
}

# how an op reads a recorded value
_LINK = 0       # its own graph node (an op output, a Variable argument, a parameter)
_LEAF = 1       # a new leaf holding the value (an array given as is: a constant)
_LEAF_GRAD = 2  # a new leaf that requires a gradient (a Variable made in the method)

_APPLY_STATE = ('_route_choice', 'inputs', 'outputs', 'rank',
                '_retained_output_data', '_output_meta', '_forward_dtype',
                '_bf16_forward', '_donated_grad_outputs', '_donated_grad_inputs')

_GIVE_UP = 16   # new signatures in a row without a replay (see _call)

_CANDIDATE, _READY, _DYNAMIC = 'recorded once', 'replayed', 'define-by-run'


def _released():
    return None


class ScheduleManager:
    """A static chain's schedules, one per input signature
    (``chain.schedule_manager``)."""

    def __init__(self, minimize_cache_size=False, verbosity_level=0,
                 chain=None):
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level
        self.max_schedules = 4 if minimize_cache_size else 32
        self._entries = collections.OrderedDict()
        self._warned = False
        self._new_in_a_row = 0
        # The chain whose parameters the schedules read: a copy of the chain
        # (copy.copy shares this object) must not replay them.
        self._chain_ref = None if chain is None else weakref.ref(chain)

    def _serves(self, chain):
        return self._chain_ref is not None and self._chain_ref() is chain

    def _fresh(self):
        return ScheduleManager(self.minimize_cache_size, self.verbosity_level)

    # A copied or pickled chain starts without schedules (they refer to the
    # original's parameters and links).
    def __copy__(self):
        return self._fresh()

    def __deepcopy__(self, memo):
        return self._fresh()

    def __reduce__(self):
        return (ScheduleManager, (self.minimize_cache_size, self.verbosity_level))

    def end_forward(self):
        """Chainer: mark the end of a forward pass without backward.

        Nothing to do here: a replay holds no buffers between calls."""

    @property
    def schedules(self):
        """``{signature: state}``: 'recorded once', 'replayed' or
        'define-by-run' (for inspection and tests)."""
        return {key: entry[0] for key, entry in self._entries.items()}

    def __repr__(self):
        states = collections.Counter(entry[0] for entry in self._entries.values())
        return '<ScheduleManager {} signature(s): {}>'.format(
            len(self._entries),
            ', '.join('{} {}'.format(n, s) for s, n in sorted(states.items()))
            or 'none')

    # -- one call ---------------------------------------------------------------
    def _call(self, func, chain, args, kwargs):
        cfg = config
        if len(args) == 1 and not kwargs and (
                type(args[0]) is Variable or type(args[0]) is numpy.ndarray):
            # (the common case: one array or Variable)
            leaves = [args[0]]
            key = (_leaf_signature(args[0]), cfg.train, cfg.enable_backprop,
                   cfg.dtype, cfg.use_ideep)
        else:
            leaves = []
            try:
                structure = _structure((args, kwargs), leaves)
                key = (tuple([_leaf_signature(x) for x in leaves]), cfg.train,
                       cfg.enable_backprop, cfg.dtype, cfg.use_ideep,
                       structure)
                hash(key)
            except TypeError:
                return func(chain, *args, **kwargs)
        entries = self._entries
        entry = entries.get(key)
        if function_hook._global.hooks or link_hook._global.hooks:
            return func(chain, *args, **kwargs)
        if entry is not None:
            entries.move_to_end(key)
            state = entry[0]
            if state is _DYNAMIC:
                return func(chain, *args, **kwargs)
            if state is _READY and not cfg.debug:
                out = entry[1].replay(leaves)
                if out is not _STALE:
                    self._new_in_a_row = 0
                    return out
                del entries[key]
                entry = None
        if any(link._local_link_hooks for link in chain.links()):
            return func(chain, *args, **kwargs)
        if entry is None:
            # Recording costs about a define-by-run call more; a chain whose
            # inputs change shape every call (variable-length batches) would
            # pay it on every call and never replay: after _GIVE_UP new
            # signatures in a row, new ones run define-by-run unrecorded
            # until a known one replays again.
            self._new_in_a_row += 1
            if self._new_in_a_row > _GIVE_UP:
                return func(chain, *args, **kwargs)
        recorder = _Recorder(chain, leaves)
        with _trace.recording(recorder):
            result = func(chain, *args, **kwargs)
        recorder.finish(result)
        if entry is None:
            if recorder.why is not None:
                self._store(key, (_DYNAMIC, None))
                self._say(1, chain, 'runs define-by-run: ' + recorder.why)
            else:
                self._store(key, (_CANDIDATE, recorder))
                self._say(1, chain, 'recorded {} step(s)'.format(
                    len(recorder.steps)))
            return result
        reference = entry[1] if entry[0] is _CANDIDATE else entry[1].recorder
        if recorder.why is not None:
            self._store(key, (_DYNAMIC, None))
            self._say(1, chain, 'runs define-by-run: ' + recorder.why)
            return result
        difference = reference.difference(recorder)
        if difference is None:
            if entry[0] is _CANDIDATE:
                self._store(key, (_READY, _Schedule(recorder)))
                self._say(1, chain, 'replays its {} step(s) from now on'.format(
                    len(recorder.steps)))
            return result
        self._store(key, (_DYNAMIC, None))
        if not self._warned:
            self._warned = True
            warnings.warn(
                'static_graph: {} does not define the same graph on every call '
                'with these inputs ({}); it runs define-by-run from now on. Put '
                'data-dependent code in @static_code functions or remove '
                '@static_graph.'.format(type(chain).__name__, difference),
                RuntimeWarning, stacklevel=3)
        return result

    def _store(self, key, entry):
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_schedules:
            self._entries.popitem(last=False)

    def _say(self, level, chain, what):
        if self.verbosity_level >= level:
            print('static_graph: {} {}'.format(type(chain).__name__, what))


# -- signatures -------------------------------------------------------------------
def _is_array(x):
    return isinstance(x, numpy.ndarray) or backend.is_array(x)


def _structure(obj, leaves):
    """The hashable shape of the arguments; Variables and arrays go to
    ``leaves`` (raises TypeError for an unhashable constant)."""
    if isinstance(obj, Variable) or _is_array(obj):
        leaves.append(obj)
        return None
    if type(obj) is tuple or type(obj) is list:
        return (type(obj), tuple([_structure(x, leaves) for x in obj]))
    if type(obj) is dict:
        return (dict, tuple(sorted(
            (k, _structure(v, leaves)) for k, v in obj.items())))
    hash(obj)
    return ('=', type(obj), obj)


def _leaf_signature(x):
    if isinstance(x, Variable):
        a = x.array
        if a is None:
            return (Variable, None, x.requires_grad)
        return (Variable, type(a), tuple(a.shape), a.dtype, x.requires_grad)
    return (type(x), tuple(x.shape), x.dtype)


# -- recording ----------------------------------------------------------------------
class _Recorder:
    """What one define-by-run call of a static chain applied, in order."""

    busy = False
    traces_compute = False

    def __init__(self, chain, leaves):
        self.chain = chain
        self.config = _op_config()
        self.steps = []
        self.requires_grad = []   # per value
        self.consts = {}          # value -> array made outside the ops
        self.params = []          # (value, Parameter)
        self.why = None           # why this call cannot be replayed
        self._linked = {}         # id(Variable) -> value (kept alive while
        #                           recording, so a backward run inside the
        #                           method finds the same Variables)
        self._data = {}           # id(array) -> value
        self._keep = []           # what the ids above belong to
        self.args = []
        for x in leaves:
            v = self._new(x.requires_grad if isinstance(x, Variable) else False)
            self.args.append(v)
            if isinstance(x, Variable):
                self._link(x, v)
            else:
                self._see(x, v)
        self.links = list(chain.links())
        # what a replay reads through the chain's attributes: its links,
        # parameters and array persistents (each must still be there)
        members = []
        for link in self.links:
            children = link.__dict__.get('_children', ())
            if type(children) is list:      # ChainList
                members.extend((children, k, c) for k, c in enumerate(children))
            else:
                members.extend((link.__dict__, name, link.__dict__.get(name))
                               for name in children)
            members.extend((link.__dict__, name, link.__dict__.get(name))
                           for name in link._params)
            members.extend((link.__dict__, name, link.__dict__.get(name))
                           for name in link._persistent
                           if _is_array(link.__dict__.get(name)))
        self.members = members
        self.output = None

    def _new(self, requires_grad):
        self.requires_grad.append(requires_grad)
        return len(self.requires_grad) - 1

    def _see(self, array, v):
        self._data[id(array)] = v
        self._keep.append(array)

    def _link(self, var, v):
        self._linked[id(var)] = v
        self._keep.append(var)
        self._see(var.array, v)

    def _source(self, x):
        if isinstance(x, Variable):
            v = self._linked.get(id(x))
            if v is not None:
                return (v, _LINK)
            if isinstance(x, Parameter):
                v = self._new(x.requires_grad)
                self._link(x, v)
                self.params.append((v, x))
                return (v, _LINK)
            mode = _LEAF_GRAD if x.requires_grad else _LEAF
            x = x.array
        else:
            mode = _LEAF
            if not _is_array(x):
                x = Variable(x).array if x is not None else x
        v = self._data.get(id(x))
        if v is None:
            v = self._new(False)
            self.consts[v] = x
            self._see(x, v)
        return (v, mode)

    def record_apply(self, node, inputs):
        from cpuframe.function import FunctionAdapter
        try:
            pre = dict(node.__dict__)
        except AttributeError:
            pre = None
            self.why = '{} keeps no __dict__'.format(type(node).__name__)
        if isinstance(node, FunctionAdapter):
            self.why = 'old-style Function {}'.format(node.label)
        if pre is not None:
            # (what apply sets: left from an earlier apply of this node)
            for name in _APPLY_STATE:
                pre.pop(name, None)
            pre = self._bind(pre)
        sources = tuple([self._source(x) for x in inputs])
        # A replay runs each op under the call's configuration: an op run
        # under another one (using_config inside the method) is not
        # replayed; enable_backprop alone is kept per op (no_backprop_mode
        # around part of the method: those ops' outputs get no creator).
        if not _same_config(_op_config(), self.config):
            self.why = '{} ran under another configuration than the call ' \
                '(using_config inside the method)'.format(type(node).__name__)
        backprop = bool(config.enable_backprop)
        self.busy = True
        try:
            outputs = node.apply(inputs)
        finally:
            self.busy = False
        first = len(self.requires_grad)
        for y in outputs:
            self._link(y, self._new(y.requires_grad))
        declared = type(node).retained_for_backward
        self.steps.append((
            'op', type(node), pre, sources, first, len(outputs),
            node._output_meta if backprop else None, declared, backprop))
        return outputs

    def _bind(self, pre):
        """``pre`` with each array that is a value of this call (an
        argument, an op's output, a parameter) among the node's settings,
        directly or in a tuple or list (a getitem's index array), replaced
        by ``(_BOUND, value)``: a replay gives the node that call's array."""
        out = None
        for name, x in pre.items():
            if _is_array(x):
                v = self._data.get(id(x))
                if v is not None:
                    out = dict(pre) if out is None else out
                    out[name] = (_BOUND, v)
            elif type(x) is tuple or type(x) is list:
                items = [(_BOUND, self._data[id(a)]) if _is_array(a) and
                         id(a) in self._data else a for a in x]
                if any(a is not b for a, b in zip(items, x)):
                    out = dict(pre) if out is None else out
                    out[name] = (type(x), tuple(items), _BOUND)
        return pre if out is None else out

    def record_code(self, func, args, kwargs):
        template = self._template((args, kwargs))
        self.busy = True
        try:
            result = func(*args, **kwargs)
        finally:
            self.busy = False
        leaves = []
        try:
            _structure(result, leaves)
        except TypeError:
            leaves = []
        outs = []
        for x in leaves:
            if isinstance(x, Variable) and x.creator_node is not None and \
                    x.requires_grad:
                self.why = ('@static_code function {} returns a Variable made '
                            'by ops'.format(getattr(func, '__name__', func)))
            v = self._new(False)
            self._see(x.array if isinstance(x, Variable) else x, v)
            outs.append((v, isinstance(x, Variable)))
        self.steps.append(('code', func, template, tuple(outs)))
        return result

    def _template(self, obj):
        if isinstance(obj, Variable):
            v = self._linked.get(id(obj))
            if v is not None:
                return ('var', v)
            v = self._data.get(id(obj.array))
            if v is not None:       # a new Variable around a value (detached)
                return ('vdata', v, obj.requires_grad)
            return ('v', obj)
        if _is_array(obj):
            v = self._data.get(id(obj))
            return ('=', obj) if v is None else ('array', v)
        if type(obj) is tuple or type(obj) is list:
            return ('seq', type(obj), tuple(self._template(x) for x in obj))
        if type(obj) is dict:
            return ('dict', tuple((k, self._template(x)) for k, x in obj.items()))
        return ('=', obj)

    def finish(self, result):
        self.output = self._template(result)
        self._linked = self._data = self._keep = None

    def difference(self, other):
        """None if ``other`` recorded the same graph, else what differs."""
        if len(self.steps) != len(other.steps):
            return '{} steps, then {}'.format(len(self.steps), len(other.steps))
        for k, (a, b) in enumerate(zip(self.steps, other.steps)):
            if a[0] != b[0] or a[1] is not b[1]:
                return 'step {}: {} then {}'.format(k, _name(a), _name(b))
            if a[0] == 'op':
                if a[3] != b[3] or a[4:6] != b[4:6] or a[8] != b[8] or \
                        not _same(a[2], b[2]):
                    return 'step {} ({}) with other inputs or settings'.format(
                        k, _name(a))
            elif not _same(a[2], b[2]) or a[3] != b[3]:
                return 'step {} ({}) with other arguments'.format(k, _name(a))
        if self.requires_grad != other.requires_grad:
            return 'other values require gradients'
        if [(v, id(p)) for v, p in self.params] != \
                [(v, id(p)) for v, p in other.params]:
            return 'other parameters'
        if self.consts.keys() != other.consts.keys() or not all(
                _same(self.consts[v], other.consts[v]) for v in self.consts):
            return 'an array computed outside the ops changed'
        if not _same(self.output, other.output):
            return 'other outputs'
        return None


def _op_config():
    """What an op's forward reads of the configuration besides
    ``enable_backprop``."""
    return (config.train, config.dtype, config.use_ideep)


def _same_config(a, b):
    for x, y in zip(a, b):
        if x is y:
            continue
        try:
            if x != y:
                return False
        except TypeError:
            return False
    return True


def _name(step):
    return step[1].__name__ if isinstance(step[1], type) else \
        getattr(step[1], '__name__', repr(step[1]))


def _same(a, b):
    """Whether two recorded settings are equal (arrays by value)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if _is_array(a):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        xp = backend.get_array_module(a)
        if xp is numpy:
            a, b = numpy.asarray(a), numpy.asarray(b)
        return bool(xp.array_equal(a, b, equal_nan=a.dtype.kind in 'fc'))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, Variable):
        return _same(a.array, b.array) and a.requires_grad == b.requires_grad
    if isinstance(a, (int, float, complex, str, bytes, bool, type(None),
                      numpy.generic, numpy.dtype)):
        try:
            return bool(a == b) or (a != a and b != b)
        except (TypeError, ValueError):
            return False
    return True   # objects of the same type (devices, links, configs)


# -- replay -------------------------------------------------------------------------
_STALE = object()


_BOUND = object()   # (marks a node setting bound to a value: Recorder._bind)


def _bound(pre, names, values):
    """A step's ``pre`` with the settings ``names`` given this replay's
    values."""
    pre = dict(pre)
    for name in names:
        x = pre[name]
        if x[0] is _BOUND:
            pre[name] = values[x[1]]
        else:
            kind, items, _ = x
            pre[name] = kind(values[a[1]] if type(a) is tuple and a and
                             a[0] is _BOUND else a for a in items)
    return pre


def _leaf(array, requires_grad, creator=None, rank=0):
    """A VariableNode with no Variable (``Variable._of_output``'s node)."""
    return _leaf_of(array.shape, array.dtype, requires_grad, creator, rank)


def _leaf_of(shape, dtype, requires_grad, creator=None, rank=0):
    """``_leaf`` of an array of ``shape`` and ``dtype``."""
    # (attributes set one by one: faster than assigning a dict, which
    # gives up the instance's shared-key storage)
    node = object.__new__(VariableNode)
    node._variable = _released
    node.name = None
    node.creator_node = creator
    node.rank = rank
    node.data = None
    node.requires_grad = requires_grad
    node.shape = shape if type(shape) is tuple else tuple(shape)
    node.dtype = dtype
    return node


class _Schedule:
    """A recorded call, replayed (see the module docstring)."""

    def __init__(self, recorder):
        self.recorder = recorder
        self.size = len(recorder.requires_grad)
        template = [None] * self.size
        for v, array in recorder.consts.items():
            template[v] = array
        self.template = template
        self.requires_grad = recorder.requires_grad
        self.args = recorder.args
        self.params = []
        for v, p in recorder.params:
            a = p.array
            self.params.append((v, p, type(a), tuple(a.shape), a.dtype,
                                p.requires_grad))
        self.members = recorder.members
        self.links = recorder.links
        self.steps = [self._compile(step) for step in recorder.steps]
        # per step: whether the op's forward runs directly (see _direct;
        # None: not decided yet, at the first replay)
        self.direct = [None] * len(self.steps)
        # per step: the settings bound to this call's values (Recorder._bind),
        # filled in on each replay; such a step is routed, never direct
        self.binds = {}
        for i, step in enumerate(self.steps):
            if step[0] == 'op':
                bound = [name for name, x in step[2].items()
                         if type(x) is tuple and x and
                         (x[0] is _BOUND or x[-1] is _BOUND)]
                if bound:
                    self.binds[i] = tuple(bound)
                    self.direct[i] = False
        # (side-effect code may hand the ops arrays of other types)
        self.has_code = any(step[0] != 'op' for step in self.steps)
        self.output = recorder.output
        self.build = config.enable_backprop
        # One StaticScheduleFunction stands for the replayed ops in the graph
        # when every output Variable is an op's output: its inputs are the
        # arguments and parameters the ops link to, its outputs the chain's.
        made = {}
        for step in self.steps:
            if step[0] == 'op':
                for k in range(step[6]):
                    made[step[5] + k] = step[7][k] if step[7] else None
        outs = []
        _template_vars(self.output, outs)
        self.boxed = bool(outs) and all(
            v in made and made[v] is not None for v in outs)
        self.box_outputs = tuple(dict.fromkeys(outs))
        self.box_meta = tuple(made[v] for v in self.box_outputs) \
            if self.boxed else ()
        external = {}
        for step in self.steps:
            if step[0] == 'op':
                for v, mode in (step[4] or [(v, _LINK) for v in step[3]]):
                    if mode == _LINK and v not in made:
                        external[v] = None
        self.box_inputs = tuple(external)
        # The array backward of the replayed ops as a program (see
        # _BackwardTracer): per (targets, which output gradients are None,
        # configuration) a _Program, or False where it cannot be one.
        # Traced at the first array backwards of replays; until _TRACES
        # have been decided a box keeps all of its replay's values for it.
        self.programs = {}
        self.program_reads = frozenset()
        # Whether replays link the graph only when a backward needs it: once
        # a program that needs no node runs the array backward (add_program)
        self.lazy = False
        self.forward_code = None    # (a lazy replay's forward: _compile_forward)
        self.linked_inputs = self.box_inputs
        self.leaf_inputs = tuple(dict.fromkeys(
            v for step in self.steps if step[0] == 'op' and step[4]
            for v, mode in step[4] if mode != _LINK))

    def add_program(self, key, program):
        """Keep the traced program (or False) for ``key``."""
        programs = self.programs
        if key not in programs:
            if program:
                # The arguments and parameters it reads (arrays the nodes
                # retain anyway): define-by-run's backward reads the array
                # a Variable has then, so it runs only while that is still
                # the forward's.
                program.arg_checks = tuple(
                    (k, v) for k, v in enumerate(self.args)
                    if v in program.reads)
                program.param_checks = tuple(
                    (p, v) for v, p, *_ in self.params if v in program.reads)
                self.program_reads = self.program_reads | program.reads
                if not program.needs_links and self.boxed and \
                        not self.has_code and all(
                            step[8] for step in self.steps) and \
                        self.recorder.config[1] is not mixed_bf16 and \
                        None not in self.direct and not self.binds:
                    self.forward_code = _compile_forward(self.steps,
                                                         self.direct)
                    self.lazy = True
            programs[key] = program

    @staticmethod
    def _compile(step):
        if step[0] != 'op':
            return step
        _, cls, pre, sources, first, n, meta, declared, backprop = step
        pre = dict(pre)
        if declared is None:
            pre['_input_indexes_to_retain'] = None
            pre['_output_indexes_to_retain'] = None
        else:
            pre['_input_indexes_to_retain'] = tuple(declared[0]) or None
            pre['_output_indexes_to_retain'] = tuple(declared[1]) or None
        vids = tuple(v for v, _ in sources)
        linked = all(mode == _LINK for _, mode in sources)
        return ('op', cls, pre, vids, None if linked else sources, first, n,
                meta, backprop)

    @staticmethod
    def _direct(node, in_data, pre):
        """The ``pre`` to run ``node.forward`` with directly on later
        replays (``_forward_routed`` without its route question), or False.

        Where the route choice depends only on what the schedule's
        signature fixes: NumPy inputs, outside ``mixed_bf16``, an op with
        no oneDNN route, or one whose route 'never' declines or 'auto''s
        size rule (``intel64_profitable``, a rule of shapes) declines, on
        the class's own device rule and no composite choice pending. The
        op then runs the NumPy path on every replay, as ``apply`` would
        choose."""
        if config.dtype is mixed_bf16 or pre.get('_route_choice') is not None:
            return False
        for x in in_data:
            if type(x) is not numpy.ndarray:
                return False
        cls = type(node)
        if cls.forward_intel64 is not _function_node._no_intel64_route:
            if cls.intel64_on_device is not \
                    _function_node._default_on_device:
                # (a gradient node's own rule, e.g. the device of the
                # forward output it keeps: the signature fixes its type)
                try:
                    if node.intel64_on_device(in_data):
                        return False
                except Exception:  # noqa: BLE001 - the route decides then
                    return False
            mode = _function_node._checked_mode()
            if mode == 'auto':
                try:
                    if node.intel64_profitable(in_data):
                        return False
                except Exception:  # noqa: BLE001 - the route decides then
                    return False
            elif mode != 'never':
                return False
        return dict(pre, _forward_dtype=config.dtype, _bf16_forward=False)

    def _stale(self):
        try:
            for owner, name, value in self.members:
                if owner[name] is not value:
                    return True
        except (KeyError, IndexError):
            return True       # a link, parameter or persistent was removed
        for link in self.links:
            if link._local_link_hooks:
                return True
        return False

    def replay(self, leaves):
        if self._stale():
            return _STALE
        values = self.template[:]
        build = self.build
        nodes = [None] * self.size if build else None
        for v, x in zip(self.args, leaves):
            if isinstance(x, Variable):
                values[v] = x.array
                if build:
                    nodes[v] = x._node
            else:
                values[v] = x
        for v, p, t, shape, dtype, requires_grad in self.params:
            a = p.array
            if type(a) is not t or a.shape != shape or a.dtype != dtype or \
                    p.requires_grad != requires_grad:
                return _STALE
            values[v] = a
            if build:
                nodes[v] = p._node
        requires_grad = self.requires_grad
        new = object.__new__
        leaf = _leaf
        direct = self.direct
        check_types = self.has_code
        watch = _function_node._route_watch
        ndarray = numpy.ndarray
        inner = [None] * len(self.steps) if build else None
        # (lazy: the graph linked only when a backward needs it, see
        # _lazy_link; what linking reads of this call is kept per op)
        lazy = build and self.lazy
        binds = self.binds
        held = [None] * len(self.steps) if lazy else None
        code = self.forward_code if lazy else None
        if code is not None:
            with _trace.suspended():
                code(values, inner, held)
        with _trace.suspended():
            for i, step in enumerate(self.steps if code is None else ()):
                if step[0] != 'op':
                    _, func, template, outs = step
                    args, kwargs = _fill(template, values, nodes)
                    result = func(*args, **kwargs)
                    found = []
                    try:
                        _structure(result, found)
                    except TypeError:
                        found = []
                    for (v, _), x in zip(outs, found):
                        values[v] = x.array if isinstance(x, Variable) else x
                    continue
                _, cls, pre, vids, sources, first, n, meta, backprop = step
                in_data = tuple([values[v] for v in vids])
                node = new(cls)
                if binds and i in binds:
                    pre = _bound(pre, binds[i], values)
                run = direct[i]
                if run is None:
                    # (asked of the node in its recorded state)
                    node.__dict__.update(pre)
                    run = direct[i] = self._direct(node, in_data, pre)
                if run and check_types:
                    for x in in_data:
                        if type(x) is not ndarray:
                            run = False
                            break
                if run:
                    # (the NumPy path apply would take: see _direct)
                    node.__dict__.update(run)
                    if watch[0] is not None and cls.forward_intel64 is not \
                            _function_node._no_intel64_route:
                        watch[0](node, False)
                    outputs = node.forward(in_data)
                else:
                    node.__dict__.update(pre)
                    outputs = node._forward_routed(in_data)
                values[first:first + n] = outputs
                if not build:
                    continue
                if not backprop:
                    # (run in no_backprop_mode inside the method: outputs
                    # without a creator, as apply leaves them)
                    for k in range(n):
                        nodes[first + k] = leaf(outputs[k], requires_grad[first + k])
                    continue
                inner[i] = node
                kept = node._output_indexes_to_retain
                if kept is not None:
                    node._retained_output_data = tuple([outputs[k] for k in kept])
                if lazy:
                    kept = node._input_indexes_to_retain
                    if kept:
                        held[i] = (kept, in_data)
                    continue
                self._link_op(i, node, in_data, nodes, outputs)
        if build and self.boxed:
            box = self._box(values, nodes, inner, leaves)
            if lazy:
                box._lazy = (held, [nodes[v] for v in self.linked_inputs],
                             [values[v] for v in self.leaf_inputs])
        memo = {v: x for v, x in zip(self.args, leaves)
                if isinstance(x, Variable)}
        return _fill(self.output, values, nodes, requires_grad, memo)

    def _link_op(self, i, node, in_data, nodes, outputs=None):
        """Link step ``i``'s ``node`` into the graph as apply links it
        (``in_data``: its inputs, those it retains at least; ``nodes``:
        the VariableNodes of the values so far; ``outputs``: its outputs,
        else their recorded shapes and dtypes)."""
        _, cls, pre, vids, sources, first, n, meta, backprop = self.steps[i]
        requires_grad = self.requires_grad
        leaf = _leaf_of
        if sources is None:
            in_nodes = [nodes[v] for v in vids]
        else:
            in_nodes = [nodes[v] if mode == _LINK else
                        _leaf(in_data[k], mode == _LEAF_GRAD)
                        for k, (v, mode) in enumerate(sources)]
        rank = 0
        for x in in_nodes:
            if x.rank > rank:
                rank = x.rank
        node.rank = rank
        node.inputs = tuple(in_nodes)
        rank += 1
        refs = []
        ref = weakref.ref
        for k in range(n):
            if outputs is None:
                shape, dtype, _ = meta[k]
            else:
                y = outputs[k]
                shape, dtype = y.shape, y.dtype
            out = leaf(shape, dtype, requires_grad[first + k], node, rank)
            nodes[first + k] = out
            refs.append(ref(out))
        node.outputs = tuple(refs)
        node._output_meta = meta
        kept = node._input_indexes_to_retain
        if kept is not None:
            for k in kept:
                in_nodes[k].data = in_data[k]

    def _lazy_link(self, box):
        """Link the graph of a lazy replay (see replay): the inner outputs
        of ``box``."""
        held, linked, leafs = box._lazy
        box._lazy = None
        nodes = [None] * self.size
        for v, x in zip(self.linked_inputs, linked):
            nodes[v] = x
        values = dict(zip(self.leaf_inputs, leafs))
        for i, node in enumerate(box._inner_nodes):
            if node is None:
                continue
            vids = self.steps[i][3]
            in_data = [values.get(v) for v in vids]
            if held[i] is not None:
                kept, given = held[i]
                for k in kept:
                    in_data[k] = given[k]
            self._link_op(i, node, in_data, nodes)
        return tuple([nodes[v] for v in self.box_outputs])

    def _box(self, values, nodes, inner, leaves):
        """Put one StaticScheduleFunction between the replayed ops and the
        rest of the graph (the chain's outputs become its outputs)."""
        box = StaticScheduleFunction()
        box._schedule = self
        box._inner_nodes = inner
        box._leaves = leaves      # (what a program checks: _Program.run)
        programs = self.programs
        if len(programs) < _TRACES:
            box._values = values      # (for a trace: every value)
        elif programs:
            box._values = {v: values[v] for v in self.program_reads}
        inputs = tuple([nodes[v] for v in self.box_inputs])
        rank = 0
        for x in inputs:
            if x.rank > rank:
                rank = x.rank
        box.rank = rank
        box.inputs = inputs
        inner = []
        refs = []
        requires_grad = self.requires_grad
        for v in self.box_outputs:
            inner.append(nodes[v])
            y = _leaf(values[v], requires_grad[v], box, rank + 1)
            nodes[v] = y
            refs.append(weakref.ref(y))
        box.outputs = tuple(refs)
        box._output_meta = self.box_meta
        box._linked_outputs = tuple(inner)
        return box


def _template_vars(template, found):
    kind = template[0]
    if kind == 'var':
        found.append(template[1])
    elif kind == 'seq':
        for x in template[2]:
            _template_vars(x, found)
    elif kind == 'dict':
        for _, x in template[1]:
            _template_vars(x, found)


class StaticScheduleFunction(FunctionNode):
    """The replayed ops of a static chain as one node of the graph.

    Its inputs are the arguments and parameters the ops read, its outputs
    the chain's; the ops themselves are linked behind ``_inner_outputs``
    as define-by-run links them. ``backward`` runs the backward engine on
    them (hooks, double backprop: as define-by-run); ``backward_arrays``
    (a backward nothing records) visits them in the engine's order (highest
    rank first, ties in the order they were reached) and sums each value's
    gradients as it does, calling each node's ``backward_arrays``, so the
    gradients are define-by-run's bit for bit, without the engine's work
    per node. A node the engine would run through ``backward`` or
    ``backward_accumulate`` runs through them here too.
    """

    @property
    def label(self):
        return 'StaticScheduleFunction'

    def backward(self, target_input_indexes, grad_outputs):
        targets = [self.inputs[i] for i in target_input_indexes]
        found = _variable._backprop(
            list(self._inner_outputs), list(grad_outputs), False,
            bool(config.enable_backprop), target_nodes=set(targets),
            stop_nodes=set(self.inputs))
        return tuple(found.get(node) for node in targets)

    _schedule = None
    _inner_nodes = None
    _values = None
    _leaves = ()
    _lazy = None            # (what a lazy replay keeps to link the graph)
    _linked_outputs = ()

    @property
    def _inner_outputs(self):
        if self._lazy is not None:
            self._link()
        return self._linked_outputs

    def _link(self):
        """Link the replayed ops of a lazy replay (see _Schedule.replay)."""
        self._linked_outputs = self._schedule._lazy_link(self)

    def backward_arrays(self, target_input_indexes, grad_outputs):
        if getattr(config, 'lazy_grad_sum', False):
            return NotImplemented
        schedule = self._schedule
        tracer = None
        if schedule is not None and self._inner_nodes is not None and \
                not config.debug:
            key = (target_input_indexes,
                   tuple([g is None for g in grad_outputs]), _op_config())
            programs = schedule.programs
            program = programs.get(key)
            if program:
                gxs = program.run(self, grad_outputs)
                if gxs is not None:
                    return gxs
            elif program is None and len(programs) < _TRACES and \
                    type(self._values) is list and not schedule.has_code:
                tracer = _BackwardTracer(self, grad_outputs)
        if tracer is None:
            return self._walk(target_input_indexes, grad_outputs, None)
        with _trace.recording(tracer):
            gxs = self._walk(target_input_indexes, grad_outputs, tracer)
        schedule.add_program(key, tracer.program())
        return gxs

    def _walk(self, target_input_indexes, grad_outputs, t):
        """The walk of ``backward_arrays`` (``t``: a _BackwardTracer, told
        where each gradient comes from and goes, or None)."""
        grads = {}
        heap = []
        queued = set()
        counter = itertools.count()
        for k, (node, g) in enumerate(zip(self._inner_outputs, grad_outputs)):
            if g is None:
                continue
            if node in grads:
                y = _sum(grads.pop(node), g, t)
                if t is not None:
                    t.hold(node, t.summed(t.take(node), t.given(k), y))
                grads[node] = y
                y = None
            else:
                grads[node] = g
                if t is not None:
                    t.hold(node, t.given(k))
            func = node.creator_node
            if func is not None and func not in queued:
                queued.add(func)
                heapq.heappush(heap, (-func.rank, next(counter), func))
        g = grad_outputs = None
        external = set(self.inputs)
        wrap = Variable._of_output
        dtype = config.dtype
        pop, push = heapq.heappop, heapq.heappush
        g_regs = x_regs = p_regs = None
        while heap:
            func = pop(heap)[2]
            refs = func.outputs
            if len(refs) == 1:
                node = refs[0]()
                g = None if node is None else grads.pop(node, None)
                if g is None:
                    continue
                gys = (g,)
                if t is not None:
                    g_regs = (t.take(node),)
                g = None
            else:
                gys = []
                g_regs = []
                for ref in refs:
                    node = ref()
                    gys.append(None if node is None else grads.pop(node, None))
                    if t is not None:
                        g_regs.append(-1 if node is None else t.take(node))
                if all(g is None for g in gys):
                    continue
                for i in range(len(gys)):
                    if gys[i] is None:
                        gys[i] = func._zero_output(i)
                        if t is not None:
                            g_regs[i] = t.zero(func, i, gys[i])
                gys = tuple(gys)
            ins = func.inputs
            targets = tuple([i for i, node in enumerate(ins) if node.requires_grad])
            if not targets:
                continue
            pending = None
            cls = type(func)
            if cls.backward_accumulate is not _base_accumulate:
                # The engine hands the gradients summed so far to
                # backward_accumulate and says which only it holds (the
                # node may then accumulate into them: another rounding).
                if t is not None:
                    p_regs = tuple([t.take(ins[i]) for i in targets])
                sums = [grads.pop(ins[i], None) for i in targets]
                if cls.backward_arrays is not None and \
                        not func._accumulates_into(sums):
                    # (as the engine: the node would only add to them, so
                    # they are summed with its gradients as any other's)
                    for k, i in enumerate(targets):
                        if sums[k] is not None:
                            grads[ins[i]] = sums[k]
                            if t is not None:
                                t.hold(ins[i], p_regs[k])
                else:
                    pending = tuple([None if g is None else wrap(g, False)
                                     for g in sums])
                sums = None
            if cls.backward_arrays is not None and (
                    pending is None or all(g is None for g in pending)):
                fdt = func._forward_dtype
                if t is not None:
                    t.enter(func, targets, gys, g_regs, False)
                if fdt is not None and fdt is not dtype and (
                        fdt is mixed_bf16 or dtype is mixed_bf16):
                    if t is not None:
                        t.fail('a backward in another dtype mode')
                    with using_config('dtype', fdt):
                        gxs = func.backward_arrays(targets, gys)
                else:
                    gxs = func.backward_arrays(targets, gys)
                if gxs is NotImplemented:
                    if t is not None:
                        t.fail('{}.backward_arrays declined'.format(
                            cls.__name__))
                    gxs = _variable_backward(func, targets, gys)
            else:
                if t is not None:
                    t.enter(func, targets, gys, g_regs,
                            None if pending is None else p_regs)
                gxs = _variable_backward(func, targets, gys, pending)
                pending = None
            if t is not None:
                x_regs = t.leave(gxs)
            gys = None
            for k, i in enumerate(targets):
                gx = gxs[k]
                if gx is None:
                    continue
                node = ins[i]
                if t is None:
                    if node in grads:
                        grads[node] = _sum(grads.pop(node), gx)
                    else:
                        grads[node] = gx
                elif node in grads:
                    y = _sum(grads.pop(node), gx, t)
                    t.hold(node, t.summed(t.take(node), x_regs[k], y))
                    grads[node] = y
                    y = None
                else:
                    grads[node] = gx
                    t.hold(node, x_regs[k])
                creator = node.creator_node
                if creator is not None and creator not in queued and \
                        node not in external:
                    queued.add(creator)
                    push(heap, (-creator.rank, next(counter), creator))
            # (only ``grads`` may hold a gradient now: a node reached later
            # may be told it alone holds it, as the engine tells it)
            gxs = gx = None
        if t is not None:
            t.outs = tuple([t.take(self.inputs[i]) if self.inputs[i] in grads
                            else -1 for i in target_input_indexes])
        return tuple(grads.get(self.inputs[i]) for i in target_input_indexes)


_base_accumulate = FunctionNode.backward_accumulate

# how many array backwards of a schedule's replays are traced into programs
_TRACES = 2


def _sum(a, b, tracer=None):
    """``a + b`` as the engine sums two gradients of one value."""
    wrap = Variable._of_output
    if tracer is None:
        return _variable._add_grads([wrap(a, False), wrap(b, False)],
                                    False).array
    tracer.busy = True   # (its computation is one instruction)
    try:
        return _variable._add_grads([wrap(a, False), wrap(b, False)],
                                    False).array
    finally:
        tracer.busy = False


# -- the array backward as a program --------------------------------------------------
_CONST_TYPES = (type(None), bool, int, float, complex, str, bytes, numpy.dtype,
                numpy.generic, type)


class _Untraceable(Exception):
    pass


class _BackwardTracer:
    """Records one array backward of a replayed schedule
    (``StaticScheduleFunction.backward_arrays``) as a ``_Program``.

    Registers: the replay's values (``0 .. size-1``), the output gradients
    given to the box, then what each instruction makes. Between nodes a
    gradient is followed by the node it belongs to, as the walk holds it
    (``hold``/``take``). A node's backward is one instruction,
    ``backward_arrays`` (or its Variable backward) on this replay's node;
    for classes whose ``backward_arrays`` only computes with gradient nodes
    (``FunctionNode._static_backward``) it is those nodes' computations
    instead (``FunctionNode._compute``: the class, its constructor's state
    with arrays and forward nodes as registers, its inputs), each array
    known by identity: a value, one of the node's output gradients, or
    what an earlier computation of the same backward made (all kept alive
    meanwhile, so no identity is reused). Anything else there (an array no
    computation made, state that is neither a constant nor a known array
    or node, an op applied on Variables) makes that node one instruction.
    A backward in another dtype mode or one declining ``backward_arrays``
    ends the trace: that backward then always walks, as before."""

    busy = False
    traces_compute = True

    def __init__(self, box, grad_outputs):
        self.box = box
        self.why = None
        base = {}             # id(value) -> register (-1: two values)
        values = box._values
        for v, a in enumerate(values):
            if _is_array(a):
                key = id(a)
                base[key] = v if key not in base else -1
        self.base = base
        self.n = len(values)
        self.grad_regs = []
        self.given_regs = {}
        for k, g in enumerate(grad_outputs):
            if g is not None:
                self.given_regs[k] = self.n
                self.grad_regs.append((self.n, k))
                self.n += 1
        self.at = {}          # VariableNode -> register of its gradient
        self.instrs = []
        self.nodes = {id(func): i for i, func in enumerate(box._inner_nodes)
                      if func is not None}
        self.func = None
        self.inside = False   # (None: tracing a node's computations)
        self.local = None     # id(array) -> register, inside a node
        self.alive = None     # (what self.local names, kept meanwhile)
        self.outs = ()

    def _new(self):
        self.n += 1
        return self.n - 1

    def _local(self, array):
        r = self._new()
        self.local[id(array)] = r
        self.alive.append(array)
        return r

    def _reg(self, array):
        key = id(array)
        r = self.local.get(key)
        if r is None:
            r = self.base.get(key, -1)
        if r < 0:
            raise _Untraceable('an array no recorded instruction made')
        return r

    def fail(self, why):
        if self.why is None:
            self.why = why

    def given(self, k):
        return self.given_regs[k]

    def hold(self, node, r):
        self.at[node] = r

    def take(self, node):
        return self.at.pop(node, -1)

    def summed(self, ra, rb, y):
        r = self._new()
        if ra < 0 or rb < 0:
            self.fail('a sum of unknown gradients')
        self.instrs.append(('sum', (ra, rb), (r,)))
        return r

    def zero(self, func, i, g):
        step = self.nodes.get(id(func))
        if step is None:
            self.fail('a node outside the schedule')
            return -1
        r = self._new()
        self.instrs.append(('zero', step, i, r))
        return r

    def enter(self, func, targets, gys, g_regs, p_regs):
        """``func``'s backward begins: ``backward_arrays(targets, gys)``
        (``p_regs`` False) or its Variable backward (``p_regs``: the
        registers of the gradients summed so far, or None)."""
        self.func = None
        if self.why is not None:
            return
        step = self.nodes.get(id(func))
        if step is None or any(r < 0 for r in g_regs) or (
                p_regs and any(r < -1 for r in p_regs)):
            self.fail('a node or gradient outside the schedule')
            return
        self.func = (step, targets, tuple(g_regs), len(self.instrs), p_regs)
        self.inside = None if type(func)._static_backward and \
            p_regs is False else False
        self.local = {}
        self.alive = []
        if self.inside is None:
            for g, r in zip(gys, g_regs):
                self.local[id(g)] = r
                self.alive.append(g)
        self.busy = self.inside is False  # (one instruction: unseen inside)

    def leave(self, gxs):
        """... and returned ``gxs``: their registers."""
        self.busy = False
        func, self.func = self.func, None
        local, self.local = self.local, None
        self.alive = None
        if func is None or self.why is not None:
            return (-1,) * len(gxs)
        step, targets, g_regs, start, p_regs = func
        if len(gxs) != len(targets):
            self.fail('a backward with another number of gradients')
            return (-1,) * len(gxs)
        if self.inside is None:
            outs = tuple([-1 if gx is None else local.get(id(gx), -2)
                          for gx in gxs])
            if -2 not in outs:
                return outs
        # the node's backward as one instruction
        del self.instrs[start:]
        outs = tuple([-1 if gx is None else self._new() for gx in gxs])
        if p_regs is False:
            self.instrs.append(('bwd', step, targets, g_regs, outs))
        else:
            self.instrs.append(('acc', step, targets, g_regs, outs, p_regs))
        return outs

    def record_apply(self, node, inputs):
        if self.func is None:
            self.fail('an op applied on Variables')
        else:
            self.inside = False
        self.busy = True
        try:
            return node.apply(inputs)
        finally:
            self.busy = False

    def record_compute(self, node, in_data):
        consts, refs = {}, []
        try:
            if self.why is not None or self.func is None or \
                    self.inside is not None:
                raise _Untraceable('a computation outside a node backward')
            for name, value in node.__dict__.items():
                if _is_array(value):
                    refs.append((name, self._reg(value)))
                elif isinstance(value, FunctionNode):
                    step = self.nodes.get(id(value))
                    if step is None:
                        raise _Untraceable('a node outside the schedule')
                    refs.append((name, -1 - step))
                elif _constant(value):
                    consts[name] = value
                else:
                    raise _Untraceable('{} keeps a {}'.format(
                        type(node).__name__, type(value).__name__))
            ins = tuple([self._reg(x) for x in in_data])
            # (whether later runs call its forward directly, asked of a
            # node in this state: _Schedule._direct)
            probe = object.__new__(type(node))
            probe.__dict__.update(node.__dict__)
            run = _Schedule._direct(probe, in_data, {})
        except _Untraceable:
            if self.func is None:
                self.fail('a computation outside a node backward')
            self.inside = False
            consts = None
        self.busy = True
        try:
            outputs = node._compute(in_data)
        finally:
            self.busy = False
        if consts is not None:
            outs = tuple([self._local(y) for y in outputs])
            self.instrs.append(('compute', type(node), consts, tuple(refs),
                                ins, outs, run))
        return outputs

    def program(self):
        """The program (False where the trace stopped)."""
        self.base = self.at = None
        if self.why is not None:
            return False
        return _Program(self.instrs, self.n, self.box._values, self.grad_regs,
                        self.outs)


def _constant(value):
    """Whether a gradient node's setting is a constant a program may keep
    (arrays are registers instead: an index array among a getitem's
    slices makes that node one instruction)."""
    if isinstance(value, _CONST_TYPES) or value is Ellipsis:
        return True
    if type(value) is tuple:
        return all(_constant(x) for x in value)
    if type(value) is slice:
        return _constant((value.start, value.stop, value.step))
    return False


class _Program:
    """The array backward of a schedule's replays, traced once
    (``_BackwardTracer``): instructions on registers, compiled into one
    Python function (``_compile``) that runs them without the engine's
    walk and, for the nodes that allow it, without their
    ``backward_arrays``: their gradient nodes computed directly, the route
    decided once where the schedule's signature decides it (as the
    forward's ``_Schedule._direct``). A register is dropped after its last
    use, as the walk drops a gradient it has passed on."""

    def __init__(self, instrs, n, values, grad_regs, outs):
        reads = [_reads(ins) for ins in instrs]
        used = set(r for rs in reads for r in rs)
        used.update(r for r in outs if r >= 0)
        size = len(values)
        self.reads = frozenset(r for r in used if r < size)
        # (whether it reads the replay's nodes: a lazy replay links them)
        # ('zero' reads a node's output metadata, which a lazy replay sets)
        self.needs_links = any(
            ins[0] in ('bwd', 'acc') or ins[0] == 'compute' and
            not ins[1]._static_reads_node_state and any(
                r < 0 for _, r in ins[3]) for ins in instrs)
        self.instrs = instrs
        self.n = n
        self.grad_regs = tuple(grad_regs)
        self.outs = outs
        self.code = _compile(instrs, reads, outs)

    def run(self, box, grad_outputs):
        """The input gradients, or None where a Variable's array was
        replaced since the forward (the walk then reads the new one)."""
        values = box._values
        for k, v in self.arg_checks:
            x = box._leaves[k]
            if isinstance(x, Variable) and x._array is not values[v]:
                return None
        for p, v in self.param_checks:
            if p._array is not values[v]:
                return None
        if self.needs_links and box._lazy is not None:
            box._link()
        regs = [None] * self.n
        for r in self.reads:
            regs[r] = values[r]
        for r, k in self.grad_regs:
            regs[r] = grad_outputs[k]
        grad_outputs = None
        self.code(regs, box._inner_nodes)
        return tuple([None if r < 0 else regs[r] for r in self.outs])


def _compile_forward(steps, direct):
    """The ops of a lazy replay (see _Schedule.replay) as one function
    ``code(values, inner, held)``: each op's forward, directly or routed
    as decided (``direct``), the outputs, the node, what linking reads."""
    names = {'new': object.__new__, 'watch': _function_node._route_watch}
    lines = ['def code(values, inner, held):']
    for i, step in enumerate(steps):
        _, cls, pre, vids, sources, first, n, meta, backprop = step
        run = direct[i]
        names['C%d' % i] = cls
        names['D%d' % i] = run if run else pre
        lines.append('    n = new(C%d)' % i)
        lines.append('    n.__dict__.update(D%d)' % i)
        if run and cls.forward_intel64 is not \
                _function_node._no_intel64_route:
            lines.append('    if watch[0] is not None:')
            lines.append('        watch[0](n, False)')
        lines.append('    a = (%s)' % ''.join('values[%d], ' % v for v in vids))
        lines.append('    o = n.%s(a)' % ('forward' if run else '_forward_routed'))
        if n == 1:
            lines.append('    values[%d] = o[0]' % first)
        else:
            lines.append('    values[%d:%d] = o' % (first, first + n))
        lines.append('    inner[%d] = n' % i)
        names['M%d' % i] = meta
        lines.append('    n._output_meta = M%d' % i)
        lines.append('    k = n._output_indexes_to_retain')
        lines.append('    if k is not None:')
        lines.append('        n._retained_output_data = tuple([o[j] for j in k])')
        lines.append('    k = n._input_indexes_to_retain')
        lines.append('    if k:')
        lines.append('        held[%d] = (k, a)' % i)
    lines.append('    n = a = o = None')
    exec('\n'.join(lines), names)   # noqa: S102 - our own generated code
    return names['code']


def _reads(ins):
    """The registers an instruction reads."""
    kind = ins[0]
    if kind == 'compute':
        return tuple(r for _, r in ins[3] if r >= 0) + ins[4]
    if kind == 'sum':
        return ins[1]
    if kind == 'bwd':
        return ins[3]
    if kind == 'acc':
        return ins[3] + tuple(r for r in ins[5] or () if r >= 0)
    return ()


def _backward_of(func, targets, gys):
    """``func``'s input gradients at ``targets`` as the walk computes them."""
    gxs = func.backward_arrays(targets, gys)
    if gxs is NotImplemented:
        # (as the walk: through Variables)
        return _variable_backward(func, targets, gys)
    return gxs


def _variable_backward(func, targets, gys, pending=None):
    """``func``'s input gradients at ``targets`` (arrays) through its
    Variable backward, as the engine runs it: ``pending``, the Variables of
    the gradients summed so far for ``backward_accumulate`` (or None), is
    donated where only it holds them."""
    wrap = Variable._of_output
    if pending is not None:
        func._donated_grad_inputs = _temporaries.donated(pending)
    try:
        gxs = func._call_backward(
            targets, tuple([wrap(g, False) for g in gys]), pending)
    finally:
        func._donated_grad_inputs = None
    return [None if g is None else g.array for g in gxs]


def _accumulate(func, targets, gys, pending):
    """``func``'s input gradients at ``targets`` through its Variable
    backward, as the walk computes them: ``pending`` (a list of arrays
    nobody else is given, emptied here, or None) the gradients summed so
    far for ``backward_accumulate``, donated where only it holds them."""
    wrap = Variable._of_output
    if pending is not None:
        wrapped = []
        for k in range(len(pending)):
            g = pending[k]
            pending[k] = None
            wrapped.append(None if g is None else wrap(g, False))
        g = None
        pending = tuple(wrapped)
        wrapped = None
    return _variable_backward(func, targets, gys, pending)


def _compile(instrs, reads, outs):
    """A program's instructions as one function ``code(regs, nodes)``."""
    last = {}
    for i, rs in enumerate(reads):
        for r in rs:
            last[r] = i
    keep = set(r for r in outs if r >= 0)
    names = {'new': object.__new__, '_sum': _sum, '_backward_of': _backward_of,
             '_accumulate': _accumulate,
             'watch': _function_node._route_watch}
    lines = ['def code(regs, nodes):']
    for i, ins in enumerate(instrs):
        kind = ins[0]
        if kind == 'compute':
            _, cls, consts, refs, in_regs, out_regs, run = ins
            names['C%d' % i] = cls
            names['K%d' % i] = dict(consts, **run) if run else consts
            lines.append('    n = new(C%d)' % i)
            lines.append('    d = n.__dict__')
            lines.append('    d.update(K%d)' % i)
            for name, r in refs:
                lines.append('    d[%r] = %s' % (
                    name, 'regs[%d]' % r if r >= 0 else 'nodes[%d]' % (-1 - r)))
            if run and cls.forward_intel64 is not \
                    _function_node._no_intel64_route:
                # (the route the NumPy path declines, told as apply tells it)
                lines.append('    if watch[0] is not None:')
                lines.append('        watch[0](n, False)')
            args = ''.join('regs[%d], ' % r for r in in_regs)
            lines.append('    o = n.%s((%s))' % (
                'forward' if run else '_forward_routed', args))
            outputs = out_regs
        elif kind == 'bwd':
            _, step, targets, g_regs, outputs = ins
            args = ''.join('regs[%d], ' % r for r in g_regs)
            lines.append('    o = _backward_of(nodes[%d], %r, (%s))' % (
                step, targets, args))
        elif kind == 'acc':
            _, step, targets, g_regs, outputs, pending = ins
            args = ''.join('regs[%d], ' % r for r in g_regs)
            if pending is None:
                lines.append('    p = None')
            else:
                # (handed over as the walk hands them: what only this
                # instruction still reads is dropped first, see _accumulate)
                lines.append('    p = [%s]' % ''.join(
                    'None, ' if r < 0 else 'regs[%d], ' % r for r in pending))
                for r in dict.fromkeys(pending):
                    if r >= 0 and last[r] == i and r not in keep:
                        lines.append('    regs[%d] = None' % r)
            lines.append('    o = _accumulate(nodes[%d], %r, (%s), p)' % (
                step, targets, args))
            lines.append('    p = None')
        elif kind == 'sum':
            lines.append('    o = (_sum(regs[%d], regs[%d]),)' % ins[1])
            outputs = ins[2]
        else:   # 'zero'
            lines.append('    o = (nodes[%d]._zero_output(%d),)' % ins[1:3])
            outputs = (ins[3],)
        for k, r in enumerate(outputs):
            if r >= 0 and (r in keep or last.get(r, -1) > i):
                lines.append('    regs[%d] = o[%d]' % (r, k))
        dead = [r for r in reads[i] if last[r] == i and r not in keep]
        for r in dict.fromkeys(dead):
            lines.append('    regs[%d] = None' % r)
        lines.append('    o = n = d = None')
    exec('\n'.join(lines), names)   # noqa: S102 - our own generated code
    return names['code']


def _fill(template, values, nodes, requires_grad=None, memo=None):
    """The object a recorded template describes, from this replay's values
    (``memo``: the Variables made so far, by value; one value, one
    Variable, as define-by-run returns)."""
    kind = template[0]
    if kind == 'var':
        v = template[1]
        if memo is not None and v in memo:
            return memo[v]
        node = None if nodes is None else nodes[v]
        if node is not None:
            var = node._variable()
            if var is None:
                var = object.__new__(Variable)
                var._array = values[v]
                var._requires_grad = node.requires_grad
                var._node = node
                var._grad_var = None
                var._loss_scale = None
                node._variable = weakref.ref(var)
        else:
            var = Variable._of_output(
                values[v], False if requires_grad is None else requires_grad[v])
        if memo is not None:
            memo[v] = var
        return var
    if kind == 'array':
        return values[template[1]]
    if kind == 'vdata':
        return Variable(values[template[1]], requires_grad=template[2])
    if kind == 'seq':
        return template[1](_fill(x, values, nodes, requires_grad, memo)
                           for x in template[2])
    if kind == 'dict':
        return {k: _fill(x, values, nodes, requires_grad, memo)
                for k, x in template[1]}
    if kind == 'v':
        return Variable(template[1].array, requires_grad=template[1].requires_grad)
    return template[1]


# -- the decorator ------------------------------------------------------------------
def static_graph(*args, **kwargs):
    """Mark a Chain's ``__call__`` (or ``forward``) as a static subgraph.

    Use as ``@static_graph`` or ``@static_graph(verbosity_level=1, ...)``
    with Chainer's keyword arguments (``force_test_define_by_run``,
    ``minimize_cache_size``, ``verbosity_level``,
    ``enable_double_backprop``, ``check_input_variables``). The first two
    calls with a given input signature run define-by-run and record the
    ops; later ones replay them (see the module docstring for what is
    replayed and when define-by-run runs instead).
    """
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise TypeError(
            'static_graph: unexpected keyword argument(s) {}; expected some of '
            '{}'.format(', '.join(unknown), ', '.join(sorted(_OPTIONS))))
    options = dict(_OPTIONS, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _decorate(args[0], options)
    if args:
        raise TypeError('static_graph: expected the method to decorate or keyword '
                        'arguments only, got {!r}'.format(args[0]))
    return lambda func: _decorate(func, options)


def _decorate(func, options):
    if not callable(func):
        raise TypeError('static_graph: expected a method, got {!r}'.format(func))
    force_dbr_in_test = bool(options['force_test_define_by_run'])

    @functools.wraps(func)
    def wrapped(chain, *args, **kwargs):
        manager = chain.__dict__.get('schedule_manager')
        if manager is None or not manager._serves(chain):
            manager = ScheduleManager(options['minimize_cache_size'],
                                      options['verbosity_level'], chain)
            object.__setattr__(chain, 'schedule_manager', manager)
        if not getattr(config, 'use_static_graph', True) or \
                (force_dbr_in_test and not config.train) or \
                _trace.state.recorder is not None:
            # (inside another static chain's recording, its ops are that
            # chain's)
            return func(chain, *args, **kwargs)
        return manager._call(func, chain, args, kwargs)
    wrapped.static_graph_options = options
    return wrapped
