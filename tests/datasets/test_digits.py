import numpy
import pytest

from cpuframe import datasets


def stacked(ds):
    return (numpy.stack([e[0] for e in ds]),
            numpy.array([int(e[1]) for e in ds]))


def test_default_split_sizes_and_types():
    train, test = datasets.get_digits()
    assert isinstance(train, datasets.TupleDataset)
    assert len(train) + len(test) == 1797
    assert (len(train), len(test)) == (1442, 355)
    x, t = train[0]
    assert x.shape == (64,) and x.dtype == numpy.float32
    assert t.dtype == numpy.int32


def test_values_scale_and_known_first_example():
    # The first example of the UCI file is a 0 whose first row is
    # 0 0 5 13 9 1 0 0 (of 16); with the default ratio it is in train.
    train, _ = datasets.get_digits(ndim=2, scale=16.)
    x, t = train[0]
    assert int(t) == 0
    numpy.testing.assert_array_equal(x[0], [0, 0, 5, 13, 9, 1, 0, 0])
    images, _ = stacked(train)
    assert images.min() == 0 and images.max() == 16
    train1, _ = datasets.get_digits()
    numpy.testing.assert_allclose(train1[0][0], x.ravel() / 16., rtol=1e-6)


def test_class_balance_and_disjoint_split():
    train, test = datasets.get_digits(scale=16., dtype=numpy.float64)
    xtr, ytr = stacked(train)
    xte, yte = stacked(test)
    counts_tr = numpy.bincount(ytr, minlength=10)
    counts_te = numpy.bincount(yte, minlength=10)
    assert (counts_tr + counts_te).tolist() == list(CLASS_SIZES)
    # Stratified: each class has floor(n / 5) test examples.
    assert counts_te.tolist() == [n // 5 for n in CLASS_SIZES]
    # No test image is also a training image (the data hold no duplicates
    # across these sets).
    train_rows = {row.tobytes() for row in xtr.astype(numpy.uint8)}
    assert not any(row.tobytes() in train_rows
                   for row in xte.astype(numpy.uint8))


def test_split_is_deterministic():
    a = stacked(datasets.get_digits()[1])
    b = stacked(datasets.get_digits()[1])
    numpy.testing.assert_array_equal(a[0], b[0])
    numpy.testing.assert_array_equal(a[1], b[1])


CLASS_SIZES = (178, 182, 177, 183, 181, 182, 181, 179, 174, 180)


@pytest.mark.parametrize('ratio, numerator, denominator', [
    (0.0, 0, 1), (0.5, 1, 2), (0.1, 1, 10), (0.29, 29, 100), (0.75, 3, 4)])
def test_test_ratio(ratio, numerator, denominator):
    train, test = datasets.get_digits(test_ratio=ratio)
    per_class = [n * numerator // denominator for n in CLASS_SIZES]
    labels = numpy.array([int(t) for _, t in test], dtype=int)
    assert numpy.bincount(labels, minlength=10).tolist() == per_class
    assert len(train) == 1797 - sum(per_class)


@pytest.mark.parametrize('ndim, shape', [(1, (64,)), (2, (8, 8)),
                                         (3, (1, 8, 8))])
def test_ndim_and_withlabel(ndim, shape):
    train, test = datasets.get_digits(withlabel=False, ndim=ndim,
                                      label_dtype=numpy.int64)
    assert isinstance(train, numpy.ndarray)
    assert train.shape == (1442,) + shape
    _, t = datasets.get_digits(label_dtype=numpy.int64)[0][0]
    assert t.dtype == numpy.int64


@pytest.mark.parametrize('kwargs, error, match', [
    ({'test_ratio': 1.0}, ValueError, 'test_ratio'),
    ({'test_ratio': -0.1}, ValueError, 'test_ratio'),
    ({'ndim': 4}, ValueError, 'ndim'),
    ({'dtype': numpy.uint8}, TypeError, 'dtype'),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match='get_digits: ' + match):
        datasets.get_digits(**kwargs)
