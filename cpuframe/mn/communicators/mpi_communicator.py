"""``MpiCommunicator``: cpuframe.mn's communicator for CPUs, on MPI.

Arrays travel as MPI buffers (no pickling); objects through mpi4py's
pickle-based calls.  Model gradients are packed into a few large buckets
that are reduced with non-blocking ``Iallreduce`` calls, so packing the
next bucket overlaps the reduction of the previous one, and one collective
moves many parameters (ChainerMN's 'naive' communicator issues one
``Allreduce`` per parameter).
"""
import hashlib

import numpy

from cpuframe.mn import _mpi
from cpuframe.mn.communicators import _reduce_dtype
from cpuframe.mn.communicators.communicator_base import CommunicatorBase

# Gradients are packed into buckets of about this many bytes.
DEFAULT_BUCKET_BYTES = 16 * 1024 * 1024
# A parameter this large is reduced in its own array (no packing copy).
DIRECT_BYTES = 1024 * 1024


# The dtypes every MPI has a datatype for; others (float16: Open MPI has
# none, MPI_ERR_TYPE) travel as unsigned integers of their size, which moves
# the same bytes.
_MPI_TYPED = frozenset('?bBhHiIlLqQfdFD')


def _wire(array):
    """``array`` as a buffer MPI can type (a same-memory view)."""
    if array.dtype.char in _MPI_TYPED or \
            array.dtype.itemsize not in (1, 2, 4, 8):
        return array
    return array.view('u{}'.format(array.dtype.itemsize))


def _host_array(x, caller):
    """``x`` as a C-contiguous NumPy array (copying only when it must)."""
    if isinstance(x, numpy.ndarray):
        return numpy.ascontiguousarray(x)
    from cpuframe.backends import cuda, intel64
    if intel64.is_native_array(x):
        return numpy.ascontiguousarray(intel64.to_numpy(x))
    if cuda.is_cupy_array(x):
        return cuda.to_cpu(x)
    if numpy.isscalar(x):
        return numpy.asarray(x)
    raise TypeError('{}: expected a NumPy, intel64 or CuPy array, got {}'
                    .format(caller, type(x).__name__))


def _as_tuple_of_arrays(xs, caller):
    if isinstance(xs, (list, tuple)):
        return tuple(_host_array(x, caller) for x in xs)
    return None


def _header(arrays):
    # The dtype itself, not its string: an extension dtype (ml_dtypes'
    # bfloat16) has only '<V2' for one.
    return [(a.shape, a.dtype) for a in arrays]


def _empty(header):
    return [numpy.empty(shape, numpy.dtype(dtype)) for shape, dtype in header]


def _check_rank(caller, value, size, what='root'):
    if not isinstance(value, (int, numpy.integer)) or not 0 <= value < size:
        raise ValueError('{}: expected {} as a rank in [0, {}), got {!r}'
                         .format(caller, what, size, value))


class MpiCommunicator(CommunicatorBase):
    """A communicator over an ``mpi4py`` communicator, for CPU processes.

    Args:
        mpi_comm: the ``mpi4py.MPI.Comm`` (``COMM_WORLD`` by default).
        name: the name it was created under (``'naive'``, ``'flat'``, ...).
        allreduce_grad_dtype: the dtype gradients are reduced in
            (``None``: each gradient's own dtype; ``numpy.float16`` or
            ``'bfloat16'`` halve the bytes moved).
        bucket_bytes: the size of one gradient bucket.
    """

    def __init__(self, mpi_comm=None, name='naive', allreduce_grad_dtype=None,
                 bucket_bytes=DEFAULT_BUCKET_BYTES):
        super().__init__()
        MPI = _mpi.get()
        self._MPI = MPI
        self.mpi_comm = MPI.COMM_WORLD if mpi_comm is None else mpi_comm
        self.name = name
        self._reduce_dtype = _reduce_dtype.parse(
            'create_communicator', allreduce_grad_dtype)
        self._configs['allreduce_grad_dtype'] = allreduce_grad_dtype
        if not isinstance(bucket_bytes, int) or bucket_bytes < 1:
            raise ValueError('create_communicator: expected bucket_bytes as a '
                             'positive int, got {!r}'.format(bucket_bytes))
        self._bucket_bytes = bucket_bytes
        self._plans = {}
        self._grad_orders = {}
        self._init_ranks()

    # ---------------------------------------------------------------- ranks
    def _init_ranks(self):
        from cpuframe.mn.communicators._communication_utility import init_ranks
        (_, self._intra_rank, self._intra_size, self._inter_rank,
         self._inter_size) = init_ranks(self.mpi_comm)

    @property
    def batched_copy(self):
        """ChainerMN's option (gradients are always packed in batches
        here): True when made by ``create_communicator``, False when a
        communicator class is constructed directly, as in ChainerMN."""
        return self._configs.get('batched_copy', False)

    @batched_copy.setter
    def batched_copy(self, value):
        self._configs['batched_copy'] = bool(value)

    @property
    def rank(self):
        return self.mpi_comm.rank

    @property
    def size(self):
        return self.mpi_comm.size

    @property
    def intra_rank(self):
        return self._intra_rank

    @property
    def intra_size(self):
        return self._intra_size

    @property
    def inter_rank(self):
        return self._inter_rank

    @property
    def inter_size(self):
        return self._inter_size

    def set_config(self, name, value=True, **kwargs):
        if name == 'allreduce_grad_dtype':
            self._reduce_dtype = _reduce_dtype.parse('set_config', value)
            self._configs[name] = value
            self._plans.clear()
            return
        if name == 'batched_copy':
            self._configs[name] = bool(value)   # packing is always batched
            return
        super().set_config(name, **kwargs)

    def split(self, color, key):
        sub = object.__new__(type(self))
        MpiCommunicator.__init__(
            sub, self.mpi_comm.Split(color, key), name=self.name,
            allreduce_grad_dtype=self._configs.get('allreduce_grad_dtype'),
            bucket_bytes=self._bucket_bytes)
        sub._owns_mpi_comm = True
        return sub

    def finalize(self):
        """Drop the buffers; a communicator made by ``split`` also frees its
        MPI communicator (collective over its ranks)."""
        self._plans.clear()
        if getattr(self, '_owns_mpi_comm', False):
            self._owns_mpi_comm = False
            self.mpi_comm.Free()

    def __copy__(self):
        return self      # a communicator is a handle on the job, not data

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        return '<cpuframe.mn communicator {!r}: rank {} of {}>'.format(
            self.name, self.rank, self.size)

    # ------------------------------------------------------ point to point
    def send(self, data, dest, tag):
        _check_rank('send', dest, self.size, 'dest')
        arrays = _as_tuple_of_arrays(data, 'send')
        single = arrays is None
        if single:
            arrays = (_host_array(data, 'send'),)
        self.mpi_comm.send((single, _header(arrays)), dest=dest, tag=tag)
        for a in arrays:
            self.mpi_comm.Send(_wire(a), dest=dest, tag=tag)

    def recv(self, source, tag):
        _check_rank('recv', source, self.size, 'source')
        single, header = self.mpi_comm.recv(source=source, tag=tag)
        arrays = _empty(header)
        for a in arrays:
            self.mpi_comm.Recv(_wire(a), source=source, tag=tag)
        return arrays[0] if single else tuple(arrays)

    def send_obj(self, obj, dest, tag=0):
        _check_rank('send_obj', dest, self.size, 'dest')
        self.mpi_comm.send(obj, dest=dest, tag=tag)

    def recv_obj(self, source, status=None, tag=None):
        _check_rank('recv_obj', source, self.size, 'source')
        if tag is None:
            tag = self._MPI.ANY_TAG
        return self.mpi_comm.recv(source=source, status=status, tag=tag)

    # ----------------------------------------------------------- collectives
    def bcast(self, data, max_buf_len=None, root=0):
        _check_rank('bcast', root, self.size)
        array, payload = None, None
        if self.rank == root:
            try:
                array = _host_array(data, 'bcast')
                payload = (None, _header([array])[0])
            except TypeError as error:
                payload = (error, None)
        # The root's error (bad data) reaches every rank before data moves.
        error, header = self.mpi_comm.bcast(payload, root=root)
        if error is not None:
            if self.rank == root:
                raise error
            raise type(error)('{} (on root rank {})'.format(error, root))
        if array is None:
            array = _empty([header])[0]
        self.mpi_comm.Bcast(_wire(array), root=root)
        return array

    def gather(self, data, root=0):
        _check_rank('gather', root, self.size)
        array = _host_array(data, 'gather')
        # Every rank learns every header, so a dtype mismatch raises on all
        # of them before the data moves (no rank is left waiting).
        headers = self.mpi_comm.allgather(_header([array])[0])
        _check_one_dtype('gather', headers)
        counts = [int(numpy.prod(shape)) for shape, _ in headers]
        if self.rank != root:
            self.mpi_comm.Gatherv(_wire(array), None, root=root)
            return None
        flat = numpy.empty(sum(counts), array.dtype)
        self.mpi_comm.Gatherv(_wire(array), [_wire(flat), counts],
                             root=root)
        return _split(flat, headers, counts)

    def allgather(self, x):
        array = _host_array(x, 'allgather')
        headers = self.mpi_comm.allgather(_header([array])[0])
        _check_one_dtype('allgather', headers)
        counts = [int(numpy.prod(shape)) for shape, _ in headers]
        flat = numpy.empty(sum(counts), array.dtype)
        self.mpi_comm.Allgatherv(_wire(array), [_wire(flat), counts])
        return _split(flat, headers, counts)

    def allreduce(self, data):
        array = _host_array(data, 'allreduce')
        kind = _reduce_dtype.plain_mpi_dtype(array.dtype)
        if kind is None:
            # MPI has no float16 sum: reduce in float32, hand back float16.
            work = array.astype(numpy.float32)
            out = numpy.empty_like(work)
            self.mpi_comm.Allreduce(work, out, op=self._MPI.SUM)
            return out.astype(array.dtype)
        out = numpy.empty_like(array)
        self.mpi_comm.Allreduce(array, out, op=self._MPI.SUM)
        return out

    def scatter(self, xs, root=0):
        _check_rank('scatter', root, self.size)
        arrays, payload = None, None
        if self.rank == root:
            error = None
            try:
                arrays = _as_tuple_of_arrays(xs, 'scatter')
                if arrays is None:
                    whole = _host_array(xs, 'scatter')
                    arrays = tuple(whole[i] for i in range(len(whole)))
                if len(arrays) != self.size:
                    raise ValueError('scatter: expected {} arrays (one per '
                                     'rank), got {}'.format(self.size,
                                                            len(arrays)))
                _check_one_dtype('scatter', _header(arrays))
            except (TypeError, ValueError) as e:
                error = e
            payload = ([(error, None)] * self.size if error is not None else
                       [(None, h) for h in _header(arrays)])
        error, header = self.mpi_comm.scatter(payload, root=root)
        if error is not None:
            raise type(error)('{} (on root rank {})'.format(error, root))
        out = _empty([header])[0]
        if self.rank == root:
            flat = numpy.concatenate([a.reshape(-1) for a in arrays])
            counts = [a.size for a in arrays]
            self.mpi_comm.Scatterv([_wire(flat), counts], _wire(out),
                                  root=root)
        else:
            self.mpi_comm.Scatterv(None, _wire(out), root=root)
        return out

    def alltoall(self, xs):
        error = None
        try:
            arrays = _as_tuple_of_arrays(xs, 'alltoall')
            if arrays is None or len(arrays) != self.size:
                raise ValueError(
                    'alltoall: expected a tuple of {} arrays (one per rank), '
                    'got {}'.format(self.size, type(xs).__name__
                                    if arrays is None else
                                    '{} arrays'.format(len(arrays))))
            _check_one_dtype('alltoall', _header(arrays))
        except (TypeError, ValueError) as e:
            error = e
        # Headers go everywhere first; a rank with bad input sends its error
        # instead, and every rank raises before any data moves.
        out_headers = ([(error, None)] * self.size if error is not None else
                       [(None, h) for h in _header(arrays)])
        received = self.mpi_comm.alltoall(out_headers)
        errors = [(rank, e) for rank, (e, _) in enumerate(received)
                  if e is not None]
        if error is not None:
            raise error
        if errors:
            rank, e = errors[0]
            raise type(e)('{} (on rank {})'.format(e, rank))
        headers_in = [h for _, h in received]
        _check_one_dtype('alltoall', headers_in + _header(arrays))
        dtype = arrays[0].dtype
        send_counts = [a.size for a in arrays]
        recv_counts = [int(numpy.prod(shape)) for shape, _ in headers_in]
        send = (numpy.concatenate([a.reshape(-1) for a in arrays])
                if sum(send_counts) else numpy.empty(0, dtype))
        recv = numpy.empty(sum(recv_counts), dtype)
        self.mpi_comm.Alltoallv([_wire(send), send_counts],
                                [_wire(recv), recv_counts])
        return _split(recv, headers_in, recv_counts)

    def bcast_obj(self, obj, max_buf_len=None, root=0):
        _check_rank('bcast_obj', root, self.size)
        return self.mpi_comm.bcast(obj, root=root)

    def gather_obj(self, obj, root=0):
        _check_rank('gather_obj', root, self.size)
        return self.mpi_comm.gather(obj, root=root)

    def allreduce_obj(self, obj):
        return self.mpi_comm.allreduce(obj, op=self._MPI.SUM)

    # ------------------------------------------------------------- models
    def _params(self, model, caller, with_grad, zero_fill=False):
        """``(name, param)`` of ``model`` in name order, checked to be the
        same names, shapes and dtypes on every rank before any collective
        moves their values."""
        entries = []
        for name, param in sorted(model.namedparams(), key=lambda e: e[0]):
            if param.array is None:
                continue
            if with_grad and param.grad is None:
                if not zero_fill:
                    continue
                param.grad = _zeros_like(param.array)
            entries.append((name, param))
        attr = 'grad' if with_grad else 'array'
        logical = [(name, tuple(p.array.shape), numpy.dtype(p.dtype).str)
                   for name, p in entries]
        # Native (intel64) arrays travel in their own memory layout, so no
        # reorder is needed, when every rank has the same layouts; else
        # they travel in logical (NumPy) order.
        layouts = [_reduce_dtype.layout_key(getattr(p, attr))
                   for _, p in entries]
        raw = tuple(e + (k,) for e, k in zip(logical, layouts))
        if self._same_everywhere(raw):
            return entries, raw
        if self._same_everywhere(logical):
            return entries, tuple(e + (None,) for e in logical)
        signatures = self.mpi_comm.allgather(logical)
        hint = ''
        if caller == 'multi_node_mean_grad':
            hint = (' (a parameter whose grad is None takes part only with '
                    'zero_fill=True)')
        raise ValueError('{}: the models differ between ranks: {}{}'.format(
            caller, _describe_difference(signatures), hint))

    def _same_everywhere(self, signature):
        digest = hashlib.sha1(repr(signature).encode()).digest()
        mine = numpy.frombuffer(digest, numpy.uint8)
        every = numpy.empty((self.size, mine.size), numpy.uint8)
        self.mpi_comm.Allgather(mine, every)
        return bool((every == mine).all())

    def bcast_data(self, model):
        entries, signature = self._params(model, 'bcast_data', False)
        for plan in self._plan(('data',) + signature, entries, None):
            plan.pack(entries, 'array', copy=self.rank == 0)
            self.mpi_comm.Bcast(plan.buffer, root=0)
            if self.rank != 0:
                plan.unpack(entries, 'array', 1.0)

    def multi_node_mean_grad(self, model, zero_fill=False):
        self._multi_node_mean_grad_async(model, zero_fill).wait()

    def _multi_node_mean_grad_async(self, model, zero_fill=False,
                                    prescaled=False):
        """Start averaging ``model``'s gradients; ``.wait()`` on the result
        writes the means back into the gradients.

        ``prescaled``: the gradients are already divided by the number of
        ranks (the multi-node optimizer seeds backward with ``1/size``), so
        the sum is the mean.

        The gradients are packed into the buckets now, so they may be
        overwritten (e.g. by the next backward) before ``wait()``.
        """
        entries, signature = self._params(
            model, 'multi_node_mean_grad', True, zero_fill)
        if not entries or self.size == 1:
            return _Done()      # the mean over one rank is the gradient
        MPI = self._MPI
        plans = self._plan(('grad',) + signature, entries, self._reduce_dtype)
        requests = []
        for plan in plans:
            plan.pack(entries, 'grad')
            requests.append(self.mpi_comm.Iallreduce(
                MPI.IN_PLACE, plan.mpi_buffer(MPI), op=plan.mpi_op(MPI)))
        return _PendingMean(entries, plans, requests,
                            1.0 if prescaled else 1.0 / self.size)

    def _begin_overlapped_mean_grad(self, model, prescaled=False):
        """A session averaging ``model``'s gradients while its backward
        runs (``_OverlapSession``: ``ready(param)`` as each gradient is
        final, ``finish()`` after the backward), or None where there is
        nothing to overlap (one rank, a parameter not initialized yet).

        The buckets hold the parameters in the order their gradients
        became final in the first overlapped step (rank 0's, broadcast
        once: the same on every rank; before that, the reverse of name
        order), in logical element order; bucket ``k`` starts only after
        buckets ``0..k-1``, so every rank starts the same collectives in the
        same order whatever order its gradients come in.
        """
        if self.size == 1:
            return None
        params = sorted(model.namedparams(), key=lambda e: e[0])
        if not params or any(p.array is None for _, p in params):
            return None
        # (the parameters' layouts, the same on every rank, are the ones
        # the gradients travel in: a gradient in another is re-laid out
        # when it is final, see _OverlapSession.ready)
        entries, raw = self._params(model, 'multi_node_mean_grad', False)
        logical = tuple(e[:3] for e in raw)
        order = self._grad_orders.get(logical)
        if order is None:
            order = list(range(len(entries)))[::-1]
        ordered = [entries[i] for i in order]
        signature = tuple(raw[i] for i in order)
        plans = self._plan(('overlap',) + signature, ordered,
                           self._reduce_dtype)
        return _OverlapSession(self, logical, order, ordered, plans,
                               1.0 if prescaled else 1.0 / self.size,
                               [e[3] for e in signature])

    def _plan(self, key, entries, reduce_dtype):
        plans = self._plans.get(key)
        if plans is None:
            plans = _reduce_dtype.make_buckets(
                key[1:], reduce_dtype, self._bucket_bytes, DIRECT_BYTES)
            self._plans[key] = plans
        return plans


class _Done:
    def wait(self):
        pass


class _PendingMean:
    """Bucketed reductions in flight; ``wait()`` stores the means."""

    def __init__(self, entries, plans, requests, scale):
        self._entries = entries
        self._plans = plans
        self._requests = requests
        self._scale = scale

    def wait(self):
        requests, self._requests = self._requests, []
        for plan, request in zip(self._plans, requests):
            request.Wait()
            plan.unpack(self._entries, 'grad', self._scale)


class _OverlapSession:
    """Gradient buckets reduced while backward runs (see
    ``MpiCommunicator._begin_overlapped_mean_grad``)."""

    def __init__(self, comm, logical, order, ordered, plans, scale,
                 layouts):
        self._comm = comm
        self._layouts = layouts
        self._logical = logical
        self._order = order
        self._ordered = ordered
        self._plans = plans
        self._scale = scale
        self._position = {id(p): k for k, (_, p) in enumerate(ordered)}
        self._bucket_of = {}
        self._missing = []
        for b, plan in enumerate(plans):
            for slot in plan.slots:
                self._bucket_of[slot[0]] = b
            self._missing.append(len(plan.slots))
        self._final = []        # positions, in the order they became final
        self._is_final = set()
        self._requests = []
        self._started = 0

    def ready(self, param):
        """``param``'s gradient is final: its bucket starts when full (and
        every bucket before it started); the collectives in flight are
        driven on (MPICH progresses only inside MPI calls)."""
        k = self._position.get(id(param))
        if k is None or k in self._is_final:
            return
        self._in_planned_layout(k, param)
        self._is_final.add(k)
        self._final.append(k)
        self._missing[self._bucket_of[k]] -= 1
        self._start_full()
        if self._requests:
            self._comm._MPI.Request.Testall(self._requests)

    def _in_planned_layout(self, k, param):
        """A gradient of a native parameter travels in the parameter's
        layout (the plan's): one in another layout, or a NumPy one of a
        laid-out parameter, is re-laid out first."""
        planned = self._layouts[k]
        if not isinstance(planned, tuple):
            return
        from cpuframe.backends import intel64
        grad = param.grad
        if intel64.is_native_array(grad) and \
                _reduce_dtype.layout_key(grad) == planned:
            return
        array = param.array
        if _reduce_dtype.layout_key(array) != planned:
            raise RuntimeError(
                'multi_node_mean_grad: parameter {!r} changed its memory '
                'layout during the step; its gradient cannot travel in the '
                'planned one'.format(self._ordered[k][0]))
        if array.is_plain and not intel64.is_native_array(grad):
            return  # (a NumPy gradient of a plain parameter: the same order)
        laid_out = intel64.mdarray.empty_like(array)
        laid_out.copy_from(grad)
        param.grad = laid_out

    def _start_full(self):
        MPI = self._comm._MPI
        while self._started < len(self._plans) and \
                self._missing[self._started] == 0:
            plan = self._plans[self._started]
            plan.pack(self._ordered, 'grad')
            self._requests.append(self._comm.mpi_comm.Iallreduce(
                MPI.IN_PLACE, plan.mpi_buffer(MPI), op=plan.mpi_op(MPI)))
            self._started += 1

    def finish(self):
        """After the backward: the parameters no function reached (zero
        gradients), every bucket left, the means stored; on the first
        overlapped step, the order for the next ones agreed on."""
        for k, (_, param) in enumerate(self._ordered):
            if k in self._is_final:
                continue
            if param.grad is None:
                param.grad = _zeros_like(param.array)
            self._in_planned_layout(k, param)
            self._is_final.add(k)
            self._final.append(k)
            self._missing[self._bucket_of[k]] -= 1
        self._start_full()
        for plan, request in zip(self._plans, self._requests):
            request.Wait()
            plan.unpack(self._ordered, 'grad', self._scale)
        self._requests = []
        comm = self._comm
        if self._logical not in comm._grad_orders:
            mine = [self._order[k] for k in self._final]
            comm._grad_orders[self._logical] = comm.mpi_comm.bcast(mine,
                                                                   root=0)

    def abandon(self):
        """Complete what was started and store nothing (the step turned
        out not to update)."""
        for request in self._requests:
            request.Wait()
        self._requests = []


def _check_one_dtype(caller, headers):
    dtypes = sorted({str(numpy.dtype(dt)) for _, dt in headers})
    if len(dtypes) > 1:
        raise TypeError('{}: every array must have one dtype; got {}'.format(
            caller, ', '.join(dtypes)))


def _split(flat, headers, counts):
    outs, offset = [], 0
    for (shape, _), count in zip(headers, counts):
        outs.append(flat[offset:offset + count].reshape(shape).copy())
        offset += count
    return tuple(outs)


def _zeros_like(array):
    from cpuframe.backends import cuda
    if cuda.is_cupy_array(array):
        return cuda.cupy.zeros_like(array)
    return numpy.zeros(array.shape, array.dtype)


def _describe_difference(signatures):
    """Name the first parameter that differs from rank 0, on which rank."""
    reference = {name: (shape, dtype) for name, shape, dtype in signatures[0]}
    for rank, signature in enumerate(signatures[1:], 1):
        mine = {name: (shape, dtype) for name, shape, dtype in signature}
        for name in sorted(set(reference) | set(mine)):
            if name not in mine:
                return 'parameter {!r} is on rank 0 but not on rank {}'.format(
                    name, rank)
            if name not in reference:
                return 'parameter {!r} is on rank {} but not on rank 0'.format(
                    name, rank)
            if mine[name] != reference[name]:
                (s0, d0), (s1, d1) = reference[name], mine[name]
                return ('parameter {!r} has shape {} {} on rank 0 but {} {} on '
                        'rank {}'.format(name, s0, numpy.dtype(d0), s1,
                                         numpy.dtype(d1), rank))
    return 'the parameter lists differ'
