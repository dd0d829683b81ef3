import os
import subprocess
import sys
import threading

import numpy
import pytest

import cpuframe
from cpuframe import config, global_config, using_config


def test_defaults():
    assert config.train is True
    assert config.enable_backprop is True
    assert config.type_check is True
    assert config.debug is False
    assert config.use_cudnn == 'auto'
    assert config.cudnn_deterministic is False
    assert config.autotune is False
    assert config.keep_graph_on_report is False
    assert config.lazy_grad_sum is False
    assert config.dtype == numpy.float32


def test_using_config_restores_even_on_error():
    with pytest.raises(KeyError):
        with using_config('train', False):
            assert config.train is False
            raise KeyError
    assert config.train is True


def test_nested_using_config():
    with using_config('train', False):
        with using_config('train', True):
            assert config.train is True
        assert config.train is False
    assert config.train is True


def test_thread_local():
    seen = []
    with using_config('train', False):
        t = threading.Thread(target=lambda: seen.append(config.train))
        t.start()
        t.join()
        assert config.train is False
    assert seen == [True]


@pytest.mark.parametrize('value', ['never', 'auto', 'always'])
def test_use_ideep_valid(value):
    with using_config('use_ideep', value):
        assert config.use_ideep == value


@pytest.mark.parametrize('value', ['sometimes', True, None, 'Auto'])
def test_use_ideep_invalid(value):
    # As in Chainer 7, any value may be set; what reads it (the route
    # choice, should_use_ideep) rejects one it cannot act on.
    import numpy

    import cpuframe.functions as F
    from cpuframe.backends import intel64
    with using_config('use_ideep', value):
        assert config.use_ideep is value
        arrays = [numpy.ones(2, numpy.float32)]
        if intel64.is_ideep_available():   # and on the device
            arrays.append(intel64.mdarray.from_numpy(arrays[0]))
        for x in arrays:
            with pytest.raises(ValueError) as e:
                F.relu(x)
            msg = str(e.value)
            assert 'use_ideep' in msg and "'never'" in msg and \
                "'always'" in msg
        with pytest.raises(ValueError):
            intel64.should_use_ideep('>=auto')
    assert config.use_ideep in ('never', 'auto', 'always')
    old = global_config.use_ideep
    try:
        global_config.use_ideep = value
        assert global_config.use_ideep is value
    finally:
        global_config.use_ideep = old


def _use_ideep_in_subprocess(env):
    full = dict(os.environ)
    for k in ('CPUFRAME_USE_IDEEP', 'CHAINER_USE_IDEEP'):
        full.pop(k, None)
    full.update(env)
    out = subprocess.run(
        [sys.executable, '-c',
         'import cpuframe; print(cpuframe.config.use_ideep)'],
        env=full, capture_output=True, text=True)
    return out


@pytest.mark.parametrize('env,expected', [
    ({}, 'auto'),
    ({'CHAINER_USE_IDEEP': 'never'}, 'never'),
    ({'CPUFRAME_USE_IDEEP': 'always', 'CHAINER_USE_IDEEP': 'never'}, 'always'),
])
def test_use_ideep_from_environment(env, expected):
    out = _use_ideep_in_subprocess(env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected


def test_use_ideep_bad_environment_value():
    out = _use_ideep_in_subprocess({'CPUFRAME_USE_IDEEP': 'fast'})
    assert out.returncode != 0
    assert 'CPUFRAME_USE_IDEEP' in out.stderr and 'fast' in out.stderr


def test_dtype_validation():
    with pytest.raises(ValueError, match='config.dtype'):
        config.dtype = numpy.int32


def test_debug_helpers():
    assert not cpuframe.is_debug()
    with cpuframe.DebugMode(True):
        assert cpuframe.is_debug()
    assert not cpuframe.is_debug()


def test_show(capsys):
    config.show()
    out = capsys.readouterr().out
    assert 'use_ideep' in out and 'enable_backprop' in out


def test_libraries_add_their_own_keys():
    # e.g. ChainerCV: chainer.global_config.cv_resize_backend = 'cv2'
    assert not hasattr(config, 'cv_resize_backend')
    global_config.cv_resize_backend = 'cv2'
    try:
        assert config.cv_resize_backend == 'cv2'
        assert cpuframe.config.cv_resize_backend == 'cv2'
        with using_config('cv_resize_backend', 'PIL'):
            assert config.cv_resize_backend == 'PIL'
            assert global_config.cv_resize_backend == 'cv2'
            seen = []
            t = threading.Thread(
                target=lambda: seen.append(config.cv_resize_backend))
            t.start()
            t.join()
            assert seen == ['cv2']       # thread-local override
        assert config.cv_resize_backend == 'cv2'
        # A key only the thread sets, unknown to global_config.
        with using_config('my_library_flag', 3):
            assert config.my_library_flag == 3
        assert not hasattr(config, 'my_library_flag')
        config.cv_resize_backend = 'PIL'  # thread-local assignment
        assert config.cv_resize_backend == 'PIL'
        del config.cv_resize_backend
        assert config.cv_resize_backend == 'cv2'
        out = __import__('io').StringIO()
        config.show(out)
        assert 'cv_resize_backend' in out.getvalue()
    finally:
        del global_config.cv_resize_backend
    with pytest.raises(AttributeError):
        _ = config.cv_resize_backend


def test_known_keys_are_still_validated_next_to_new_ones():
    global_config.some_new_key = object()
    try:
        with pytest.raises(ValueError, match='use_cudnn'):
            with using_config('use_cudnn', 'sometimes'):
                pass
        assert config.use_cudnn in ('never', 'auto', 'always')
    finally:
        del global_config.some_new_key
