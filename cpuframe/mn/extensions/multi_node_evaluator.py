"""Evaluators over every rank's part of a test set."""
import copy
import types

from cpuframe import backend, configuration
from cpuframe.dataset import convert
from cpuframe.mn.extensions._host import to_host
from cpuframe.training import extension


class GenericMultiNodeEvaluator(extension.Extension):
    """An evaluator whose results are aggregated by an arbitrary function.

    For evaluations that are not a mean of per-rank means (a test set not
    divisible among the ranks, a metric such as a median or an AUC): every
    rank runs :meth:`calc_local` on each batch of its ``iterator`` (with
    ``config.train`` False and backprop off, as ``Evaluator``), every
    result reaches ``root``, and :meth:`aggregate` runs once, on ``root``,
    with all of them.  Override both (by default ``calc_local`` calls
    ``target`` and ``aggregate`` returns the list).  Reporting is up to
    ``aggregate`` (no reporter is set up).

    Args:
        comm: a cpuframe.mn communicator (``None``: a single process).
        iterator: the test iterator; it must not repeat.
        target (callable): the model.
        device: where the converter sends batches.
        converter: batch converter (``concat_examples``).
        root (int): the rank that aggregates.
        progress_hook (callable): called on ``root`` with each of its
            batches.

    Calling it (on every rank) returns ``aggregate``'s value on ``root``
    and ``None`` elsewhere.
    """

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(self, comm, iterator, target, device=None,
                 converter=convert.concat_examples, root=0, *,
                 progress_hook=None):
        self.comm = comm
        self.iterator = iterator
        self._targets = {'main': target}
        self.converter = converter
        self.device = None if device is None else backend.get_device(device)
        self._progress_hook = progress_hook
        size = 1 if comm is None else comm.size
        if not 0 <= root < size:
            raise ValueError('GenericMultiNodeEvaluator: expected root in '
                             '[0, {}), got {!r}'.format(size, root))
        self.root = root

    def __call__(self, trainer=None):
        if hasattr(self.iterator, 'reset'):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        if self.comm is None:
            return self.aggregate(list(self._local_results(it)))
        results = self._gather_results(it)
        if self.comm.rank == self.root:
            return self.aggregate(results)
        return None

    def calc_local(self, *args, **kwargs):
        """One batch's result on this rank (must not be ``None``): by
        default ``target(*args, **kwargs)``."""
        return self._targets['main'](*args, **kwargs)

    def aggregate(self, results):
        """Combine every rank's results (called once, on ``root``); by
        default the list itself."""
        return results

    def _calc(self, batch):
        in_arrays = convert._call_converter(self.converter, batch,
                                            self.device)
        with configuration.using_config('train', False), \
                configuration.no_backprop_mode():
            if isinstance(in_arrays, tuple):
                return self.calc_local(*in_arrays)
            if isinstance(in_arrays, dict):
                return self.calc_local(**in_arrays)
            return self.calc_local(in_arrays)

    def _local_results(self, it):
        for batch in it:
            result = self._calc(batch)
            if self._progress_hook is not None:
                self._progress_hook(batch)
            yield result

    def _gather_results(self, it):
        # Round by round, every rank hands its next result (None when its
        # iterator is done, or its error) to root, until every rank is done:
        # ranks with more batches than others never wait on a finished one.
        collected = []
        done = False
        while True:
            if done:
                result, error = None, None
            else:
                try:
                    batch = next(it)
                except StopIteration:
                    done, batch = True, None
                result, error = None, None
                if batch is not None:
                    try:
                        result = self._calc(batch)
                    except Exception as e:
                        error = e
                    if error is None and result is None:
                        error = ValueError(
                            'GenericMultiNodeEvaluator: calc_local returned '
                            'None')
                    if (error is None and self._progress_hook is not None
                            and self.comm.rank == self.root):
                        self._progress_hook(batch)
            message = None if error is None else '{}: {}'.format(
                type(error).__name__, error)
            gathered = self.comm.gather_obj((result, message, done),
                                            root=self.root)
            verdict = None
            if self.comm.rank == self.root:
                failures = [(rank, m) for rank, (_, m, _) in
                            enumerate(gathered) if m is not None]
                if failures:
                    verdict = ('error', failures)
                else:
                    collected.extend(r for r, _, _ in gathered
                                     if r is not None)
                    verdict = ('done' if all(d for _, _, d in gathered)
                               else 'go', None)
            verdict = self.comm.bcast_obj(verdict, root=self.root)
            if verdict[0] == 'error':
                if error is not None:
                    raise error
                rank, message = verdict[1][0]
                raise RuntimeError('GenericMultiNodeEvaluator: calc_local '
                                   'failed on rank {}: {}'.format(rank,
                                                                  message))
            if verdict[0] == 'done':
                return collected if self.comm.rank == self.root else None


def _mean_over_ranks(comm, local, error=None):
    """Every rank's dict of values, averaged key by key (rank order), on
    every rank; a key missing on some rank, or an evaluation that failed on
    some rank (``error``), raises on every rank."""
    if error is None:
        local = {key: to_host(value) for key, value in local.items()}
        message = None
    else:
        local, message = {}, '{}: {}'.format(type(error).__name__, error)
    gathered = comm.gather_obj((local, message), root=0)
    if comm.rank == 0:
        failures = [(r, m) for r, (_, m) in enumerate(gathered)
                    if m is not None]
        gathered = [d for d, _ in gathered]
        keys = set(gathered[0])
        for d in gathered[1:]:
            keys |= set(d)
        missing = [(key, [r for r, d in enumerate(gathered) if key not in d])
                   for key in sorted(keys)
                   if any(key not in d for d in gathered)]
        if failures:
            answer = ('error', 'the evaluation failed on rank {}: {}'.format(
                *failures[0]))
        elif missing:
            key, ranks = missing[0]
            answer = ('error', 'the evaluator reported {!r} on some ranks '
                      'but not on rank(s) {} (does every rank have test '
                      'data? scatter the test set with force_equal_length='
                      'True)'.format(key, ranks))
        else:
            mean = {}
            for key in sorted(keys):
                total = gathered[0][key]
                for d in gathered[1:]:
                    total = total + d[key]
                mean[key] = total / comm.size
            answer = ('ok', mean)
    else:
        answer = None
    status, value = comm.bcast_obj(answer, root=0)
    if error is not None:
        raise error
    if status == 'error':
        raise ValueError('multi-node evaluator: ' + value)
    return value


def create_multi_node_evaluator(actual_evaluator, communicator):
    """Make ``actual_evaluator`` report means over every rank.

    ``actual_evaluator`` (e.g. ``training.extensions.Evaluator``, or any
    object with ``evaluate()`` returning a dict of values) evaluates this
    rank's part of the test set; its ``evaluate`` is replaced by one that
    returns, for each key, the mean over the ranks of their results (every
    rank weighs the same, so give every rank the same number of examples:
    ``scatter_dataset(test, comm)`` with ``force_equal_length=True``).
    Every rank gets the same dict.  The evaluator is changed in place (it
    gains ``_mn_original_evaluate`` and ``_mn_communicator``) and returned;
    call it on every rank at the same points.
    """
    actual_evaluator._mn_original_evaluate = actual_evaluator.evaluate
    actual_evaluator._mn_communicator = communicator

    def evaluate(self):
        try:
            local = self._mn_original_evaluate()
        except Exception as e:
            # The other ranks learn of it instead of waiting forever.
            _mean_over_ranks(self._mn_communicator, None, e)
            raise
        return _mean_over_ranks(self._mn_communicator, local)

    actual_evaluator.evaluate = types.MethodType(evaluate, actual_evaluator)
    return actual_evaluator
