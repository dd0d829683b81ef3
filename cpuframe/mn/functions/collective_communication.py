"""Differentiable collective communication: bcast, gather, scatter,
allgather and alltoall.

Every rank must call the same function in the same order (they are MPI
collectives), forward and backward: each backward is a collective too, and
runs on a rank when the outputs there get a gradient (a dummy input keeps
it in the graph where no real input requires a gradient, as ChainerMN's
dummy variables do).  Gradients cross ranks as constants (first order).
"""
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.mn.functions import _util
from cpuframe.variable import Variable


def _const(array, device=None):
    return Variable(_util.to_device(device, array), requires_grad=False)


def _sum(arrays):
    total = arrays[0].copy()
    for a in arrays[1:]:
        total += a
    return total


class _Collective(FunctionNode):
    """A collective whose last input is a dummy that requires a gradient:
    its backward (a collective too) then runs on every rank whose outputs
    get a gradient, even where no real input needs one."""

    def __init__(self, comm, devices):
        self.comm = comm
        self._devices = devices

    def forward(self, inputs):
        return self._forward(inputs[:-1])

    def backward(self, indexes, grad_outputs):
        gxs = self._backward(tuple(intel64.to_numpy(g.array) for g in grad_outputs))
        return tuple(None if i == len(self._devices) or gxs[i] is None else
                     _const(gxs[i], self._devices[i]) for i in indexes)


class AllGather(_Collective):
    """Every rank gets every rank's ``x``; backward sums the gradients each
    rank holds for this rank's ``x`` (an all-to-all, then a sum)."""

    def _forward(self, inputs):
        x, = inputs
        return tuple(self.comm.allgather(x))

    def _backward(self, gys):
        return _sum(self.comm.alltoall(gys)),


class AllToAll(_Collective):
    """Input ``i`` goes to rank ``i``; output ``j`` came from rank ``j``.
    Backward sends each output's gradient back where it came from."""

    def _forward(self, inputs):
        return tuple(self.comm.alltoall(tuple(inputs)))

    def _backward(self, gys):
        return self.comm.alltoall(gys)


class Bcast(_Collective):
    """The root's ``x`` on every rank (other ranks have no real input).
    Backward gathers the gradients to the root and sums them."""

    def __init__(self, comm, root, devices):
        super().__init__(comm, devices)
        self.root = root

    def _forward(self, inputs):
        x = inputs[0] if self.comm.rank == self.root else None
        return self.comm.bcast(x, root=self.root),

    def _backward(self, gys):
        gy, = gys
        gathered = self.comm.gather(gy, root=self.root)
        if self.comm.rank == self.root:
            return _sum(gathered),
        return ()


class Gather(_Collective):
    """Every rank's ``x`` on the root (a tuple of ``size`` outputs); other
    ranks get an empty delegate variable.  Backward scatters the root's
    gradients back."""

    def __init__(self, comm, root, devices):
        super().__init__(comm, devices)
        self.root = root

    def _forward(self, inputs):
        x, = inputs
        ys = self.comm.gather(x, root=self.root)
        if self.comm.rank == self.root:
            return tuple(ys)
        return _util.empty_like_dummy(),

    def _backward(self, gys):
        if self.comm.rank == self.root:
            return self.comm.scatter(gys, root=self.root),
        return self.comm.scatter(None, root=self.root),


class Scatter(_Collective):
    """The root's input ``i`` to rank ``i`` (other ranks have no real
    input).  Backward gathers the gradients back to the root."""

    def __init__(self, comm, root, devices):
        super().__init__(comm, devices)
        self.root = root

    def _forward(self, inputs):
        if self.comm.rank == self.root:
            return self.comm.scatter(tuple(inputs), root=self.root),
        return self.comm.scatter(None, root=self.root),

    def _backward(self, gys):
        gy, = gys
        gathered = self.comm.gather(gy, root=self.root)
        if self.comm.rank == self.root:
            return tuple(gathered)
        return ()


def _apply(node, xs):
    return node.apply(tuple(xs) + (_util.dummy_variable(),))


def _devices(xs):
    return [_util.device_of(x) for x in xs]


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
    return _apply(AllGather(comm, _devices([x])), [x])


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
    return _apply(AllToAll(comm, _devices(xs)), xs)


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
        return _apply(Bcast(comm, root, _devices([x])), [x])[0]
    return _apply(Bcast(comm, root, []), [])[0]


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
    ys = _apply(Gather(comm, root, _devices([x])), [x])
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
        return _apply(Scatter(comm, root, _devices(xs)), xs)[0]
    return _apply(Scatter(comm, root, []), [])[0]
