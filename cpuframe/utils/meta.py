"""``final`` methods: overriding them in a subclass raises (or warns)."""
import warnings

_ACTION = '_cpuframe_override_action'


def final(*args, **kwargs):
    """Declare a method final: ``@final`` or ``@final(action=Warning)``.

    Overriding it in a subclass raises TypeError (or ``action``, an
    Exception or Warning class).  The defining class must derive from a
    base returned by :func:`enable_final`.
    """
    def wrap(f, action=TypeError):
        if not callable(f):
            raise TypeError('final: expected a callable, got {!r}'.format(f))
        setattr(f, _ACTION, action)
        return f

    if not kwargs and len(args) == 1:
        return wrap(args[0])
    if args:
        raise TypeError('final: use @final or @final(action=...)')
    return lambda f: wrap(f, **kwargs)


class _EnableFinal(type):

    def __new__(mcs, name, bases, namespace):
        for key in namespace:
            for base in bases:
                action = getattr(getattr(base, key, None), _ACTION, None)
                if action is None:
                    continue
                if issubclass(action, Warning):
                    warnings.warn('Overriding method {!r}.'.format(key),
                                  action, stacklevel=2)
                elif issubclass(action, Exception):
                    raise action('method {!r} is final.'.format(key))
                else:
                    raise TypeError('Invalid action: {}'.format(action))
        return super().__new__(mcs, name, bases, namespace)


def enable_final(base=(), meta_base=()):
    """A base class whose subclasses honour :func:`final`.

    Args:
        base: base class(es) of the returned class.
        meta_base: metaclass(es) to combine with, to avoid a metaclass
            conflict with bases that have their own.
    """
    if not isinstance(base, (list, tuple)):
        base = (base,)
    if not isinstance(meta_base, (list, tuple)):
        meta_base = (meta_base,)
    metaclass = type('base_metaclass', (_EnableFinal,) + tuple(meta_base), {})
    return metaclass('FinalEnabledBase', tuple(base) or (object,), {})
