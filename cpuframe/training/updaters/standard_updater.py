"""StandardUpdater: one optimizer step on one minibatch per iteration."""
from cpuframe import backend
from cpuframe.backends import cuda
from cpuframe.dataset import convert
from cpuframe.training import _updater


class StandardUpdater(_updater.Updater):
    """The default updater: draws a batch from the ``'main'`` iterator,
    converts it with ``converter`` and calls
    ``optimizer.update(loss_func, *in_arrays)``.

    ``iterator`` and ``optimizer`` may each be a dict of named objects (the
    default ``update_core`` uses the ones named ``'main'``); a single object
    is registered as ``'main'``.
    ``device`` (any device specifier) is where the models are moved and,
    unless ``input_device`` says otherwise, where the batches are sent.
    ``loss_func`` defaults to the main optimizer's target link.
    ``loss_scale`` is passed to each optimizer's ``set_loss_scale``.  With
    ``auto_new_epoch`` the main optimizer's ``new_epoch`` is called each
    time the main iterator completes an epoch.

    Subclasses override ``update_core`` (``update`` calls it and counts
    the iteration), using ``get_iterator``, ``get_optimizer``,
    ``converter`` and ``device`` as Chainer's examples do.
    """

    def __init__(self, iterator, optimizer, converter=convert.concat_examples,
                 device=None, loss_func=None, loss_scale=None,
                 auto_new_epoch=True, *, input_device=None):
        if device is not None:
            device = backend.get_device(device)
        if input_device is None:
            input_device = device
        else:
            input_device = backend.get_device(input_device)

        if not isinstance(iterator, dict):
            iterator = {'main': iterator}
        self._iterators = iterator

        if not isinstance(optimizer, dict):
            optimizer = {'main': optimizer}
        for name, opt in optimizer.items():
            if getattr(opt, 'target', None) is None:
                raise ValueError(
                    'StandardUpdater: optimizer {!r} has no target link; call '
                    'optimizer.setup(model) first'.format(name))
        self._optimizers = optimizer

        if device is not None:
            for opt in self._optimizers.values():
                if isinstance(device, cuda.GpuDevice):
                    opt.target._to_gpu(device.device.id)
                else:
                    opt.target.to_device(device)

        self.converter = converter
        self.loss_func = loss_func
        self.iteration = 0
        self._device = device
        self._input_device = input_device

        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in self._optimizers.values():
                opt.set_loss_scale(loss_scale)

        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in self._optimizers.values():
                opt.use_auto_new_epoch = True

    @property
    def device(self):
        """The ``Device`` the models live on (None: left where they were)."""
        return self._device

    @property
    def input_device(self):
        """The ``Device`` minibatches are sent to."""
        return self._input_device

    @property
    def epoch(self):
        """Completed epochs of the main iterator."""
        return self._iterators['main'].epoch

    @property
    def epoch_detail(self):
        """Fractional epoch of the main iterator."""
        return self._iterators['main'].epoch_detail

    @property
    def previous_epoch_detail(self):
        """The main iterator's ``epoch_detail`` before its last batch."""
        return self._iterators['main'].previous_epoch_detail

    @property
    def is_new_epoch(self):
        """Whether the last batch of the main iterator ended an epoch."""
        return self._iterators['main'].is_new_epoch

    def finalize(self):
        """Finalize every iterator (called at the end of training)."""
        for it in self._iterators.values():
            finalize = getattr(it, 'finalize', None)
            if finalize is not None:
                finalize()

    def get_optimizer(self, name):
        """The optimizer registered under ``name``."""
        return self._optimizers[name]

    def get_all_optimizers(self):
        """A new dict of every optimizer, keyed by name."""
        return dict(self._optimizers)

    def get_iterator(self, name):
        """The iterator registered under ``name``."""
        return self._iterators[name]

    def update(self):
        """Run one iteration (``update_core``) and count it."""
        self.update_core()
        self.iteration += 1

    def update_core(self):
        """Draw, convert and learn from one minibatch of the main iterator."""
        iterator = self._iterators['main']
        batch = iterator.next()
        in_arrays = convert._call_converter(
            self.converter, batch, self.input_device)

        optimizer = self._optimizers['main']
        loss_func = self.loss_func or optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer):
        """Save or load iterators (``iterator:NAME``), optimizers
        (``optimizer:NAME``), their models (``model:NAME``) and
        ``iteration``, in Chainer's key layout."""
        for name, it in self._iterators.items():
            it.serialize(serializer['iterator:' + name])
        for name, opt in self._optimizers.items():
            opt.serialize(serializer['optimizer:' + name])
            opt.target.serialize(serializer['model:' + name])
        self.iteration = serializer('iteration', self.iteration)
