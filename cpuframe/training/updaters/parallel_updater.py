"""ParallelUpdater: one minibatch split across model copies on devices."""
import copy

from cpuframe import backend, configuration
from cpuframe.dataset import convert
from cpuframe.training.updaters.standard_updater import StandardUpdater


def _call(loss_func, in_arrays):
    if isinstance(in_arrays, tuple):
        return loss_func(*in_arrays)
    if isinstance(in_arrays, dict):
        return loss_func(**in_arrays)
    return loss_func(in_arrays)


class ParallelUpdater(StandardUpdater):
    """Synchronous data parallelism over model copies in one process.

    Each iteration draws one minibatch from the ``'main'`` iterator and
    deals it out: with ``n`` models, model ``k`` (in the order of
    ``models``) gets the examples ``batch[k::n]``, converted with
    ``converter`` onto its device.  Every copy computes its loss and
    gradients, the gradients of the other copies are *added* to the main
    model's (``addgrads``), the ``'main'`` optimizer updates the main model,
    and the new parameters are copied back into the other copies.  As in
    Chainer the gradients are summed, not averaged: with a loss that is a
    mean over its examples and ``n`` equal parts, the update is the one a
    :class:`StandardUpdater` makes on the whole batch with ``n`` times the
    gradient (e.g. SGD with ``n`` times the learning rate).

    Chainer's ParallelUpdater runs the copies on several GPUs at once.
    Here the copies run **one after another** in this process: on CPU
    devices (``'@numpy'``, ``'@intel64'``) the class gives the same updates
    as Chainer's but no speed-up; for real parallelism on CPUs use
    :class:`~cpuframe.training.updaters.MultiprocessParallelUpdater`
    (worker processes) or :mod:`cpuframe.mn` (MPI).  CuPy devices are
    accepted too (still one after another).

    Args:
        iterator: the iterator, or a dict of them (``'main'`` is used).
        optimizer: the optimizer, or a dict of them (``'main'`` is used);
            its target is the main model.
        converter: turns each part of the batch into input arrays; called
            with each model's device.
        models (dict): the model copies by name; ``models['main']`` must
            be the main optimizer's target.  None: copies are made from
            ``devices``.
        devices (dict): device specifiers by name, the same names as
            ``models`` (or, when ``models`` is None, the copies to make:
            ``'main'`` is required and the main model is moved there, every
            other name gets a deep copy of it on that device).
        loss_func: the loss function (default: each model itself).
        loss_scale (float): passed to ``backward(loss_scale=...)`` and the
            optimizer.
        auto_new_epoch (bool): call the main optimizer's ``new_epoch``
            when the main iterator finishes an epoch.

    >>> from cpuframe import datasets, iterators, optimizers, training
    >>> model = L.Classifier(L.Linear(3, 2))
    >>> opt = optimizers.SGD().setup(model)
    >>> data = datasets.TupleDataset(np.zeros((8, 3), np.float32),
    ...                              np.zeros(8, np.int32))
    >>> updater = training.updaters.ParallelUpdater(
    ...     iterators.SerialIterator(data, 4), opt,
    ...     devices={'main': '@numpy', 'second': '@numpy'})
    >>> updater.update()
    >>> updater.iteration
    1
    """

    def __init__(self, iterator, optimizer, converter=convert.concat_examples,
                 models=None, devices=None, loss_func=None, loss_scale=None,
                 auto_new_epoch=True):
        super().__init__(iterator=iterator, optimizer=optimizer,
                         converter=converter, loss_func=loss_func,
                         loss_scale=loss_scale,
                         auto_new_epoch=auto_new_epoch)
        main_model = self.get_optimizer('main').target
        if models is None:
            if devices is None:
                raise ValueError('ParallelUpdater: either models or devices '
                                 'must be given')
            if not isinstance(devices, dict) or 'main' not in devices:
                raise KeyError("ParallelUpdater: expected devices as a dict "
                               "with a 'main' key, got {!r}".format(devices))
            models = {'main': main_model}
            for name in devices:
                if name != 'main':
                    models[name] = copy.deepcopy(main_model)
                    models[name].to_device(devices[name])
            main_model.to_device(devices['main'])
        else:
            if not isinstance(models, dict) or \
                    models.get('main') is not main_model:
                raise ValueError(
                    "ParallelUpdater: expected models as a dict whose 'main' "
                    "entry is the main optimizer's target")
            if devices is None:
                devices = {name: model.device
                           for name, model in models.items()}
            elif set(devices) != set(models):
                raise ValueError(
                    'ParallelUpdater: expected devices for the models {}, '
                    'got devices for {}'.format(sorted(models),
                                                sorted(devices)))
        self._devices = {name: backend.get_device(spec)
                         for name, spec in devices.items()}
        self._models = models

    def connect_trainer(self, trainer):
        """Register the model copies other than the main one as observers
        under their names, so that what they report is accepted."""
        main = self.get_optimizer('main').target
        for name, model in self._models.items():
            if model is not main:
                trainer.reporter.add_observer(name, model)

    def update_core(self):
        """Split one minibatch over the models, sum their gradients into
        the main model, update it and copy it to the others."""
        optimizer = self.get_optimizer('main')
        main = optimizer.target
        others = [m for m in self._models.values() if m is not main]
        iterator = self.get_iterator('main')
        batch = iterator.next()
        n = len(self._models)
        if len(batch) < n:
            raise ValueError(
                'ParallelUpdater: a minibatch of {} examples cannot be split '
                'over {} models'.format(len(batch), n))

        losses = []
        for k, (name, model) in enumerate(self._models.items()):
            device = self._devices[name]
            in_arrays = convert._call_converter(
                self.converter, batch[k::n], device)
            model.cleargrads()
            with configuration.force_backprop_mode(), \
                    backend.using_device(device):
                losses.append(_call(self.loss_func or model, in_arrays))
        for model in self._models.values():
            model.cleargrads()   # parameters first used above start clean
        for loss in losses:
            loss.backward(loss_scale=self.loss_scale)
        del losses
        for model in others:
            main.addgrads(model)
        optimizer.update()
        for model in others:
            model.copyparams(main)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)
