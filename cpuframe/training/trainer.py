"""Trainer: the training loop that drives an updater and its extensions."""
import collections
import os
import sys
import time
import traceback

from cpuframe import reporter as reporter_module
from cpuframe import serializer as serializer_module
from cpuframe.training import extension as extension_module
from cpuframe.training import util

_get_time = time.perf_counter


class _ExtensionEntry:

    def __init__(self, extension, priority, trigger, call_before_training):
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training


class Trainer:
    """The standard training loop.

    Each iteration calls ``updater.update()`` inside a fresh
    ``observation`` dict (the reporter writes there), then every extension
    whose trigger fires, highest ``priority`` first (ties in registration
    order).  The loop ends when ``stop_trigger`` fires; a ``(period,
    unit)`` pair becomes an ``IntervalTrigger`` and ``None`` never stops.

    The target link of each optimizer and every link below it are
    registered as observers named ``<optimizer name><link path>``
    (``main``, ``main/predictor``, ...), so ``report({'loss': l}, model)``
    lands at ``main/loss``.

    ``serialize`` saves and restores the updater (``updater/...``), the
    stop trigger, each extension and its trigger and the elapsed time, in
    Chainer's snapshot layout; a trainer built the same way and loaded
    from a snapshot continues where the saved one stopped.
    """

    def __init__(self, updater, stop_trigger=None, out='result',
                 extensions=None):
        self.updater = updater
        self.stop_trigger = util.get_trigger(stop_trigger)
        self.observation = {}
        self.out = out
        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            reporter.add_observer(name, optimizer.target)
            reporter.add_observers(
                name, optimizer.target.namedlinks(skipself=True))
        self.reporter = reporter

        self._done = False
        self._extensions = collections.OrderedDict()
        self._start_at = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time = None

        connect = getattr(updater, 'connect_trainer', None)
        if connect is not None:
            connect(self)
        for ext in extensions or ():
            self.extend(ext)

    @property
    def is_before_training(self):
        """True until the first update (iteration 0)."""
        return self.updater.iteration == 0

    @property
    def elapsed_time(self):
        """Seconds of training so far, including the runs before a resume."""
        if self._done:
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError(
                'Trainer.elapsed_time: training has not been started yet')
        return _get_time() - self._start_at + self._snapshot_elapsed_time

    def extend(self, extension, name=None, trigger=None, priority=None, *,
               call_before_training=False, **kwargs):
        """Register ``extension`` (any callable taking the trainer).

        ``name`` defaults to the extension's ``name``, ``default_name`` or
        ``__name__``; a taken name gets a suffix ``_1``, ``_2``, ...
        ``trigger`` defaults to the extension's ``trigger`` attribute, else
        every iteration; ``priority`` to its ``priority``, else
        ``PRIORITY_READER``.  With ``call_before_training`` it is also
        called once before the first update.
        """
        if 'invoke_before_training' in kwargs:
            raise ValueError(
                'Trainer.extend: invoke_before_training has been removed '
                '(since Chainer v2); use call_before_training= or the '
                "extension's initialize instead")
        if kwargs:
            raise TypeError(
                'Trainer.extend: unexpected keyword arguments {}'.format(
                    ', '.join(sorted(kwargs))))
        if not callable(extension):
            raise TypeError(
                'Trainer.extend: expected a callable extension, got '
                '{}'.format(type(extension).__name__))
        if name is None:
            name = getattr(extension, 'name', None)
            if name is None:
                name = getattr(extension, 'default_name', None)
            if name is None:
                name = getattr(extension, '__name__', None)
            if name is None:
                raise TypeError(
                    'Trainer.extend: no name given for the extension {!r} '
                    'and it has no name, default_name or __name__'.format(
                        extension))
        if name == 'training':
            raise ValueError(
                "Trainer.extend: the name 'training' is reserved and cannot "
                'name an extension')
        if trigger is None:
            trigger = getattr(extension, 'trigger', (1, 'iteration'))
        trigger = util.get_trigger(trigger)
        if priority is None:
            priority = getattr(extension, 'priority',
                               extension_module.PRIORITY_READER)

        modified_name = name
        ordinal = 0
        while modified_name in self._extensions:
            ordinal += 1
            modified_name = '{}_{}'.format(name, ordinal)
        extension.name = modified_name
        self._extensions[modified_name] = _ExtensionEntry(
            extension, priority, trigger, call_before_training)

    def get_extension(self, name):
        """The extension registered under ``name``."""
        entry = self._extensions.get(name)
        if entry is None:
            raise ValueError(
                'Trainer.get_extension: extension {!r} not found (registered: '
                '{})'.format(name, ', '.join(self._extensions) or 'none'))
        return entry.extension

    def run(self, show_loop_exception_msg=True):
        """Run the training loop until the stop trigger fires.

        Extensions' ``initialize`` run first (extensions that load a
        snapshot with ``autoload`` before the others, so restored states
        are what the others see), then the ``call_before_training`` ones.
        When the loop raises, each extension's ``on_error`` is called and
        the error propagates; ``finalize`` of every extension and of the
        updater runs in any case.  A trainer runs once.
        """
        if self._done:
            raise RuntimeError(
                'Trainer.run: the training loop cannot run twice on one '
                'trainer')
        os.makedirs(self.out, exist_ok=True)

        order = sorted(self._extensions,
                       key=lambda n: self._extensions[n].priority,
                       reverse=True)
        extensions = [(name, self._extensions[name]) for name in order]

        self._start_at = _get_time()

        # A snapshot loaded by autoload restores other extensions' states;
        # load it before their initialize reads those states.
        by_init_order = sorted(
            extensions,
            key=lambda item: not getattr(item[1].extension, 'autoload',
                                         False))
        for _, entry in by_init_order:
            initializer = getattr(entry.extension, 'initialize', None)
            finished = getattr(entry.trigger, 'finished', False)
            if initializer and not finished:
                initializer(self)

        self.observation = {}
        with self.reporter.scope(self.observation):
            for _, entry in extensions:
                if entry.call_before_training:
                    entry.extension(self)

        update = self.updater.update
        reporter = self.reporter
        stop_trigger = self.stop_trigger
        try:
            while not stop_trigger(self):
                self.observation = {}
                with reporter.scope(self.observation):
                    update()
                    for _, entry in extensions:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as e:
            err = sys.stderr
            if show_loop_exception_msg:
                # Said now: a finalize below that hangs would otherwise hide
                # what went wrong.
                err.write('Exception in main training loop: {}\n'.format(e))
                err.write('Traceback (most recent call last):\n')
                traceback.print_tb(sys.exc_info()[2])
                err.write('Will finalize trainer extensions and updater '
                          'before reraising the exception.\n')
            tb = sys.exc_info()[2]
            for _, entry in extensions:
                handler = getattr(entry.extension, 'on_error', None)
                if handler:
                    try:
                        handler(self, e, tb)
                    except Exception as he:  # noqa: BLE001 - all must run
                        err.write('Exception in error handler: {}\n'.format(
                            he))
                        err.write('Traceback (most recent call last):\n')
                        traceback.print_tb(sys.exc_info()[2])
            raise
        finally:
            for _, entry in extensions:
                finalize = getattr(entry.extension, 'finalize', None)
                if finalize:
                    finalize()
            self.updater.finalize()

        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer):
        """Save or load the trainer's state in Chainer's snapshot layout."""
        self.updater.serialize(serializer['updater'])
        if hasattr(self.stop_trigger, 'serialize'):
            self.stop_trigger.serialize(serializer['stop_trigger'])
        s = serializer['extensions']
        t = serializer['extension_triggers']
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, 'serialize'):
                entry.extension.serialize(s[name])
            if hasattr(entry.trigger, 'serialize'):
                entry.trigger.serialize(t[name])
        if isinstance(serializer, serializer_module.Serializer):
            elapsed = self._snapshot_elapsed_time if self._start_at is None \
                else self.elapsed_time
            serializer('_snapshot_elapsed_time', elapsed)
        else:
            self._snapshot_elapsed_time = float(serializer(
                '_snapshot_elapsed_time', self._snapshot_elapsed_time))
