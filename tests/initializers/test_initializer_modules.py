"""Chainer 7's module layout of the initializers, and the sampling filters."""
import numpy
import pytest

import cpuframe
from cpuframe import initializer, initializers
from cpuframe.initializers import constant, normal, orthogonal, sampling, uniform


def test_submodules_define_the_classes():
    for mod, names in [
            (constant, ['Identity', 'Constant', 'Zero', 'One', 'NaN']),
            (normal, ['Normal', 'LeCunNormal', 'GlorotNormal', 'HeNormal']),
            (uniform, ['Uniform', 'LeCunUniform', 'GlorotUniform',
                       'HeUniform']),
            (orthogonal, ['Orthogonal']),
            (sampling, ['UpsamplingDeconvFilter', 'DownsamplingConvFilter'])]:
        for name in names:
            cls = getattr(mod, name)
            assert cls.__module__ == mod.__name__
            assert getattr(initializers, name) is cls
            assert issubclass(cls, initializer.Initializer)


def test_base_class_is_shared():
    assert initializers.Initializer is initializer.Initializer
    assert cpuframe.Initializer is initializer.Initializer
    with pytest.raises(NotImplementedError):
        initializer.Initializer()(numpy.empty(3))


def test_uniform_and_normal_families_are_unrelated():
    assert not isinstance(initializers.HeUniform(), initializers.HeNormal)
    assert not isinstance(initializers.LeCunUniform(),
                          initializers.LeCunNormal)
    assert not isinstance(initializers.GlorotUniform(),
                          initializers.GlorotNormal)


@pytest.mark.parametrize('cls,bound', [
    (uniform.LeCunUniform, numpy.sqrt(3.0 / 40)),
    (uniform.GlorotUniform, numpy.sqrt(6.0 / 70)),
    (uniform.HeUniform, numpy.sqrt(6.0 / 40)),
])
def test_fan_scaled_uniform_bounds(cls, bound):
    a = numpy.empty((30, 40), numpy.float64)
    cls(scale=2.0, rng=numpy.random.RandomState(0))(a)
    assert numpy.abs(a).max() <= 2.0 * bound
    # Filled densely up to the bound: the largest draw is near it.
    assert numpy.abs(a).max() > 1.9 * bound


def test_get_fans():
    assert initializer.get_fans((5, 3, 2, 2)) == (12, 20)
    assert initializer.get_fans((5, 3)) == (3, 5)
    with pytest.raises(ValueError, match='tuple'):
        initializer.get_fans([5, 3])
    with pytest.raises(ValueError, match='length >= 2'):
        initializer.get_fans((5,))


def test_upsampling_filter_is_bilinear():
    w = numpy.full((3, 3, 4, 4), 7, numpy.float32)
    initializers.UpsamplingDeconvFilter()(w)
    # k=4: factor 2, centre 1.5, tent [0.25, 0.75, 0.75, 0.25].
    tent = numpy.array([0.25, 0.75, 0.75, 0.25])
    for i in range(3):
        numpy.testing.assert_allclose(w[i, i], numpy.outer(tent, tent))
        for j in range(3):
            if i != j:
                assert (w[i, j] == 0).all()


def test_upsampling_filter_odd_size_peaks_at_one():
    w = numpy.empty((2, 2, 3, 3), numpy.float64)
    initializers.UpsamplingDeconvFilter()(w)
    tent = numpy.array([0.5, 1.0, 0.5])
    numpy.testing.assert_allclose(w[1, 1], numpy.outer(tent, tent))


def test_upsampling_doubles_a_constant_image():
    # With stride (k+1)//2 the deconvolution reproduces a constant image
    # away from the border (where fewer taps overlap).
    F = cpuframe.functions
    w = numpy.empty((1, 1, 4, 4), numpy.float32)
    initializers.UpsamplingDeconvFilter()(w)
    x = numpy.ones((1, 1, 3, 3), numpy.float32)
    y = F.deconvolution_2d(x, w, stride=2, pad=1).array
    assert y.shape == (1, 1, 6, 6)
    numpy.testing.assert_allclose(y[0, 0, 1:-1, 1:-1], 1.0, rtol=1e-6)
    assert y[0, 0, 0, 0] < 1.0


def test_downsampling_filter_averages_and_single_output_channel():
    w = numpy.empty((3, 1, 3, 3, 3), numpy.float64)
    initializers.DownsamplingConvFilter()(w)
    for i in range(3):
        numpy.testing.assert_allclose(w[i, 0].sum(), 1.0)
        assert w[i, 0, 1, 1, 1] == w[i, 0].max()


def test_sampling_filter_errors():
    with pytest.raises(ValueError, match='interpolation'):
        initializers.UpsamplingDeconvFilter(interpolation='nearest')
    with pytest.raises(ValueError, match='ksize'):
        initializers.DownsamplingConvFilter()(numpy.empty((2, 2, 3, 4)))
    with pytest.raises(ValueError):
        initializers.DownsamplingConvFilter()(numpy.empty((2, 3, 3, 3)))
