import numpy
import pytest

import cpuframe
from cpuframe import backend
from cpuframe.backends import cuda, intel64


@pytest.mark.parametrize('spec', ['@numpy', -1, '-1', numpy, backend.cpu_device,
                                  cuda.DummyDevice])
def test_cpu_specifiers(spec):
    d = backend.get_device(spec)
    assert isinstance(d, backend.CpuDevice)
    assert d.xp is numpy and d.name == '@numpy'


@pytest.mark.parametrize('spec', ['@foo', 'cpu', 1.5, None, 'native:0'])
def test_bad_specifiers(spec):
    with pytest.raises(ValueError, match='get_device'):
        backend.get_device(spec)


@pytest.mark.skipif(cuda.available, reason='a GPU is present')
@pytest.mark.parametrize('spec', ['@cupy:0', 0, '0'])
def test_gpu_specifiers_without_gpu(spec):
    with pytest.raises(RuntimeError, match='CUDA environment'):
        backend.get_device(spec)


def test_intel64_device():
    if intel64.is_ideep_available():
        d = backend.get_device('@intel64')
        assert isinstance(d, backend.Intel64Device) and d.name == '@intel64'
        a = numpy.arange(3, dtype=numpy.float32)
        numpy.testing.assert_array_equal(numpy.asarray(d.send(a)), a)
    else:
        with pytest.raises(RuntimeError, match='cpuframe._dnnl'):
            backend.get_device('@intel64')


def test_intel64_device_without_native(monkeypatch):
    monkeypatch.setattr(intel64, 'is_ideep_available', lambda: False)
    with pytest.raises(RuntimeError, match='could not be loaded'):
        backend.Intel64Device()
    assert not intel64.should_use_ideep('>=auto')


def test_should_use_ideep_levels(monkeypatch):
    monkeypatch.setattr(intel64, 'is_ideep_available', lambda: True)
    with cpuframe.using_config('use_ideep', 'auto'):
        assert intel64.should_use_ideep('>=auto')
        assert not intel64.should_use_ideep('==always')
    with cpuframe.using_config('use_ideep', 'always'):
        assert intel64.should_use_ideep('==always')
    with cpuframe.using_config('use_ideep', 'never'):
        assert not intel64.should_use_ideep('>=auto')
    with pytest.raises(ValueError, match='should_use_ideep'):
        intel64.should_use_ideep('auto')


def test_inputs_all_ready(monkeypatch):
    monkeypatch.setattr(intel64, 'is_ideep_available', lambda: True)
    f4 = numpy.zeros((1, 2, 3, 4), numpy.float32)
    assert intel64.inputs_all_ready((f4, None, numpy.zeros((2, 2), numpy.float32)))
    assert not intel64.inputs_all_ready((f4.astype(numpy.float64),))
    assert not intel64.inputs_all_ready((numpy.zeros(3, numpy.float32),))
    assert intel64.inputs_all_ready((cpuframe.Variable(f4),))


def test_is_ideep_available_reports_reason():
    if intel64.is_ideep_available():
        assert intel64.unavailable_reason() is None
        intel64.check_ideep_available()
    else:
        assert intel64.unavailable_reason()


def test_send_nested_and_array_module():
    d = backend.cpu_device
    a = numpy.ones(2)
    out = d.send({'a': [a, (a, None)], 'b': 3})
    assert out['a'][0] is a and out['a'][1][1] is None and out['b'] == 3
    assert backend.get_array_module(a, cpuframe.Variable(a)) is numpy
    assert cpuframe.get_array_module(a) is numpy
    assert backend.get_device_from_array(a) == backend.cpu_device
    assert backend.get_device_from_array(cpuframe.Variable(a)) == d


def test_using_device_and_context():
    with backend.using_device('@numpy') as d:
        assert d == backend.cpu_device
    with backend.cpu_device as d:
        assert d.xp is numpy


def test_cuda_helpers_on_cpu():
    a = numpy.arange(3)
    assert cuda.get_array_module(a) is numpy
    assert cuda.to_cpu(a) is a
    assert cuda.to_cpu(None) is None
    assert cuda.to_cpu([a, a])[0] is a
    assert cuda.get_device_from_array(a) is cuda.DummyDevice
    if not cuda.available:
        with pytest.raises(RuntimeError, match='CUDA'):
            cuda.to_gpu(a)
    assert cpuframe.cuda is cuda


def test_device_resident():
    class Holder(backend.DeviceResident):
        def __init__(self):
            super().__init__()
            self.a = numpy.ones(2, numpy.float32)
            self.v = cpuframe.Variable(numpy.zeros(2, numpy.float32))

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.a = visitor.visit_array(self.a)
            visitor.visit_variable(self.v)

    h = Holder()
    assert h.device == backend.cpu_device and h.xp is numpy
    assert h.to_cpu() is h
    assert h.to_device(-1) is h
    if intel64.is_ideep_available():
        h.to_intel64()
        assert h.device.name == '@intel64'
        numpy.testing.assert_array_equal(numpy.asarray(h.a), [1, 1])
        h.to_cpu()
        assert isinstance(h.a, numpy.ndarray) and h.device.name == '@numpy'


def test_variable_to_intel64_keeps_values():
    if not intel64.is_ideep_available():
        pytest.skip('native module unavailable: {}'.format(
            intel64.unavailable_reason()))
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    v = cpuframe.Variable(a.copy())
    v.to_intel64()
    v.to_cpu()
    numpy.testing.assert_array_equal(v.array, a)
