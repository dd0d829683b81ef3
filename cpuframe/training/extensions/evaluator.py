"""Evaluator: the mean of reported values over a validation dataset."""
import copy
import warnings

from cpuframe import backend, configuration, link, reporter
from cpuframe.dataset import convert
from cpuframe.training import extension
from cpuframe.training.extensions import util


class _IteratorProgressBar(util.ProgressBar):

    def __init__(self, iterator, bar_length=None, out=None):
        if not (hasattr(iterator, 'current_position') and
                hasattr(iterator, 'epoch_detail')):
            raise TypeError(
                'Evaluator: progress_bar=True needs an iterator with '
                'current_position and epoch_detail, got {}'.format(
                    type(iterator).__name__))
        self._iterator = iterator
        super().__init__(bar_length=bar_length, out=out)

    def get_lines(self):
        it = self._iterator
        position = it.current_position
        epoch_detail = it.epoch_detail
        epoch_size = getattr(it, 'epoch_size', None) or \
            getattr(it, '_epoch_size', None)
        speed_t, speed_e = self.update_speed(position, epoch_detail)
        remaining = (1.0 - epoch_detail) / speed_e if speed_e else \
            float('inf')
        if epoch_size:
            count = '{:10} / {} iterations\n'.format(position, epoch_size)
        else:
            count = '{:10} iterations\n'.format(position)
        return [
            'validation {} {:6.2%}\n'.format(self.bar(epoch_detail),
                                             epoch_detail),
            count,
            '{:10.5g} iters/sec. Estimated time to finish: {}.\n'.format(
                speed_t, util._eta(remaining)),
        ]


class Evaluator(extension.Extension):
    """Evaluates ``target`` on every batch of ``iterator`` and reports the
    means of what it reported.

    ``evaluate()`` resets the main iterator, runs ``eval_func`` (default:
    the main target) on each converted batch with ``config.train`` False
    and backprop off, and returns the means of the reported values.  As a
    trainer extension (name ``validation``) the results are reported with
    the prefix ``validation/``: ``validation/main/loss``.  Called directly
    (``evaluator()``) it returns the dict, with keys such as
    ``main/loss``.

    ``iterator`` and ``target`` may be dicts of named objects (the default
    ``evaluate`` uses the ones named ``'main'``; subclasses may override
    it); ``eval_hook(evaluator)`` runs before each
    evaluation; ``device`` is where batches are sent.
    """

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(self, iterator, target, converter=convert.concat_examples,
                 device=None, eval_hook=None, eval_func=None, *,
                 progress_bar=False):
        if device is not None:
            device = backend.get_device(device)
        if not isinstance(iterator, dict):
            iterator = {'main': iterator}
        if isinstance(target, link.Link):
            target = {'main': target}
        if not isinstance(target, dict):
            raise TypeError(
                'Evaluator: expected target as a Link or a dict of Links, got '
                '{}'.format(type(target).__name__))
        self._iterators = iterator
        self._targets = target
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = progress_bar
        for key, it in iterator.items():
            if getattr(it, 'repeat', False) is True:
                warnings.warn(
                    'Evaluator: the iterator {!r} repeats (repeat=True), so '
                    'an evaluation sweeping it may never end; create it with '
                    'repeat=False'.format(key), stacklevel=2)

    def get_iterator(self, name):
        """The iterator registered under ``name``."""
        return self._iterators[name]

    def get_all_iterators(self):
        """A new dict of every iterator, keyed by name."""
        return dict(self._iterators)

    def get_target(self, name):
        """The target link registered under ``name``."""
        return self._targets[name]

    def get_all_targets(self):
        """A new dict of every target link, keyed by name."""
        return dict(self._targets)

    def __call__(self, trainer=None):
        """Evaluate, report the results to the current reporter (if any)
        and return them."""
        local_reporter = reporter.Reporter()
        prefix = '' if self.name is None else self.name + '/'
        for name, target in self._targets.items():
            local_reporter.add_observer(prefix + name, target)
            local_reporter.add_observers(prefix + name,
                                         target.namedlinks(skipself=True))
        with local_reporter:
            with configuration.using_config('train', False):
                result = self.evaluate()
        reporter.report(result)
        return result

    def evaluate(self):
        """The means of the values reported over one sweep of the main
        iterator."""
        if 'main' not in self._iterators:
            raise ValueError(
                "Evaluator.evaluate: expected an iterator named 'main', got "
                '{}'.format(sorted(self._iterators)))
        if self.eval_func is None and 'main' not in self._targets:
            raise ValueError(
                "Evaluator.evaluate: expected a target named 'main' (or an "
                'eval_func), got {}'.format(sorted(self._targets)))
        iterator = self._iterators['main']
        eval_func = self.eval_func or self._targets['main']
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, 'reset'):
            iterator.reset()
            it = iterator
        else:
            warnings.warn(
                'Evaluator: the iterator has no reset method, so it is copied '
                'instead; give it a reset method', DeprecationWarning, stacklevel=2)
            it = copy.copy(iterator)

        summary = reporter.DictSummary()
        pbar = _IteratorProgressBar(iterator=it) if self._progress_bar \
            else None
        for batch in it:
            observation = {}
            with reporter.report_scope(observation):
                in_arrays = convert._call_converter(
                    self.converter, batch, self.device)
                with configuration.no_backprop_mode():
                    if isinstance(in_arrays, tuple):
                        eval_func(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        eval_func(**in_arrays)
                    else:
                        eval_func(in_arrays)
            summary.add(observation)
            if pbar is not None:
                pbar.update()
        if pbar is not None:
            pbar.close()
        return summary.compute_mean()

    def finalize(self):
        for it in self._iterators.values():
            finalize = getattr(it, 'finalize', None)
            if finalize is not None:
                finalize()
