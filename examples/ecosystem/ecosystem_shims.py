"""Driver-side shims for Chainer API gaps of cpuframe (ecosystem discovery).

Each shim fills in ONE documented Chainer 7 module path / name that cpuframe
lacks today, only when it is missing, so that the driver scripts can get
past it and find the next failure.  They are NOT fixes: every shim is listed
in the notes of the cpuframe issue that added them, with the file where the real fix
belongs.  ``applied`` lists the shims that were actually needed in this run.

Import this module after ``import chainer`` (under ``python -m
cpuframe.compat``, ``chainer`` is cpuframe).  ``ECOSYSTEM_NO_SHIMS=1`` in the
environment turns the cpuframe shims off (the library-side workarounds for
gym / Python 3.10+, install_gym_compat and install_py310_compat, stay on).
"""
import collections.abc
import contextlib
import importlib
import importlib.util
import sys
import types

import chainer

applied = []
_ROOT = chainer.__name__  # 'cpuframe' under the compat runner


def _has_module(name):
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False


def _module(path, **attrs):
    """Create module ``<root>.<path>`` (if missing) and set missing attrs."""
    full = _ROOT + '.' + path
    if _has_module(full):
        mod = importlib.import_module(full)
        if isinstance(mod, types.ModuleType):
            missing = {k: v for k, v in attrs.items() if not hasattr(mod, k)}
            for k, v in missing.items():
                setattr(mod, k, v)
            if missing:
                applied.append('chainer.%s: added %s' % (path, sorted(missing)))
            return mod
        # (b) a submodule shadowed by a function / class of the same name
        applied.append('chainer.%s: shadowed by %r, replaced by a module'
                       % (path, mod))
    else:
        applied.append('chainer.%s: module created' % path)
    mod = types.ModuleType(full)
    mod.__spec__ = importlib.util.spec_from_loader(full, loader=None)
    for k, v in attrs.items():
        setattr(mod, k, v)
    sys.modules[full] = mod
    sys.modules['chainer.' + path] = mod
    parent, _, child = full.rpartition('.')
    parent_mod = importlib.import_module(parent)
    if not isinstance(getattr(parent_mod, child, None), types.ModuleType):
        # Keep an existing function attribute (e.g. F.batch_normalization);
        # only set the attribute when nothing is there.
        if not hasattr(parent_mod, child):
            setattr(parent_mod, child, mod)
    return mod


def _attr(path, name, value):
    mod = importlib.import_module(_ROOT + '.' + path if path else _ROOT)
    if not hasattr(mod, name):
        setattr(mod, name, value)
        applied.append('chainer%s.%s: added' % ('.' + path if path else '',
                                               name))


# --- chainer.utils.argument (known, being fixed) ----------------------------
def _check_unexpected_kwargs(kwargs, **unexpected):
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def _parse_kwargs(kwargs, *name_and_values, **unexpected):
    values = [kwargs.pop(name, default_value)
              for name, default_value in name_and_values]
    if kwargs:
        _check_unexpected_kwargs(kwargs, **unexpected)
        caller = sys._getframe(1)
        args = ', '.join(repr(arg) for arg in sorted(kwargs.keys()))
        raise TypeError('{}() got unexpected keyword argument(s) {}'.format(
            caller.f_code.co_name, args))
    return tuple(values)


def _assert_kwargs_empty(kwargs):
    if kwargs:
        raise TypeError('got unexpected keyword argument(s) %s'
                        % ', '.join(sorted(kwargs)))


def _experimental(api_name):
    pass


def _dummy_callable(*args, **kwargs):
    def deco(f):
        return f
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return deco


def _run_module(name, file):
    if name == '__main__':
        import pytest
        pytest.main([file, '-vvs', '-x', '--pdb'])


def install():
    """Apply the cpuframe shims; ECOSYSTEM_NO_SHIMS=1 skips them all (to see
    the first failure as cpuframe is today)."""
    import os
    if os.environ.get('ECOSYSTEM_NO_SHIMS') == '1':
        applied.append('(ECOSYSTEM_NO_SHIMS=1: no cpuframe shim applied)')
        return applied
    import chainer.initializers  # noqa
    import chainer.function  # noqa
    import chainer.testing  # noqa

    _module('utils.argument',
            check_unexpected_kwargs=_check_unexpected_kwargs,
            parse_kwargs=_parse_kwargs,
            assert_kwargs_empty=_assert_kwargs_empty)
    _module('utils.experimental', experimental=_experimental)
    _module('utils.collections_abc',
            **{k: getattr(collections.abc, k) for k in collections.abc.__all__})
    # In Chainer, chainer.utils.experimental is the FUNCTION (utils/__init__
    # does `from chainer.utils.experimental import experimental`).
    import chainer.utils as _u
    if isinstance(getattr(_u, 'experimental', None), types.ModuleType):
        _u.experimental = _u.experimental.experimental

    # chainer.initializer (module with class Initializer) and
    # chainer.initializers.constant (module with Zero, One, Constant, ...)
    ini = chainer.initializers
    _module('initializer', Initializer=ini.Initializer,
            get_fans=getattr(ini, 'get_fans', None))
    _module('initializers.constant', Constant=ini.Constant, Zero=ini.Zero,
            One=ini.One, NaN=ini.NaN, Identity=ini.Identity)
    _module('initializers.normal', Normal=ini.Normal,
            LeCunNormal=ini.LeCunNormal, GlorotNormal=ini.GlorotNormal,
            HeNormal=ini.HeNormal)
    _module('initializers.uniform', Uniform=ini.Uniform,
            LeCunUniform=ini.LeCunUniform, GlorotUniform=ini.GlorotUniform,
            HeUniform=ini.HeUniform)

    # chainer.function.no_backprop_mode / force_backprop_mode
    _attr('function', 'no_backprop_mode', chainer.no_backprop_mode)
    _attr('function', 'force_backprop_mode', chainer.force_backprop_mode)

    # chainer.computational_graph (only imported by chainerrl.misc)
    def _build_computational_graph(*args, **kwargs):
        raise NotImplementedError('shim: chainer.computational_graph')
    _module('computational_graph',
            build_computational_graph=_build_computational_graph)

    # chainer.testing.run_module / chainer.testing.attr
    _attr('testing', 'run_module', _run_module)
    _module('testing.attr', check_available=lambda: None, gpu=_dummy_callable,
            multi_gpu=_dummy_callable, slow=_dummy_callable,
            ideep=_dummy_callable, cudnn=_dummy_callable,
            _dummy_callable=_dummy_callable)
    # (b) chainer.functions.normalization.batch_normalization is shadowed by
    # the function; chainermn subclasses its GeneralBatchNormalizationImpl
    # (known, being fixed).  Point the package attribute at the submodule and
    # give it a placeholder base class so chainermn imports.
    unshadow('functions.normalization.batch_normalization')

    class GeneralBatchNormalizationImpl(object):
        """shim placeholder: cpuframe has no impl_selector support."""
    _attr('functions.normalization.batch_normalization',
          'GeneralBatchNormalizationImpl', GeneralBatchNormalizationImpl)
    # Link._device_id (Chainer 7 keeps it for backward compatibility: the
    # CUDA device id, None on CPU); chainerrl.links.FactorizedNoisyLinear
    if not hasattr(chainer.Link, '_device_id'):
        chainer.Link._device_id = property(lambda self: None)
        applied.append('chainer.Link._device_id: added (None on CPU)')

    # (c) Variable.backward() with grad unset on a variable of size != 1:
    # Chainer 7 starts backprop with no initial gradient (ChainerMN's
    # `phi = send(...); phi.backward()` on an empty delegate variable);
    # cpuframe raises ValueError.  Shim: an explicit zero gradient.
    _orig_backward = chainer.Variable.backward
    if not getattr(_orig_backward, '_ecosystem_shim', False):
        import numpy

        def backward(self, *args, **kwargs):
            if self.grad_var is None and self.array is not None \
                    and self.array.size != 1 and self.creator is not None:
                try:
                    return _orig_backward(self, *args, **kwargs)
                except ValueError as e:
                    if 'initial gradient' not in str(e):
                        raise
                    self.grad = numpy.zeros(self.shape, self.dtype)
            return _orig_backward(self, *args, **kwargs)
        backward._ecosystem_shim = True
        chainer.Variable.backward = backward
        applied.append('chainer.Variable.backward: zero initial grad when '
                       'size != 1 (Chainer does not raise)')

    # chainer.mixed16 and chainer.get_dtype(dtype=None, map_mixed16=None)
    # (chainermn.links.MultiNodeBatchNormalization.__init__)
    if not hasattr(chainer, 'mixed16'):
        class _Mixed16(object):
            def __repr__(self):
                return "dtype('mixed16')"
        chainer.mixed16 = _Mixed16()
        applied.append('chainer.mixed16: added')
    import inspect
    if 'map_mixed16' not in inspect.signature(chainer.get_dtype).parameters:
        _orig_get_dtype = chainer.get_dtype

        def get_dtype(dtype=None, map_mixed16=None):
            if dtype is None:
                dtype = chainer.config.dtype
            if dtype is chainer.mixed16:
                dtype = map_mixed16 if map_mixed16 is not None else 'float16'
            return _orig_get_dtype(dtype)
        chainer.get_dtype = get_dtype
        applied.append('chainer.get_dtype: map_mixed16 argument added')
    return applied


def unshadow(path):
    """(b): make ``from chainer.<parent> import <child>`` give the module."""
    full = _ROOT + '.' + path
    mod = importlib.import_module(full)
    if not isinstance(mod, types.ModuleType):
        mod = sys.modules[full]
    parent, _, child = full.rpartition('.')
    parent_mod = importlib.import_module(parent)
    if getattr(parent_mod, child, None) is not mod:
        setattr(parent_mod, child, mod)
        applied.append('chainer.%s: unshadowed (was a function)' % path)


@contextlib.contextmanager
def _noop():
    yield


def install_py310_compat():
    """(d) ChainerRL 0.8.0 uses ``collections.Iterable`` (removed in Python
    3.10) in chainerrl/recurrent.py (A3C's unchain_backward)."""
    import collections
    for name in ('Iterable', 'Sequence', 'Mapping'):
        if not hasattr(collections, name):
            setattr(collections, name, getattr(collections.abc, name))
            applied.append('collections.%s: alias of collections.abc (py3.10+)'
                           % name)


def install_gym_compat():
    """(d) ChainerRL 0.8.0 vs gym 0.26: gym.wrappers.Monitor and
    gym.wrappers.monitoring.stats_recorder were removed from gym (0.22+).
    ChainerRL imports them at ``import chainerrl``; give it placeholders."""
    import gym
    import gym.wrappers
    if not hasattr(gym.wrappers, 'Monitor'):
        gym.wrappers.Monitor = type('Monitor', (gym.Wrapper,), {})
        applied.append('gym.wrappers.Monitor: placeholder (gym>=0.22)')
    name = 'gym.wrappers.monitoring.stats_recorder'
    if name not in sys.modules:
        try:
            importlib.import_module(name)
        except ImportError:
            mod = types.ModuleType(name)
            mod.StatsRecorder = type('StatsRecorder', (object,), {})
            sys.modules[name] = mod
            applied.append('%s: placeholder (gym>=0.22)' % name)
