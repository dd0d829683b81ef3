"""ProgressBar: training progress with ETA and speed."""
import sys

from cpuframe.training import extension
from cpuframe.training.extensions import util


class _TrainerProgressBar(util.ProgressBar):

    def __init__(self, trainer, training_length, bar_length, out):
        super().__init__(bar_length, out)
        self.trainer = trainer
        if training_length is None:
            stop_trigger = trainer.stop_trigger
            get_length = getattr(stop_trigger, 'get_training_length', None)
            if get_length is None:
                raise TypeError(
                    'ProgressBar: cannot tell the training length from the '
                    'stop trigger {}; pass training_length=(n, unit)'.format(
                        type(stop_trigger).__name__))
            training_length = get_length()
        self.training_length = training_length
        self.status_template = '{0.iteration:10} iter, {0.epoch} epoch / ' \
            '%s %ss\n' % tuple(training_length)

    def _state(self):
        updater = self.trainer.updater
        iteration = updater.iteration
        epoch = updater.epoch_detail
        length, unit = self.training_length
        rate = iteration / length if unit == 'iteration' else epoch / length
        return iteration, epoch, length, unit, min(rate, 1.0)

    def get_lines(self):
        iteration, epoch, length, unit, rate = self._state()
        epoch_rate = epoch - int(epoch)
        speed_t, speed_e = self.update_speed(iteration, epoch)
        if unit == 'iteration':
            remaining = (length - iteration) / speed_t if speed_t else \
                float('inf')
        else:
            remaining = (length - epoch) / speed_e if speed_e else \
                float('inf')
        return [
            '     total {} {:6.2%}\n'.format(self.bar(rate), rate),
            'this epoch {} {:6.2%}\n'.format(self.bar(epoch_rate),
                                             epoch_rate),
            self.status_template.format(self.trainer.updater),
            '{:10.5g} iters/sec. Estimated time to finish: {}.\n'.format(
                speed_t, util._eta(remaining)),
        ]

    def get_plain_line(self, lines):
        _, _, _, _, rate = self._state()
        return '{} {:6.2%} {}, {}'.format(
            self.bar(rate), rate, lines[2].strip(), lines[3].strip()) + '\n'


class ProgressBar(extension.Extension):
    """Shows the progress of training every ``update_interval`` iterations.

    On a terminal it draws Chainer's four-line block (total and this-epoch
    bars, the iteration/epoch counts, iterations per second and the
    estimated time to finish) and redraws it in place.  When ``out`` is not
    a terminal it writes one plain line per update instead, e.g.
    ``[#####.....]  50.00%  100 iter, 1 epoch / 2 epochs, 123.4
    iters/sec. Estimated time to finish: 0:00:01.``

    ``training_length`` (``(n, unit)``) defaults to the stop trigger's.
    """

    def __init__(self, training_length=None, update_interval=100,
                 bar_length=50, out=sys.stdout):
        if not (isinstance(update_interval, int) and update_interval > 0):
            raise ValueError('ProgressBar: expected a positive integer '
                             'update_interval, got {!r}'.format(
                                 update_interval))
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        self._pbar = None

    def __call__(self, trainer):
        if self._pbar is None:
            self._pbar = _TrainerProgressBar(
                trainer, self._training_length, self._bar_length, self._out)
        if trainer.updater.iteration % self._update_interval == 0:
            self._pbar.update()

    def finalize(self):
        if self._pbar is not None:
            self._pbar.close()
