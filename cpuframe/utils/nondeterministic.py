"""Warning about non-deterministic computations."""
import warnings

from cpuframe.configuration import config


def nondeterministic(f_name):
    """Warn that ``f_name`` may run non-deterministically, when
    ``config.warn_nondeterministic`` is set."""
    if getattr(config, 'warn_nondeterministic', False):
        warnings.warn('Potentially non-deterministic code is being executed '
                      'while config.warn_nondeterministic set. Source: ' +
                      f_name, stacklevel=2)
