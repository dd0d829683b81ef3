"""VariableStatisticsPlot: plot statistics of parameters and their
gradients over the iterations (PNG)."""
import os
import warnings

import numpy

from cpuframe import _atomic_write, backend, link, variable
from cpuframe.training import extension, util

_available = None
_MISSING = ('VariableStatisticsPlot: matplotlib is not installed, so nothing '
            'will be plotted. Install it with\n\n'
            '  $ pip install cpuframe[plot]\n\n(or pip install matplotlib).')
_COLOR = '#1f77b4'   # matplotlib's C0


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
        warnings.warn(_MISSING, stacklevel=3)


def _unpack_variables(x):
    """The Variables in ``x``: a Variable, a Link (its parameters) or a
    list or tuple of these."""
    if isinstance(x, variable.Variable):
        return (x,)
    if isinstance(x, link.Link):
        return tuple(x.params(include_uninit=True))
    if isinstance(x, (list, tuple)):
        found = ()
        for item in x:
            found += _unpack_variables(item)
        return found
    raise TypeError('VariableStatisticsPlot: expected targets as Variables, '
                    'Links or lists of them, got {}'.format(type(x).__name__))


def _to_numpy(array):
    return backend.get_device('@numpy').send(array)


class Reservoir:
    """A uniform random sample of at most ``size`` items (reservoir
    sampling), each a ``data_shape`` array tagged with an index.

    The first ``size`` items are all kept; item ``n`` (counting from 0)
    after that replaces a random kept one with probability
    ``size / (n + 1)``, so every item is in the sample with the same
    probability.  Uses NumPy's global random state.
    """

    def __init__(self, size, data_shape, dtype=numpy.float32):
        self.size = size
        self.data = numpy.zeros((size,) + tuple(data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int32)
        self.counter = 0

    def add(self, x, idx=None):
        """Offer the item ``x`` with index ``idx`` (default: its count)."""
        if idx is None:
            idx = self.counter
        if self.counter < self.size:
            self.data[self.counter] = x
            self.idxs[self.counter] = idx
        elif numpy.random.random() < self.size / float(self.counter + 1):
            slot = numpy.random.randint(self.size)
            self.data[slot] = x
            self.idxs[slot] = idx
        self.counter += 1

    def get_data(self):
        """``(indices, items)`` of the sample, sorted by index."""
        idxs = self.idxs[:min(self.counter, self.size)]
        order = numpy.argsort(idxs, kind='stable')
        return idxs[order], self.data[order]


class Statistician:
    """Computes the mean, the standard deviation and percentiles of an
    array along axes; ``__call__`` returns a dict with the keys ``'mean'``,
    ``'std'`` and ``'percentile'`` for those asked for.

    Args:
        collect_mean (bool), collect_std (bool): whether to compute them.
        percentile_sigmas (float or sequence of floats): percentiles in
            ``[0, 100]`` (empty or None: none).
    """

    def __init__(self, collect_mean, collect_std, percentile_sigmas):
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(self, x, axis=0, dtype=None, xp=None):
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        return self.collect(x, tuple(axis))

    def collect(self, x, axis):
        """The statistics of ``x`` over ``axis`` (a tuple)."""
        out = {}
        if self.collect_mean:
            out['mean'] = x.mean(axis=axis)
        if self.collect_std:
            out['std'] = x.std(axis=axis)
        if self.percentile_sigmas is not None and \
                numpy.size(self.percentile_sigmas):
            xp = backend.get_array_module(x)
            out['percentile'] = xp.percentile(x, self.percentile_sigmas,
                                              axis=axis)
        return out


class VariableStatisticsPlot(extension.Extension):
    """Plots the statistics of parameters and their gradients over training.

    Called every iteration (the extension's default trigger), it computes
    over all the values of the target variables together (their arrays
    flattened and joined) the mean, the standard deviation and the given
    percentiles, of the data and of the gradients, and keeps them in a
    :class:`Reservoir` of at most ``max_sample_size`` iterations.  Each
    time ``trigger`` fires it saves a figure to ``out/filename``: one
    column for the data and one for the gradients; the top row shows the
    mean with the standard deviation as error bars, the bottom row the
    percentiles as bands between symmetric pairs (the middle one, if their
    number is odd, as a line).  The file is written to a temporary name and
    renamed.

    Needs matplotlib (the ``plot`` extra) to plot: without it a warning
    says so at construction and nothing is written (the statistics are
    still collected); ``VariableStatisticsPlot.available()`` tells.

    Args:
        targets: a Variable, a Link (its parameters) or a list of these.
        max_sample_size (int): the most iterations kept for the plot.
        report_data (bool), report_grad (bool): plot the statistics of the
            data, of the gradients.
        plot_mean (bool), plot_std (bool): plot the mean, the standard
            deviation.
        percentile_sigmas (float or tuple of floats): the percentiles to
            plot, in ``[0, 100]``.
        trigger: when to save the figure (a trigger or ``(n, unit)``).
        filename (str): the file under the trainer's ``out`` (default
            ``'statistics.png'``); ``file_name`` is Chainer's older alias.
        figsize: matplotlib's ``figsize``.
        marker: matplotlib's ``marker`` of the lines.
        grid (bool): draw grids.
    """

    def __init__(self, targets, max_sample_size=1000,
                 report_data=True, report_grad=True,
                 plot_mean=True, plot_std=True,
                 percentile_sigmas=(
                     0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100),
                 trigger=(1, 'epoch'), filename=None,
                 figsize=None, marker=None, grid=True, **kwargs):
        file_name = kwargs.pop('file_name', 'statistics.png')
        if kwargs:
            raise TypeError('VariableStatisticsPlot: unexpected keyword '
                            'arguments {}'.format(', '.join(sorted(kwargs))))
        if filename is None:
            filename = file_name
        self._vars = _unpack_variables(targets)
        if not self._vars:
            raise ValueError('VariableStatisticsPlot: expected at least one '
                             'variable to collect statistics of, got none')
        if percentile_sigmas is None:
            percentile_sigmas = ()
        sigmas = numpy.atleast_1d(numpy.asarray(percentile_sigmas,
                                                numpy.float64))
        if sigmas.ndim != 1 or ((sigmas < 0) | (sigmas > 100)).any():
            raise ValueError('VariableStatisticsPlot: expected percentiles '
                             'in [0, 100], got {!r}'.format(
                                 percentile_sigmas))
        if not (plot_mean or plot_std or sigmas.size):
            raise ValueError('VariableStatisticsPlot: nothing to plot (no '
                             'mean, no std and no percentiles)')
        self._keys = [k for k, on in (('data', report_data),
                                      ('grad', report_grad)) if on]
        if not self._keys:
            raise ValueError('VariableStatisticsPlot: nothing to plot '
                             '(report_data and report_grad are both False)')
        self._plot_mean = bool(plot_mean)
        self._plot_std = bool(plot_std)
        self._plot_percentile = bool(sigmas.size)
        self._statistician = Statistician(
            collect_mean=plot_mean, collect_std=plot_std,
            percentile_sigmas=tuple(sigmas) if sigmas.size else None)
        self._trigger = util.get_trigger(trigger)
        self._filename = filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        self._data_shape = (len(self._keys), int(self._plot_mean) +
                            int(self._plot_std) + sigmas.size)
        self._samples = Reservoir(max_sample_size, self._data_shape)
        _check_available()

    @staticmethod
    def available():
        """Whether matplotlib can be imported (warns when it cannot)."""
        _check_available()
        return _available

    def _statistics(self):
        """This iteration's row: one row per key of mean, std,
        percentiles (zeros for a key no variable has)."""
        stats = numpy.zeros(self._data_shape, numpy.float32)
        for row, key in enumerate(self._keys):
            arrays = [getattr(v, 'array' if key == 'data' else 'grad')
                      for v in self._vars]
            flat = [_to_numpy(a).ravel() for a in arrays if a is not None]
            if not flat:
                continue
            values = self._statistician(numpy.concatenate(flat), axis=0)
            parts = [numpy.atleast_1d(values[name])
                     for name in ('mean', 'std', 'percentile')
                     if name in values]
            stats[row] = numpy.concatenate(parts)
        return stats

    def __call__(self, trainer):
        self._samples.add(self._statistics(), idx=trainer.updater.iteration)
        if self._trigger(trainer) and _available:
            self.save_plot_using_module(
                os.path.join(trainer.out, self._filename), None)

    def save_plot_using_module(self, file_path, plt):
        """Draw the collected statistics with ``plt`` (matplotlib.pyplot;
        None imports it) and save the figure to ``file_path``."""
        if plt is None:
            import matplotlib.pyplot as plt
        from matplotlib.colors import to_rgba
        color = to_rgba(_COLOR)
        band = color[:3] + (0.2,)
        n_rows = int(self._plot_mean or self._plot_std) + \
            int(self._plot_percentile)
        n_cols = len(self._keys)
        fig, axes = plt.subplots(n_rows, n_cols, figsize=self._figsize,
                                 sharex=True, squeeze=False)
        try:
            idxs, data = self._samples.get_data()
            offset = int(self._plot_mean) + int(self._plot_std)
            n_pct = data.shape[-1] - offset
            for col, key in enumerate(self._keys):
                row = 0
                axes[0, col].set_title(key)
                if self._plot_mean or self._plot_std:
                    ax = axes[row, col]
                    if self._plot_mean and self._plot_std:
                        ax.errorbar(idxs, data[:, col, 0], data[:, col, 1],
                                    color=color, ecolor=band,
                                    label='mean, std', marker=self._marker)
                    else:
                        ax.plot(idxs, data[:, col, 0], color=color,
                                label='mean' if self._plot_mean else 'std',
                                marker=self._marker)
                    row += 1
                if self._plot_percentile:
                    ax = axes[row, col]
                    for i in range(n_pct // 2 + n_pct % 2):
                        low = data[:, col, offset + i]
                        high = data[:, col, offset + n_pct - 1 - i]
                        last = i == (n_pct - 1) // 2
                        label = 'percentile' if last else '_nolegend_'
                        if offset + i == offset + n_pct - 1 - i:
                            ax.plot(idxs, low, color=color, label=label,
                                    marker=self._marker)
                        else:
                            ax.fill_between(idxs, low, high, label=label,
                                            alpha=0.2, linewidth=0,
                                            color=band)
                axes[n_rows - 1, col].set_xlabel('iteration')
            for ax in axes.ravel():
                ax.legend()
                if self._grid:
                    ax.grid()
                    ax.set_axisbelow(True)
            fmt = os.path.splitext(file_path)[1][1:] or 'png'
            _atomic_write.write_atomically(
                file_path, lambda tmp: fig.savefig(tmp, format=fmt))
        finally:
            plt.close(fig)
