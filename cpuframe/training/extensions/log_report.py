"""LogReport: average reported values and write them as a JSON log."""
import json
import os
import warnings

from cpuframe import _atomic_write, reporter
from cpuframe import serializer as serializer_module
from cpuframe.training import extension, util


class LogReport(extension.Extension):
    """Accumulates the observations of each iteration and, whenever
    ``trigger`` fires, appends their means plus ``epoch``, ``iteration`` and
    ``elapsed_time`` to ``log`` and writes the whole list as JSON to
    ``out/filename`` (atomically: temporary file, then rename).

    ``keys`` restricts the logged keys (all numeric observations when
    None); ``postprocess(entry)`` may edit each entry before it is stored;
    ``filename`` (default ``'log'``) may be a format string over the
    entry's fields.  ``log_name`` is Chainer's older name of ``filename``;
    as in Chainer, ``log_name=None`` (with no ``filename``) writes no file.
    """

    def __init__(self, keys=None, trigger=(1, 'epoch'), postprocess=None,
                 filename=None, **kwargs):
        log_name = kwargs.pop('log_name', 'log')
        if kwargs:
            raise TypeError('LogReport: unexpected keyword arguments {}'.format(
                ', '.join(sorted(kwargs))))
        if filename is None:
            filename = log_name
        self._keys = keys
        self._trigger = util.get_trigger(trigger)
        self._postprocess = postprocess
        self._log_name = filename
        self._log = []
        self._init_summary()

    def __call__(self, trainer):
        observation = trainer.observation
        if self._keys is None:
            self._summary.add(observation)
        else:
            self._summary.add({k: observation[k] for k in self._keys
                               if k in observation})
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        entry = {name: float(value)
                 for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        entry['epoch'] = updater.epoch
        entry['iteration'] = updater.iteration
        entry['elapsed_time'] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        self._log.append(entry)
        if self._log_name is not None:
            path = os.path.join(trainer.out, self._log_name.format(**entry))

            def write(tmp):
                with open(tmp, 'w') as f:
                    json.dump(self._log, f, indent=4)

            _atomic_write.write_atomically(path, write)
        self._init_summary()

    @property
    def log(self):
        """The list of logged entries (dicts), oldest first."""
        return self._log

    def _init_summary(self):
        self._summary = reporter.DictSummary()

    def serialize(self, serializer):
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        try:
            self._summary.serialize(serializer['_summary'])
        except KeyError:
            warnings.warn('LogReport: the statistics are not in the snapshot',
                          stacklevel=2)
        if isinstance(serializer, serializer_module.Serializer):
            serializer('_log', json.dumps(self._log))
        else:
            self._log = json.loads(util._to_str(
                serializer('_log', json.dumps(self._log))))
