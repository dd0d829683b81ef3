"""Differentiable collective communication: bcast, gather, scatter,
allgather and alltoall.

Every rank must call the same function in the same order (they are MPI
collectives), forward and backward: each backward is a collective too.
"""
import numpy

from cpuframe.function_node import FunctionNode
from cpuframe.mn.functions import _util
from cpuframe.variable import Variable


def _const(array, device=None):
    return Variable(_util.to_device(device, array), requires_grad=False)


def _host(array):
    from cpuframe.backends import intel64
    if intel64.is_native_array(array):
        return intel64.to_numpy(array)
    return array


def _sum(arrays):
    total = arrays[0].copy()
    for a in arrays[1:]:
        total += a
    return total


class AllGather(FunctionNode):
    """Every rank gets every rank's ``x``; backward sums the gradients each
    rank holds for this rank's ``x`` (an all-to-all, then a sum)."""

    def __init__(self, comm, device):
        self.comm = comm
        self._device = device

    def forward(self, inputs):
        x, = inputs
        return tuple(self.comm.allgather(x))

    def backward(self, indexes, grad_outputs):
        gys = tuple(_host(g.array) for g in grad_outputs)
        gxs = self.comm.alltoall(gys)
        return _const(_sum(gxs), self._device),


class AllToAll(FunctionNode):
    """Input ``i`` goes to rank ``i``; output ``j`` came from rank ``j``.
    Backward sends each output's gradient back where it came from."""

    def __init__(self, comm, devices):
        self.comm = comm
        self._devices = devices

    def forward(self, inputs):
        return tuple(self.comm.alltoall(tuple(inputs)))

    def backward(self, indexes, grad_outputs):
        gys = tuple(_host(g.array) for g in grad_outputs)
        gxs = self.comm.alltoall(gys)
        return tuple(_const(gxs[i], self._devices[i]) for i in indexes)


class Bcast(FunctionNode):
    """The root's ``x`` on every rank (the input of other ranks is a dummy).
    Backward gathers the gradients to the root and sums them."""

    def __init__(self, comm, root, device):
        self.comm = comm
        self.root = root
        self._device = device

    def forward(self, inputs):
        self._input_meta = (inputs[0].shape, inputs[0].dtype)
        x = inputs[0] if self.comm.rank == self.root else None
        return self.comm.bcast(x, root=self.root),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        gys = self.comm.gather(_host(gy.array), root=self.root)
        if self.comm.rank == self.root:
            return _const(_sum(gys), self._device),
        return _const(numpy.zeros(*self._input_meta)),


class Gather(FunctionNode):
    """Every rank's ``x`` on the root (a tuple of ``size`` outputs); other
    ranks get an empty delegate variable.  Backward scatters the root's
    gradients back."""

    def __init__(self, comm, root, device):
        self.comm = comm
        self.root = root
        self._device = device

    def forward(self, inputs):
        x, = inputs
        ys = self.comm.gather(x, root=self.root)
        if self.comm.rank == self.root:
            return tuple(ys)
        return _util.empty_like_dummy(),

    def backward(self, indexes, grad_outputs):
        if self.comm.rank == self.root:
            gx = self.comm.scatter(tuple(_host(g.array) for g in
                                         grad_outputs), root=self.root)
        else:
            gx = self.comm.scatter(None, root=self.root)
        return _const(gx, self._device),


class Scatter(FunctionNode):
    """The root's input ``i`` to rank ``i`` (other ranks' input is a dummy).
    Backward gathers the gradients back to the root."""

    def __init__(self, comm, root, devices):
        self.comm = comm
        self.root = root
        self._devices = devices

    def forward(self, inputs):
        self._input_meta = [(x.shape, x.dtype) for x in inputs]
        if self.comm.rank == self.root:
            return self.comm.scatter(tuple(inputs), root=self.root),
        return self.comm.scatter(None, root=self.root),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        gxs = self.comm.gather(_host(gy.array), root=self.root)
        if self.comm.rank == self.root:
            return tuple(_const(gxs[i], self._devices[i]) for i in indexes)
        return tuple(_const(numpy.zeros(*self._input_meta[i]))
                     for i in indexes)


def allgather(comm, x):
    """Differentiable all-gather: every rank gets every rank's ``x``.

    Backward sums, for each rank, the gradients that all ranks hold for its
    ``x``.  Arrays may differ in shape between ranks (one dtype).

    Args:
        comm: a cpuframe.mn communicator.
        x (Variable or array): this rank's contribution.

    Returns:
        tuple of ~cpuframe.Variable: ``comm.size`` Variables, rank ``i``'s
        ``x`` at index ``i``.
    """
    return AllGather(comm, _util.device_of(x)).apply((x,))


def alltoall(comm, xs):
    """Differentiable all-to-all: ``xs[i]`` goes to rank ``i``.

    Backward returns each output's gradient to the rank it came from; no
    delegate variables are needed (backward waits for every output's
    gradient).

    Args:
        comm: a cpuframe.mn communicator.
        xs (tuple/list of Variables): ``comm.size`` Variables, one dtype.

    Returns:
        tuple of ~cpuframe.Variable: element ``j`` came from rank ``j``.
    """
    # A wrong length raises on every rank in the collective (no rank waits).
    return AllToAll(comm, [_util.device_of(x) for x in xs]).apply(tuple(xs))


def bcast(comm, x, root=0):
    """Differentiable broadcast of the root's ``x`` to every rank.

    Backward gathers the gradients to the root and sums them there.

    Args:
        comm: a cpuframe.mn communicator.
        x (Variable or array): the value on the root; ignored (may be None)
            elsewhere.
        root (int): the rank that broadcasts.

    Returns:
        ~cpuframe.Variable: the broadcast value.
    """
    if comm.rank == root:
        return Bcast(comm, root, _util.device_of(x)).apply((x,))[0]
    return Bcast(comm, root, None).apply((_util.dummy_variable(),))[0]


def gather(comm, x, root=0):
    """Differentiable gather of every rank's ``x`` to the root.

    Backward scatters the root's gradients back to the ranks; every rank
    must run it, a non-root rank from the delegate variable it got.

    Args:
        comm: a cpuframe.mn communicator.
        x (Variable or array): this rank's contribution.
        root (int): the rank that gathers.

    Returns:
        On the root a tuple of ``comm.size`` Variables (rank ``i``'s ``x`` at
        index ``i``); elsewhere an empty delegate variable.
    """
    ys = Gather(comm, root, _util.device_of(x)).apply((x,))
    if comm.rank == root:
        return ys
    return _util.as_delegate(ys[0])


def scatter(comm, xs, root=0):
    """Differentiable scatter: the root's ``xs[i]`` goes to rank ``i``.

    Backward gathers the gradients to the root.

    Args:
        comm: a cpuframe.mn communicator.
        xs (tuple/list of Variables): ``comm.size`` Variables on the root;
            ignored (may be None) elsewhere.
        root (int): the rank that scatters.

    Returns:
        ~cpuframe.Variable: this rank's part.
    """
    if comm.rank == root:
        if not xs:
            comm.scatter(None, root=root)   # raises here and on every rank
        # A wrong length raises on every rank in the collective.
        return Scatter(comm, root, [_util.device_of(x) for x in xs]).apply(
            tuple(xs))[0]
    return Scatter(comm, root, None).apply((_util.dummy_variable(),))[0]
