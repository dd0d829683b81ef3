"""``create_multi_node_n_step_rnn``: a stacked RNN split over ranks."""
from cpuframe.link import Chain
from cpuframe.mn.functions import point_to_point_communication as _p2p
from cpuframe.mn.functions.pseudo_connect import pseudo_connect
from cpuframe.mn.links._util import deepcopy_sharing


class _MultiNodeNStepRNN(Chain):

    def __init__(self, link, communicator, rank_in, rank_out):
        from cpuframe.links.rnn.n_step_rnn import NStepRNNBase
        if not isinstance(link, NStepRNNBase):
            raise ValueError('create_multi_node_n_step_rnn: link must be an '
                             'NStepRNN link (NStepLSTM, NStepGRU, ...), got '
                             '{}'.format(type(link).__name__))
        super().__init__(actual_rnn=link)
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = link.n_cells

    def __deepcopy__(self, memo):
        # The communicator is shared, never copied.
        return deepcopy_sharing(self, memo, 'communicator')

    def forward(self, *inputs):
        comm = self.communicator
        cells = [None] * self.n_cells
        if self.rank_in is not None:
            # Each cell waits on the previous one (a delegate), so backward
            # sends their gradients in reverse order, as the sender's
            # backward receives them; the tags tell the cells apart.
            delegate = None
            for i in range(self.n_cells):
                cells[i] = _p2p.recv(comm, self.rank_in,
                                     delegate_variable=delegate, tag=i)
                delegate = cells[i]
        outputs = self.actual_rnn(*(tuple(cells) + inputs))
        delegate = None
        if self.rank_out is not None:
            for i, cell in enumerate(outputs[:self.n_cells]):
                if delegate is not None:
                    cell, = pseudo_connect(delegate, cell)
                delegate = _p2p.send(cell, comm, rank=self.rank_out, tag=i)
        return tuple(outputs) + (delegate,)


def create_multi_node_n_step_rnn(actual_link, communicator, rank_in=None,
                                 rank_out=None):
    """A stacked RNN link whose initial states come from another rank.

    The returned link receives the initial hidden states (``hx``, and
    ``cx`` for an LSTM) from ``rank_in`` (or takes None: zeros, when
    ``rank_in`` is None), runs ``actual_link`` on the inputs it is called
    with, and sends the final states to ``rank_out`` (unless None).  It
    returns ``actual_link``'s outputs plus a delegate variable (None
    without ``rank_out``): with ``rank_out``, start backward from it (e.g.
    through :func:`~cpuframe.mn.functions.pseudo_connect`).

    Args:
        actual_link: an ``NStepLSTM``, ``NStepGRU``, ``NStepRNNTanh``,
            ``NStepRNNReLU`` or a bidirectional one.
        communicator: a cpuframe.mn communicator.
        rank_in (int or None): where the initial states come from.
        rank_out (int or None): where the final states go.
    """
    return _MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
