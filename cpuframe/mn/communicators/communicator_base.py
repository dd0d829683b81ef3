"""``CommunicatorBase``: the interface of ChainerMN 7's communicators."""
import abc
import contextlib
import warnings


class CommunicatorBase(abc.ABC):
    """What every cpuframe.mn communicator offers (ChainerMN's interface).

    Ranks are numbered ``0 .. size-1`` in the whole job; ``intra_*`` number
    the processes on this host and ``inter_*`` the hosts.  Array methods take
    NumPy arrays (and cpuframe's native intel64 arrays or CuPy arrays where
    the concrete communicator says so); ``*_obj`` methods take any picklable
    object.
    """

    def __init__(self):
        self._configs = {}

    @property
    @abc.abstractmethod
    def rank(self):
        """This process's rank in the communicator."""

    @property
    @abc.abstractmethod
    def size(self):
        """The number of processes in the communicator."""

    @property
    @abc.abstractmethod
    def intra_rank(self):
        """This process's rank among the processes on its host."""

    @property
    @abc.abstractmethod
    def intra_size(self):
        """The number of processes on this host."""

    @property
    @abc.abstractmethod
    def inter_rank(self):
        """The rank of this host among the hosts."""

    @property
    @abc.abstractmethod
    def inter_size(self):
        """The number of hosts."""

    def set_config(self, name, **kwargs):
        """Set the communicator option ``name``; unknown names raise."""
        raise ValueError('Unknown config: {}'.format(name))

    def get_config(self, name=None):
        """The value of option ``name``, or a dict of all options."""
        if name is None:
            return self._configs
        return self._configs[name]

    @property
    def within_config_scope(self):
        return getattr(self, '_within_config_scope', False)

    @contextlib.contextmanager
    def config_scope(self):
        """Attributes set inside this scope become options."""
        old = self.within_config_scope
        object.__setattr__(self, '_within_config_scope', True)
        try:
            yield
        finally:
            object.__setattr__(self, '_within_config_scope', old)

    def __setattr__(self, name, value):
        if self.within_config_scope:
            self._configs[name] = value
        else:
            super().__setattr__(name, value)

    @abc.abstractmethod
    def split(self, color, key):
        """A new communicator of the processes that gave the same ``color``,
        ranked by ``key`` (MPI_Comm_split)."""

    @abc.abstractmethod
    def alltoall(self, xs):
        """Send ``xs[i]`` to rank ``i``; return what every rank sent here."""

    @abc.abstractmethod
    def send(self, data, dest, tag):
        """Send an array (or a tuple of arrays) to ``dest``."""

    @abc.abstractmethod
    def recv(self, source, tag):
        """Receive what ``send`` sent from ``source``."""

    @abc.abstractmethod
    def bcast(self, data, max_buf_len=None, root=0):
        """``root``'s array, on every rank."""

    @abc.abstractmethod
    def gather(self, data, root=0):
        """Every rank's array, as a tuple on ``root`` (None elsewhere)."""

    @abc.abstractmethod
    def allgather(self, x):
        """Every rank's array, as a tuple on every rank."""

    @abc.abstractmethod
    def allreduce(self, data):
        """The elementwise sum of every rank's array, on every rank."""

    @abc.abstractmethod
    def scatter(self, xs, root=0):
        """``xs[i]`` from ``root``, on rank ``i``."""

    def finalize(self):  # noqa: B027 - optional, nothing to release here
        """Release what the communicator holds (buffers, sub-communicators)."""

    @abc.abstractmethod
    def send_obj(self, obj, dest, tag):
        """Send a picklable object to ``dest``."""

    @abc.abstractmethod
    def recv_obj(self, source, tag):
        """Receive an object sent with ``send_obj``."""

    @abc.abstractmethod
    def bcast_obj(self, obj, max_buf_len=None, root=0):
        """``root``'s object, on every rank."""

    @abc.abstractmethod
    def gather_obj(self, obj, root=0):
        """Every rank's object, as a list on ``root`` (None elsewhere)."""

    @abc.abstractmethod
    def allreduce_obj(self, obj):
        """The sum (``+``) of every rank's object, on every rank."""

    @abc.abstractmethod
    def bcast_data(self, model):
        """Copy rank 0's parameter values into every rank's ``model``."""

    def broadcast_data(self, model):
        """Old name of :meth:`bcast_data`."""
        self.bcast_data(model)

    @abc.abstractmethod
    def multi_node_mean_grad(self, model, zero_fill=False):
        """Replace every parameter gradient by its mean over the ranks.

        ``zero_fill``: a parameter that is initialized but got no gradient
        (``grad is None``, an unused link) takes part as zeros; otherwise it
        is skipped.  Uninitialized parameters are always skipped.
        """

    def allreduce_grad(self, model, zero_fill=False):
        """Deprecated (ChainerMN 7): use :meth:`multi_node_mean_grad`."""
        warnings.warn('allreduce_grad() is deprecated.', DeprecationWarning,
                      stacklevel=2)
        self.multi_node_mean_grad(model, zero_fill)
