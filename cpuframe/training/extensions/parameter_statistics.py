"""ParameterStatistics: report statistics of parameters and gradients."""
import numpy

from cpuframe import backend, reporter
from cpuframe.training import extension, util


def _xp(x):
    return backend.get_array_module(x)


class ParameterStatistics(extension.Extension):
    """Reports, for each parameter of ``links`` (a link or a list), the
    statistics of its values (``report_params``) and of its gradients
    (``report_grads``) under keys
    ``{prefix/}{link name}{param path}/{data|grad}/{statistic}``, averaged
    over each ``trigger`` interval.

    The default statistics are ``mean``, ``std``, ``min``, ``max``,
    ``zeros`` (the count of zeros) and ``percentile`` (the sigmas of a
    normal distribution: 0.13, 2.28, 15.87, 50, 84.13, 97.72 and 99.87,
    reported as ``.../percentile/0`` ... ``/6``).  ``statistics`` may be a
    dict of ``name: function(flat_array)``; ``register_statistics`` adds
    one.  With ``skip_nan_params`` a parameter holding NaN reports NaN.
    """

    default_name = 'parameter_statistics'
    priority = extension.PRIORITY_WRITER
    report_key_template = \
        '{prefix}{link_name}{param_name}/{attr_name}/{function_name}'
    default_statistics = {
        'mean': lambda x: _xp(x).mean(x),
        'std': lambda x: _xp(x).std(x),
        'min': lambda x: _xp(x).min(x),
        'max': lambda x: _xp(x).max(x),
        'zeros': lambda x: _xp(x).count_nonzero(x == 0),
        'percentile': lambda x: _xp(x).percentile(
            x, (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)),
    }

    def __init__(self, links, statistics='default', report_params=True,
                 report_grads=True, prefix=None, trigger=(1, 'epoch'),
                 skip_nan_params=False):
        if not isinstance(links, (list, tuple)):
            links = links,
        self._links = links
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != 'default':
                raise ValueError(
                    "ParameterStatistics: expected statistics 'default', None "
                    'or a dict of functions, got {!r}'.format(statistics))
            statistics = self.default_statistics
        self._statistics = dict(statistics)
        self._attrs = [a for a, on in (('data', report_params),
                                       ('grad', report_grads)) if on]
        self._prefix = prefix
        self._trigger = util.get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._skip_nan_params = skip_nan_params

    def __call__(self, trainer):
        statistics = {}
        for link in self._links:
            link_name = getattr(link, 'name', None)
            link_name = 'None' if link_name is None else link_name
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    values = getattr(param, attr_name)
                    if values is None:
                        continue
                    values = values.ravel()
                    for function_name, function in self._statistics.items():
                        if self._skip_nan_params and \
                                _xp(values).isnan(values).any():
                            value = numpy.nan
                        else:
                            value = function(values)
                        key = self.report_key_template.format(
                            prefix=self._prefix + '/' if self._prefix else '',
                            link_name=link_name, param_name=param_name,
                            attr_name=attr_name, function_name=function_name)
                        if backend.is_array(value) and value.size > 1:
                            for i, v in enumerate(value):
                                statistics['{}/{}'.format(key, i)] = v
                        else:
                            statistics[key] = value
        self._summary.add(statistics)
        if self._trigger(trainer):
            reporter.report(self._summary.compute_mean())
            self._summary = reporter.DictSummary()

    def register_statistics(self, name, function):
        """Add a statistic ``function(flat_array)`` reported as ``name``."""
        self._statistics[name] = function
