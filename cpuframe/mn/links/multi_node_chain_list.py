"""``MultiNodeChainList``: model parallelism over the ranks."""
import collections

from cpuframe.link import ChainList
from cpuframe.mn.functions import point_to_point_communication as _p2p
from cpuframe.mn.functions.pseudo_connect import pseudo_connect
from cpuframe.mn.links._util import deepcopy_sharing


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _connect(delegate, x):
    """``x`` (a Variable or a tuple of them) made to depend on
    ``delegate``, in the same structure."""
    xs = pseudo_connect(delegate, *_as_tuple(x))
    return xs if isinstance(x, (list, tuple)) else xs[0]


def _first(x):
    return x[0] if isinstance(x, (list, tuple)) else x


class MultiNodeChainList(ChainList):
    """A model whose components run on different ranks (model parallelism).

    Each component (a Link) is added with the ranks it receives its inputs
    from and sends its outputs to.  A call runs the components in the order
    they were added: a component with ``rank_in`` receives its inputs from
    those ranks (or takes the call's inputs when ``rank_in`` is None), runs,
    and sends its outputs to ``rank_out`` (or makes them the model's output
    when ``rank_out`` is None).  Backward runs the components in reverse,
    sending and receiving the gradients; the components of one rank are
    tied together by delegate variables (see
    :func:`~cpuframe.mn.functions.pseudo_connect`), so one ``backward()``
    from the returned Variable reaches all of them.

    A component may return a tuple of Variables: it is sent as a tuple, and
    the receiving component gets it as one tuple argument.  A component
    with several ``rank_in`` gets one argument per rank.

    The call returns the model output or, on a rank whose model has none,
    a delegate variable: call ``backward()`` on it all the same (every rank
    must run its backward, or its peers wait for their gradients).

    Args:
        comm: a cpuframe.mn communicator.
    """

    def __init__(self, comm):
        super().__init__()
        self._comm = comm
        self._rank_inouts = []

    def __deepcopy__(self, memo):
        # The communicator is shared, never copied.
        return deepcopy_sharing(self, memo, '_comm')

    def add_link(self, link, rank_in=None, rank_out=None):
        """Add a component.

        Args:
            link (~cpuframe.Link): the component.
            rank_in (int, list of ints or None): the ranks it receives its
                inputs from (None: it takes the call's inputs).
            rank_out (int, list of ints or None): the ranks it sends its
                outputs to (None: they are the model output; one component
                at most).
        """
        if isinstance(rank_in, int):
            rank_in = [rank_in]
        if isinstance(rank_out, int):
            rank_out = [rank_out]
        if rank_out is None and any(out is None
                                    for _, out in self._rank_inouts):
            raise ValueError(
                'MultiNodeChainList cannot have more than one computational '
                'graph component whose rank_out is None')
        super().add_link(link)
        self._rank_inouts.append((rank_in, rank_out))

    def forward(self, *inputs):
        comm = self._comm
        local = collections.deque()   # outputs sent to this rank itself
        y = None
        delegate = None
        for i_comp, (f, (rank_in, rank_out)) in enumerate(
                zip(self._children, self._rank_inouts)):
            if rank_in is None:
                if i_comp == 0 or delegate is None:
                    x = f(*inputs)
                else:
                    # Backward must still reach the previous component.
                    x = f(*pseudo_connect(delegate, *inputs))
            else:
                xs = []
                for r in rank_in:
                    if r == comm.rank:
                        if not local:
                            raise ValueError(
                                'MultiNodeChainList: component {} receives '
                                'from this rank ({}), which sent nothing '
                                'before'.format(i_comp, r))
                        _x = local.popleft()
                        if delegate is not None:
                            _x = _connect(delegate, _x)
                    else:
                        _x = _p2p.recv(comm, r, delegate_variable=delegate)
                    xs.append(_x)
                    # Receives run backward in reverse order: the peers'
                    # sends receive their gradients in matching order.
                    delegate = _first(_x)
                # Each edge is backpropagated exactly once.
                delegate = None
                x = f(*xs)
            if rank_out is None:
                y = x
                delegate = _first(y)
            else:
                for j, r in enumerate(rank_out):
                    if delegate is not None and (j > 0 or r == comm.rank):
                        x = _connect(delegate, x)
                    if r == comm.rank:
                        local.append(x)
                        delegate = _first(x)
                    else:
                        delegate = _p2p.send(x, comm, rank=r)
        if local:
            raise ValueError(
                'MultiNodeChainList: outputs sent to this rank were never '
                'received; make every rank_in and rank_out correspond')
        if y is None:
            return delegate
        if delegate is _first(y):
            return y
        # An intermediate component made the output: backward from it must
        # first run the later components.
        return _connect(delegate, y)
