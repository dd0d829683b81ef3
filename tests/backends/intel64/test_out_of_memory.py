"""An output too large to allocate raises MemoryError naming the op, the
shapes and the bytes, like the NumPy path does (issue 11: oneDNN routes
raised a bare ``MemoryError: std::bad_alloc``).

The outputs asked for are terabytes (the deconvolution's in a layout
blocked by 16 channels): no machine this runs on has them, and the
allocation fails before any page is touched.
"""
import re

import numpy
import pytest

import cpuframe.functions as F
from cpuframe import Variable
from cpuframe.backends import intel64
from cpuframe.configuration import using_config

ONE = numpy.ones((1, 1, 1, 1), numpy.float32)
TWO = numpy.ones((1, 1, 2, 2), numpy.float32)

CASES = {
    'convolution_2d': (lambda x: F.convolution_2d(x, ONE, pad=600000),
                       ONE, 'convolution_forward', '(1, 1, 1200001, 1200001)'),
    'deconvolution_2d': (lambda x: F.deconvolution_2d(
        x, ONE, stride=300000, outsize=(300000, 300000)),
        ONE, 'convolution_backward_data', '(1, 1, 300000, 300000)'),
    'depthwise_convolution_2d': (
        lambda x: F.depthwise_convolution_2d(x, ONE, pad=600000),
        ONE, 'convolution_forward', '(1, 1, 1200001, 1200001)'),
    'linear': (lambda x: F.linear(x, numpy.ones((900000, 1), numpy.float32)),
               numpy.ones((900000, 1), numpy.float32), 'linear_forward',
               '(900000, 900000)'),
    'max_pooling_2d': (lambda x: F.max_pooling_2d(
        x, 600001, stride=1, pad=600000, cover_all=False),
        TWO, 'pooling_forward', '(1, 1, 600002, 600002)'),
    'average_pooling_2d': (lambda x: F.average_pooling_2d(
        x, 600001, stride=1, pad=600000),
        TWO, 'pooling_forward', '(1, 1, 600002, 600002)'),
}


@pytest.mark.parametrize('where', ['numpy', 'device'])
@pytest.mark.parametrize('name', sorted(CASES))
def test_huge_output_names_op_shape_and_bytes(name, where):
    f, x, op, shape = CASES[name]
    x = intel64.from_numpy(x) if where == 'device' else x.copy()
    with using_config('use_ideep', 'always'):
        with pytest.raises(MemoryError) as e:
            f(Variable(x))
    message = str(e.value)
    assert message.startswith(op + ': out of memory for '), message
    assert 'for an array of shape ' + shape in message, message
    assert re.search(r'could not allocate [\d.]+ TiB \(\d+ bytes\)', message), message
    assert 'std::bad_alloc' not in message
