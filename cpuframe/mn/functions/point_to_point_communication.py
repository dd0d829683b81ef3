"""Differentiable point-to-point communication: ``send`` and ``recv``.

``send`` returns an empty *delegate variable*; backward through it receives
the gradient from the peer.  ``recv`` returns the received Variables;
backward through them sends their gradients to the peer.

Double backpropagation: each rank's own part of the graph is recorded as
usual (``enable_double_backprop=True``, ``cpuframe.grad``), so e.g. a rank
may penalize the gradient of its local loss and backpropagate the result
through ``recv`` to the peers.  What crosses ranks in a backward is a
constant, as in ChainerMN (whose send/recv are first-order Functions): a
gradient received from a peer is not differentiated again across ranks.
"""
import numpy

from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.mn.functions import _util
from cpuframe.variable import Variable


def _check_peer(caller, communicator, rank):
    if not isinstance(rank, int) or not 0 <= rank < communicator.size:
        raise ValueError('{}: expected rank in [0, {}), got {!r}'.format(
            caller, communicator.size, rank))
    if rank == communicator.rank:
        raise ValueError(
            '{}: rank must be different from communicator rank ({}), '
            'otherwise deadlock occurs'.format(caller, rank))


class Send(FunctionNode):
    """Send the inputs but the last (a dummy) to ``peer_rank``."""

    def __init__(self, comm, peer_rank, peer_tag, devices):
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag
        self._devices = devices

    @property
    def label(self):
        return 'Send (peer_rank: {})'.format(self.peer_rank)

    def forward(self, inputs):
        xs = inputs[:-1]
        self.comm.send(xs[0] if len(xs) == 1 else tuple(xs),
                       self.peer_rank, self.peer_tag)
        return _util.empty_like_dummy(),

    def backward(self, indexes, grad_outputs):
        grads = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(grads, tuple):
            grads = (grads,)
        n = len(self.inputs) - 1
        if len(grads) != n:
            raise ValueError(
                'Send.backward: received {} gradients from rank {} for {} '
                'sent arrays'.format(len(grads), self.peer_rank, n))
        ret = []
        for i in indexes:
            if i == n:
                ret.append(Variable(_util.empty_like_dummy(),
                                    requires_grad=False))
            else:
                ret.append(Variable(_util.to_device(self._devices[i],
                                                    grads[i]),
                                    requires_grad=False))
        return tuple(ret)


class Recv(FunctionNode):
    """Receive arrays from ``peer_rank`` (the input only keeps the graph)."""

    def __init__(self, comm, peer_rank, peer_tag, delegate_device=None):
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag
        self._delegate_device = delegate_device

    @property
    def label(self):
        return 'Recv (peer_rank: {})'.format(self.peer_rank)

    def forward(self, inputs):
        self._input_meta = [(x.shape, x.dtype) for x in inputs]
        data = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(data, tuple):
            data = (data,)
        return data

    def backward(self, indexes, grad_outputs):
        gys = tuple(intel64.to_numpy(g.array) for g in grad_outputs)
        self.comm.send(gys[0] if len(gys) == 1 else gys, self.peer_rank,
                       self.peer_tag)
        # The delegate input gets zeros (on its device).
        return tuple(Variable(_util.to_device(
            self._delegate_device, numpy.zeros(*self._input_meta[i])),
            requires_grad=False) for i in indexes)


def send(x, communicator, rank, tag=0):
    """Send ``x`` to process ``rank``, differentiably.

    Returns an empty *delegate variable*, which holds no data, only the
    graph: ``backward()`` from it (or from a Variable it was connected to
    by :func:`recv`'s ``delegate_variable`` or :func:`pseudo_connect`)
    receives ``x``'s gradient from ``rank`` and continues backward from
    ``x``.

    Args:
        x (Variable, array, or a tuple/list of them): what to send.
        communicator: a cpuframe.mn communicator.
        rank (int): the destination (not this process's rank).
        tag (int): an MPI message tag.

    Returns:
        ~cpuframe.Variable: the delegate variable (shape ``(0,)``).
    """
    _check_peer('send', communicator, rank)
    xs = tuple(x) if isinstance(x, (list, tuple)) else (x,)
    if not xs:
        raise ValueError('send: nothing to send (an empty tuple)')
    devices = [_util.device_of(v) for v in xs]
    # The dummy input requires a gradient, so the backward (and the peer's
    # wait for it) runs even when no sent variable requires one.
    delegate, = Send(communicator, rank, tag, devices).apply(
        xs + (_util.dummy_variable(),))
    return _util.as_delegate(delegate)


def recv(communicator, rank, delegate_variable=None, tag=0,
         force_tuple=False):
    """Receive what process ``rank`` sent with :func:`send`, differentiably.

    Backward through the result sends its gradient back to ``rank``.

    Args:
        communicator: a cpuframe.mn communicator.
        rank (int): the source (not this process's rank).
        delegate_variable (Variable): the delegate variable of an earlier
            component of this process's graph (e.g. what :func:`send`
            returned): the result then depends on it, so backward runs that
            component after this one.  Without it the received Variables
            start a new graph component.
        tag (int): an MPI message tag.
        force_tuple (bool): return a tuple even for one received array.

    Returns:
        ~cpuframe.Variable, or a tuple of them when a tuple was sent (or
        ``force_tuple``).
    """
    _check_peer('recv', communicator, rank)
    if delegate_variable is None:
        delegate_variable = _util.dummy_variable()
    ys = Recv(communicator, rank, tag,
              _util.device_of(delegate_variable)).apply((delegate_variable,))
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys
