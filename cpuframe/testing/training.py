"""A trainer with a mock updater (``chainer.testing.training``)."""


def get_trainer_with_mock_updater(stop_trigger=(10, 'iteration'),
                                  iter_per_epoch=10, extensions=None):
    """A ``Trainer`` whose updater is a ``mock.Mock`` that only counts.

    Each ``updater.update()`` calls ``updater.update_core()`` (a mock) and
    advances ``iteration``, ``epoch``, ``epoch_detail``,
    ``previous_epoch_detail`` and ``is_new_epoch`` as a real updater over
    ``iter_per_epoch`` iterations per epoch would, so tests of the trainer
    and of extensions can rely on them.
    """
    from unittest import mock

    from cpuframe import training
    if iter_per_epoch <= 0:
        raise ValueError('get_trainer_with_mock_updater: iter_per_epoch must '
                         'be positive, got {}'.format(iter_per_epoch))
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update():
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = \
            (updater.iteration - 1) // iter_per_epoch != updater.epoch
        updater.previous_epoch_detail = \
            (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger,
                            extensions=list(extensions or []))
