"""Backend configurations for tests (``chainer.testing.backend``).

    @testing.inject_backend_tests(
        None,
        [{}, {'use_ideep': 'always'}, {'use_cuda': True}])
    class TestFoo(unittest.TestCase):
        def test_forward(self, backend_config):
            x = backend_config.get_array(numpy.ones((2, 3), 'f'))
            with backend_config:
                y = F.relu(x)

A ``BackendConfig`` names a device and the configuration values a test runs
under: ``use_ideep`` other than ``'never'`` means cpuframe's Intel64
(oneDNN) device, ``use_cuda`` a CuPy GPU (``cuda_device``, 0 by default),
``use_chainerx`` a ChainerX device (not supported by cpuframe: such tests
are generated but always skipped).
"""
import functools
import inspect

from cpuframe.testing import _bundle, attr


class BackendConfig:
    """One backend configuration of a test.

    Args:
        params (dict): any of ``use_chainerx``, ``chainerx_device``,
            ``use_cuda``, ``cuda_device``, ``use_cudnn``,
            ``cudnn_deterministic``, ``autotune``,
            ``cudnn_fast_batch_normalization`` and ``use_ideep``; the others
            keep their defaults (everything off, ``'never'``).

    Used as a context manager it applies ``use_cudnn``,
    ``cudnn_deterministic``, ``autotune``,
    ``cudnn_fast_batch_normalization`` and ``use_ideep`` to
    ``cpuframe.config`` and makes ``device`` the current device.
    """

    _props = (
        ('use_chainerx', False),
        ('chainerx_device', None),
        ('use_cuda', False),
        ('cuda_device', None),
        ('use_cudnn', 'never'),
        ('cudnn_deterministic', False),
        ('autotune', False),
        ('cudnn_fast_batch_normalization', False),
        ('use_ideep', 'never'),
    )
    _config_keys = ('use_cudnn', 'cudnn_deterministic', 'autotune',
                    'cudnn_fast_batch_normalization', 'use_ideep')

    def __init__(self, params):
        if not isinstance(params, dict):
            raise TypeError('BackendConfig: expected a dict, got {}'.format(
                type(params).__name__))
        known = dict(self._props)
        for key in params:
            if key not in known:
                raise ValueError(
                    'BackendConfig: unknown parameter {!r}; expected one of '
                    '{}'.format(key, ', '.join(sorted(known))))
        for key, default in self._props:
            setattr(self, key, params.get(key, default))
        self._device = None
        self._contexts = []
        if self.use_chainerx and not isinstance(self.chainerx_device, str):
            raise ValueError(
                "BackendConfig: use_chainerx needs 'chainerx_device', a "
                "ChainerX device name such as 'native:0', got {!r}".format(
                    self.chainerx_device))
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0
        # (use_ideep takes any value, as in Chainer: the ops reject a bad one)
        for key in ('use_cudnn',):
            if getattr(self, key) not in ('never', 'auto', 'always'):
                raise ValueError(
                    "BackendConfig: {} must be 'never', 'auto' or 'always', "
                    "got {!r}".format(key, getattr(self, key)))

    @property
    def device(self):
        """The ``cpuframe.backend.Device`` of this configuration."""
        if self._device is None:
            from cpuframe import backend
            if self.use_chainerx:
                raise RuntimeError(
                    'BackendConfig: ChainerX devices ({!r}) are not supported '
                    'by cpuframe'.format(self.chainerx_device))
            if self.use_cuda:
                self._device = backend.GpuDevice.from_device_id(
                    self.cuda_device)
            elif self.use_ideep != 'never':
                self._device = backend.Intel64Device()
            else:
                self._device = backend.CpuDevice()
        return self._device

    @property
    def xp(self):
        """The array module of ``device``."""
        return self.device.xp

    def get_array(self, np_array):
        """Send an array (or a tuple/list of them) to ``device``."""
        return self.device.send(np_array)

    def using_config(self):
        """This configuration as a context manager (same as ``with self``)."""
        return self

    def __enter__(self):
        import contextlib

        from cpuframe import backend
        from cpuframe.configuration import using_config
        stack = contextlib.ExitStack()
        try:
            for key in self._config_keys:
                stack.enter_context(using_config(key, getattr(self, key)))
            stack.enter_context(backend.using_device(self.device))
        except BaseException:
            stack.close()
            raise
        self._contexts.append(stack)
        return self

    def __exit__(self, typ, value, traceback):
        self._contexts.pop().__exit__(typ, value, traceback)

    def __repr__(self):
        return '<BackendConfig {}>'.format(' '.join(
            '{}={!r}'.format(k, getattr(self, k)) for k, _ in self._props))

    def get_func_str(self):
        """A string naming this configuration, usable in an identifier."""
        parts = []
        for key, _ in self._props:
            value = getattr(self, key)
            value = {True: 'true', False: 'false'}.get(value, value) \
                if isinstance(value, bool) else value
            parts.append('{}_{}'.format(key, str(value).replace(':', '_')))
        return '__'.join(parts)

    def _class_suffix(self):
        """The non-default settings, for generated class names."""
        parts = []
        for key, default in self._props:
            value = getattr(self, key)
            if value == default or (key == 'cuda_device' and value == 0):
                continue
            value = {True: 'true', False: 'false'}.get(value, value) \
                if isinstance(value, bool) else value
            parts.append('{}_{}'.format(key, str(value).replace(':', '_')))
        return '__'.join(parts) or 'numpy'

    def get_pytest_marks(self):
        """The ``attr`` decorators a test of this configuration needs."""
        marks = []
        if self.use_chainerx:
            marks.append(attr.chainerx)
            kind, _, index = self.chainerx_device.partition(':')
            if kind == 'cuda':
                index = int(index or 0)
                marks.append(attr.multi_gpu(index + 1))
        elif self.use_cuda:
            marks.append(attr.multi_gpu(self.cuda_device + 1))
            if self.use_cudnn != 'never':
                marks.append(attr.cudnn)
        elif self.use_ideep != 'never':
            marks.append(attr.ideep)
        return marks


def _without_first_argument(method):
    """The signature of ``method`` less the parameter after ``self``."""
    try:
        sig = inspect.signature(method)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if len(params) >= 2:
        del params[1]
    return sig.replace(parameters=params)


def _inject(method, backend_config, marks):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return method(self, backend_config, *args, **kwargs)
    # pytest reads fixtures from the signature: hide backend_config.
    del wrapper.__wrapped__
    sig = _without_first_argument(method)
    if sig is not None:
        wrapper.__signature__ = sig
    for mark in marks:
        wrapper = mark(wrapper)
    return wrapper


def inject_backend_tests(method_names, params):
    """Class decorator: one copy of the class per backend configuration.

    Args:
        method_names: the test methods that take ``backend_config`` (their
            second argument), or ``None`` for every ``test*`` method.
        params (list of dict): one ``BackendConfig`` parameter dict per
            configuration.

    Each generated class ``<Class>__<non-default settings>`` (e.g.
    ``TestFoo__use_ideep_always``; ``TestFoo__numpy`` for ``{}``) runs the
    methods with its ``BackendConfig``; GPU, cuDNN, ChainerX and iDeep
    configurations carry the matching ``attr`` marks (and skip where they
    cannot run).  Stacks with ``parameterize``.
    """
    if not (method_names is None or isinstance(method_names, list)):
        raise TypeError('inject_backend_tests: method_names must be None or '
                        'a list, got {!r}'.format(method_names))
    if not isinstance(params, list) or \
            not all(isinstance(p, dict) for p in params):
        raise TypeError('inject_backend_tests: params must be a list of '
                        'dicts, got {!r}'.format(params))
    configs = [BackendConfig(p) for p in params]

    def generator(base):
        if method_names is not None:
            for name in method_names:
                if not callable(getattr(base, name, None)):
                    raise ValueError(
                        'inject_backend_tests: {} has no method {!r}'.format(
                            base.__name__, name))
        seen = set()
        for config in configs:
            name = '{}__{}'.format(base.__name__, config._class_suffix())
            suffix = 1
            while name in seen:
                suffix += 1
                name = '{}__{}_{}'.format(base.__name__,
                                          config._class_suffix(), suffix)
            seen.add(name)
            marks = config.get_pytest_marks()

            def method_generator(method, config=config, marks=marks):
                if method_names is not None and \
                        method.__name__ not in method_names:
                    return method
                return _inject(method, config, marks)
            yield name, {'_backend_config': config}, method_generator
    return _bundle.make_decorator(generator)
