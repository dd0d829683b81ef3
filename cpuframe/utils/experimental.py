"""Marking APIs as experimental."""
import warnings


def experimental(api_name):
    """Warn (FutureWarning) that ``api_name`` is experimental.

    Call it inside the experimental function (or ``__init__``).  Setting
    ``cpuframe.disable_experimental_feature_warning = True`` silences it;
    Python's default warning filter already shows it once per call site.
    """
    import cpuframe
    if not cpuframe.disable_experimental_feature_warning:
        warnings.warn('{} is experimental. The interface can change in the '
                      'future.'.format(api_name), FutureWarning, stacklevel=3)
