"""Test attributes (pytest marks), as in ``chainer.testing.attr``.

``gpu``, ``multi_gpu(n)``, ``cudnn``, ``ideep``, ``slow`` and ``chainerx``
mark a test (function, method or class) with the pytest mark of the same
name (``multi_gpu`` marks ``gpu``), so ``-m 'not gpu'`` deselects them.
Unlike Chainer, which runs a GPU test and lets it fail where there is no
GPU, these also skip the test where it cannot run: ``gpu``/``multi_gpu``
without CuPy or without enough devices (``CHAINER_TEST_GPU_LIMIT`` caps the
devices tests may use, as in Chainer), ``cudnn`` without cuDNN, ``ideep``
without cpuframe's oneDNN module, ``chainerx`` always (cpuframe has no
ChainerX).

pytest is imported when a mark is applied, not when this module is.
"""
import os


def get_error():
    """The ImportError of pytest, or None when pytest is importable."""
    try:
        import pytest  # noqa: F401
    except ImportError as e:
        return e
    return None


def is_available():
    """True when pytest (which the marks need) is importable."""
    return get_error() is None


def check_available():
    """Raise RuntimeError saying why the marks cannot work (no pytest)."""
    error = get_error()
    if error is not None:
        raise RuntimeError('{} is not available.\n\nReason: {}: {}'.format(
            __name__, type(error).__name__, error))


def _dummy_callable(*args, **kwargs):
    """What a mark is without pytest (Chainer's name; libraries import it)."""
    check_available()
    raise RuntimeError('cpuframe.testing.attr: pytest is available; use the '
                       'marks')


def _pytest():
    try:
        import pytest
    except ImportError as e:
        raise RuntimeError(
            'cpuframe.testing.attr: the test attributes are pytest marks; '
            'install pytest ({})'.format(e)) from e
    return pytest


def _gpu_limit():
    return int(os.environ.get('CHAINER_TEST_GPU_LIMIT', '-1'))


def _gpu_count():
    from cpuframe.backends import cuda
    if cuda.cupy is None or not cuda.available:
        return 0
    return cuda._count_devices()


def _apply(marks, args, kwargs):
    """Apply ``marks`` as a decorator, or return the decorator when called
    with arguments (``@attr.slow`` and ``@attr.slow()`` both work)."""
    def decorate(f):
        for mark in marks:
            f = mark(f)
        return f
    if len(args) == 1 and not kwargs and callable(args[0]):
        return decorate(args[0])
    if args or kwargs:
        raise TypeError('expected a test to decorate, got {!r} {!r}'.format(
            args, kwargs))
    return decorate


def gpu_skip_reason(gpu_num=1):
    """Why a test needing ``gpu_num`` GPUs cannot run here (None: it can)."""
    limit = _gpu_limit()
    if 0 <= limit < gpu_num:
        return '{} GPU(s) required; CHAINER_TEST_GPU_LIMIT={}'.format(
            gpu_num, limit)
    from cpuframe.backends import cuda
    if cuda.cupy is None:
        return 'CuPy is not available ({} GPU(s) required)'.format(gpu_num)
    count = _gpu_count()
    if count < gpu_num:
        return '{} GPU(s) required, {} found'.format(gpu_num, count)
    return None


def multi_gpu(gpu_num):
    """Mark a test ``gpu`` needing ``gpu_num`` GPUs; skipped without them."""
    if not isinstance(gpu_num, int) or gpu_num < 1:
        raise ValueError('multi_gpu: expected a positive number of GPUs, got '
                         '{!r}'.format(gpu_num))
    pytest = _pytest()
    reason = gpu_skip_reason(gpu_num)

    def decorator(f):
        f = pytest.mark.gpu(f)
        return pytest.mark.skipif(reason is not None,
                                  reason=reason or '')(f)
    return decorator


def gpu(*args, **kwargs):
    """Mark a test ``gpu``; skipped without CuPy and a GPU."""
    return _apply([multi_gpu(1)], args, kwargs)


def cudnn(*args, **kwargs):
    """Mark a test ``cudnn``; skipped without a GPU and cuDNN."""
    pytest = _pytest()
    from cpuframe.backends import cuda
    reason = gpu_skip_reason(1)
    if reason is None and not cuda.cudnn_enabled:
        reason = 'cuDNN is not available'
    return _apply([pytest.mark.cudnn,
                   pytest.mark.skipif(reason is not None,
                                      reason=reason or '')], args, kwargs)


def ideep(*args, **kwargs):
    """Mark a test ``ideep``; skipped when cpuframe's oneDNN module is
    missing."""
    pytest = _pytest()
    from cpuframe.backends import intel64
    available = intel64.is_ideep_available()
    reason = None if available else \
        'the intel64 backend is not available: {}'.format(
            intel64.unavailable_reason())
    return _apply([pytest.mark.ideep,
                   pytest.mark.skipif(not available, reason=reason or '')],
                  args, kwargs)


def chainerx(*args, **kwargs):
    """Mark a test ``chainerx``; always skipped (cpuframe has no ChainerX)."""
    pytest = _pytest()
    return _apply([pytest.mark.chainerx,
                   pytest.mark.skip(reason='ChainerX is not supported by '
                                    'cpuframe')], args, kwargs)


def slow(*args, **kwargs):
    """Mark a test ``slow`` (deselect with ``-m 'not slow'``)."""
    return _apply([_pytest().mark.slow], args, kwargs)
