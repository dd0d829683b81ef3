"""Trainer extensions: the ``Extension`` base class and ``make_extension``.

An extension is any callable taking the trainer.  The trainer reads four
optional attributes from it: ``trigger`` (when to call it), ``priority``
(order within an iteration, higher first), ``default_name`` (its name in
``trainer.get_extension`` and in snapshots) and the hooks ``initialize``,
``finalize``, ``on_error`` and ``serialize``.
"""

#: Priority of extensions that write to the observation (Evaluator).
PRIORITY_WRITER = 300
#: Priority of extensions that edit reported values (MicroAverage).
PRIORITY_EDITOR = 200
#: Priority of extensions that only read the observation (LogReport).
PRIORITY_READER = 100


class Extension:
    """Base class of trainer extensions.

    Subclasses implement ``__call__(trainer)``.  Class attributes
    ``trigger`` (``(1, 'iteration')`` by default) and ``priority``
    (``PRIORITY_READER``) are the defaults ``Trainer.extend`` uses when it
    is not given them.
    """

    trigger = 1, 'iteration'
    priority = PRIORITY_READER
    name = None

    @property
    def default_name(self):
        """The name used when ``extend`` is given none: the class name."""
        return type(self).__name__

    def __call__(self, trainer):
        raise NotImplementedError(
            '{}: an Extension subclass must implement __call__(trainer)'
            .format(type(self).__name__))

    def initialize(self, trainer):
        """Called once before the training loop (also on resume)."""

    def finalize(self):
        """Called once after the training loop, even when it failed."""

    def on_error(self, trainer, exc, tb):
        """Called when the training loop raised ``exc`` (traceback ``tb``)."""

    def serialize(self, serializer):
        """Save or load the extension's state (nothing by default)."""


def make_extension(trigger=None, default_name=None, priority=None,
                   finalizer=None, initializer=None, on_error=None,
                   **kwargs):
    """Decorator turning a function ``f(trainer)`` into an extension.

    It sets the attributes ``Trainer.extend`` reads: ``trigger``
    (``(1, 'iteration')`` when None), ``default_name`` (the function's
    name when None), ``priority`` (``PRIORITY_READER`` when None),
    ``finalize``, ``initialize`` and ``on_error``.

    >>> @make_extension(trigger=(1, 'epoch'))
    ... def print_epoch(trainer):
    ...     print(trainer.updater.epoch)
    """
    if 'invoke_before_training' in kwargs:
        raise ValueError(
            'make_extension: invoke_before_training has been removed (since '
            'Chainer v2); pass initializer= instead')
    if kwargs:
        raise TypeError(
            'make_extension: unexpected keyword arguments {}'.format(
                ', '.join(sorted(kwargs))))
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = Extension.priority

    def decorator(ext):
        if not callable(ext):
            raise TypeError(
                'make_extension: expected a callable to decorate, got '
                '{}'.format(type(ext).__name__))
        ext.trigger = trigger
        ext.default_name = default_name or getattr(
            ext, '__name__', type(ext).__name__)
        ext.priority = priority
        ext.finalize = finalizer
        ext.on_error = on_error
        ext.initialize = initializer
        return ext

    return decorator
