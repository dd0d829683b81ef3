"""``ObservationAggregator``: summarize an observed value over the ranks."""
from cpuframe.mn.extensions._host import to_host
from cpuframe.training import extension, util


def _average_2d(histories):
    values = [v for history in histories for v in history]
    return sum(values) / len(values)


class ObservationAggregator(extension.Extension):
    """Replace an observed value by a summary over every rank.

    Each iteration the value of ``trainer.observation[original_key]``
    (a Variable or array is copied to the host) is recorded; when
    ``comm_trigger`` fires, every rank's recorded values since the last
    time reach rank 0, ``aggregator`` summarizes them, and every rank's
    ``trainer.observation[aggregated_key]`` becomes the summary.

    Args:
        comm: a cpuframe.mn communicator.
        original_key (str): the observation to summarize.
        aggregated_key (str): where the summary goes (``original_key``,
            overwriting it, when None).
        comm_trigger: when to communicate (``(1, 'iteration')``).
        aggregator (callable): takes a list (one per rank) of lists of the
            values observed since the last communication; the mean of all
            of them by default.

    When no rank observed anything in the interval nothing is written.
    """

    trigger = 1, 'iteration'
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(self, comm, original_key, aggregated_key=None, *,
                 comm_trigger=(1, 'iteration'), aggregator=None):
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None \
            else aggregated_key
        self.comm_trigger = util.get_trigger(comm_trigger)
        self.observation_history = []
        self.aggregator = aggregator or _average_2d

    def compute_summary(self, trainer):
        """The summary when ``comm_trigger`` fires, else None (every rank
        must call it at the same iterations)."""
        if self.original_key in trainer.observation:
            self.observation_history.append(
                to_host(trainer.observation[self.original_key]))
        if not self.comm_trigger(trainer):
            return None
        histories = self.comm.gather_obj(self.observation_history, root=0)
        self.observation_history = []
        answer = None
        if self.comm.rank == 0:
            if not any(histories):
                answer = ('ok', None)
            else:
                try:
                    answer = ('ok', self.aggregator(histories))
                except Exception as e:  # noqa: BLE001 - raised everywhere
                    answer = ('error', '{}: {}'.format(type(e).__name__, e))
        status, summary = self.comm.bcast_obj(answer, root=0)
        if status == 'error':
            raise RuntimeError('ObservationAggregator: the aggregator failed '
                               'on rank 0: {}'.format(summary))
        return summary

    def __call__(self, trainer):
        summary = self.compute_summary(trainer)
        if summary is not None:
            trainer.observation[self.aggregated_key] = summary
