"""PlotReport: plot reported values against epoch or iteration (PNG)."""
import json
import os
import warnings

from cpuframe import _atomic_write, reporter
from cpuframe import serializer as serializer_module
from cpuframe.training import extension, util

_available = None
_MISSING = ('PlotReport: matplotlib is not installed, so nothing will be '
            'plotted. Install it with\n\n  $ pip install cpuframe[plot]\n\n'
            '(or pip install matplotlib).')


def _try_import_matplotlib():
    global _available
    try:
        import matplotlib  # noqa: F401
        _available = True
    except (ImportError, TypeError):
        _available = False


def _check_available():
    if _available is None:
        _try_import_matplotlib()
    if not _available:
        warnings.warn(_MISSING, stacklevel=2)


class PlotReport(extension.Extension):
    """Accumulates the observed ``y_keys`` and, each time ``trigger``
    fires, adds their means to the series and saves a plot of every series
    against ``x_key`` (``'iteration'`` or ``'epoch'``) to ``out/filename``.

    Needs matplotlib (the ``plot`` extra): without it a warning says so at
    construction and the extension does nothing; ``PlotReport.available()``
    tells.  ``postprocess(figure, axes, summary)`` may edit the figure
    before it is saved.  ``file_name`` is Chainer's older alias of
    ``filename``.  The file is written to a temporary name and renamed.
    Registered with ``call_before_training=True``, the values observed
    before training (e.g. a first evaluation) are a point of their own at
    ``x = 0``.
    """

    def __init__(self, y_keys, x_key='iteration', trigger=(1, 'epoch'),
                 postprocess=None, filename=None, marker='x', grid=True,
                 **kwargs):
        file_name = kwargs.pop('file_name', 'plot.png')
        if kwargs:
            raise TypeError('PlotReport: unexpected keyword arguments {}'
                            .format(', '.join(sorted(kwargs))))
        if filename is None:
            filename = file_name
        if x_key not in ('iteration', 'epoch'):
            raise ValueError("PlotReport: expected x_key 'iteration' or "
                             "'epoch', got {!r}".format(x_key))
        _check_available()
        if isinstance(y_keys, str):
            y_keys = (y_keys,)
        self._x_key = x_key
        self._y_keys = y_keys
        self._trigger = util.get_trigger(trigger)
        self._file_name = filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._init_summary()
        self._data = {k: [] for k in y_keys}

    @staticmethod
    def available():
        """Whether matplotlib can be imported (warns when it cannot)."""
        _check_available()
        return _available

    def __call__(self, trainer):
        if not _available:  # the constructor has warned already
            return
        import matplotlib.pyplot as plt

        keys = self._y_keys
        observation = trainer.observation
        self._summary.add({k: observation[k] for k in keys
                           if k in observation})
        # As LogReport: the call before training (Trainer.extend's
        # call_before_training) plots its own point, at iteration/epoch 0,
        # instead of being averaged into the first interval's.
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        stats = {k: float(v) for k, v in self._summary.compute_mean().items()}
        stats['epoch'] = trainer.updater.epoch
        stats['iteration'] = trainer.updater.iteration
        x = stats[self._x_key]
        for k in keys:
            if k in stats:
                self._data[k].append((x, stats[k]))

        figure = plt.figure()
        try:
            axes = figure.add_subplot(111)
            axes.set_xlabel(self._x_key)
            if self._grid:
                axes.grid()
            for k in keys:
                xy = self._data[k]
                if xy:
                    axes.plot([p[0] for p in xy], [p[1] for p in xy],
                              marker=self._marker, label=k)
            if axes.has_data():
                if self._postprocess is not None:
                    self._postprocess(figure, axes, self._summary)
                legend = axes.legend(bbox_to_anchor=(1.05, 1), loc=2,
                                     borderaxespad=0.)
                path = os.path.join(trainer.out, self._file_name)
                fmt = os.path.splitext(path)[1][1:] or 'png'
                _atomic_write.write_atomically(path, lambda tmp: figure.savefig(
                    tmp, format=fmt, bbox_extra_artists=(legend,),
                    bbox_inches='tight'))
        finally:
            plt.close(figure)
        self._init_summary()

    def _init_summary(self):
        self._summary = reporter.DictSummary()

    def serialize(self, serializer):
        key = '_plot_{}'.format(self._file_name)
        if isinstance(serializer, serializer_module.Serializer):
            serializer(key, json.dumps(self._data))
        else:
            data = json.loads(util._to_str(
                serializer(key, json.dumps(self._data))))
            self._data = {k: [tuple(p) for p in v] for k, v in data.items()}
