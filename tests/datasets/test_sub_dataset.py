import numpy
import pytest

from cpuframe import datasets

BASE = list(range(100, 110))


def values(ds):
    return [ds[i] for i in range(len(ds))]


def test_sub_dataset_interval_and_negative_index():
    sub = datasets.SubDataset(BASE, 2, 6)
    assert len(sub) == 4
    assert values(sub) == [102, 103, 104, 105]
    assert sub[-1] == 105 and sub[-4] == 102
    assert sub[1:3] == [103, 104]
    with pytest.raises(IndexError):
        sub[4]
    with pytest.raises(IndexError):
        sub[-5]


def test_sub_dataset_order():
    order = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    sub = datasets.SubDataset(BASE, 1, 4, order)
    assert values(sub) == [108, 107, 106]


@pytest.mark.parametrize('args, match', [
    ((-1, 3, None), 'start'),
    ((0, 11, None), 'finish'),
    ((5, 4, None), 'start'),
    ((0, 3, [0, 1]), 'len.order. = 2'),
])
def test_sub_dataset_errors(args, match):
    with pytest.raises(ValueError, match='SubDataset.*' + match):
        datasets.SubDataset(BASE, *args)


def test_split_dataset():
    a, b = datasets.split_dataset(BASE, 3)
    assert values(a) == [100, 101, 102]
    assert values(b) == list(range(103, 110))
    a, b = datasets.split_dataset(BASE, 2, order=list(range(9, -1, -1)))
    assert values(a) == [109, 108]
    a, b = datasets.split_dataset(BASE, 10)
    assert len(a) == 10 and len(b) == 0
    with pytest.raises(ValueError, match='split_dataset.*non-negative'):
        datasets.split_dataset(BASE, -1)
    with pytest.raises(ValueError, match='split_dataset.*exceeds'):
        datasets.split_dataset(BASE, 11)
    with pytest.raises(TypeError, match='split_dataset: split_at must be an '
                                        'integer, got float'):
        datasets.split_dataset(BASE, 0.5)


def test_split_dataset_random_is_seeded_permutation():
    a, b = datasets.split_dataset_random(BASE, 4, seed=3)
    order = numpy.random.RandomState(3).permutation(10)
    assert values(a) == [BASE[i] for i in order[:4]]
    assert values(b) == [BASE[i] for i in order[4:]]
    a2, _ = datasets.split_dataset_random(BASE, 4, seed=3)
    assert values(a2) == values(a)
    assert sorted(values(a) + values(b)) == BASE


def test_split_dataset_n():
    parts = datasets.split_dataset_n(BASE, 3)
    assert [values(p) for p in parts] == [
        [100, 101, 102], [103, 104, 105], [106, 107, 108]]
    with pytest.raises(ValueError, match='split_dataset_n: n must be '
                                         'positive'):
        datasets.split_dataset_n(BASE, 0)


def test_split_dataset_n_random():
    parts = datasets.split_dataset_n_random(BASE, 4, seed=0)
    order = numpy.random.RandomState(0).permutation(10)
    assert [values(p) for p in parts] == [
        [BASE[i] for i in order[2 * k:2 * k + 2]] for k in range(4)]


def test_cross_validation_index_sets():
    # Hand-derived from Chainer's definition: test blocks of sizes
    # [3, 3, 4] taken from the end; train lists the examples that follow
    # its test block, wrapping around.
    splits = datasets.get_cross_validation_datasets(list(range(10)), 3)
    assert [(values(tr), values(te)) for tr, te in splits] == [
        ([0, 1, 2, 3, 4, 5], [6, 7, 8, 9]),
        ([6, 7, 8, 9, 0, 1, 2], [3, 4, 5]),
        ([3, 4, 5, 6, 7, 8, 9], [0, 1, 2]),
    ]


@pytest.mark.parametrize('n, n_fold', [(10, 3), (7, 7), (5, 1), (11, 4)])
def test_cross_validation_partition(n, n_fold):
    order = list(reversed(range(n)))
    splits = datasets.get_cross_validation_datasets(list(range(n)), n_fold,
                                                    order=order)
    tests = [values(te) for _, te in splits]
    assert sorted(sum(tests, [])) == list(range(n))
    assert max(map(len, tests)) - min(map(len, tests)) <= 1
    for train, test in splits:
        assert sorted(values(train) + values(test)) == list(range(n))


def test_cross_validation_random_uses_seed():
    splits = datasets.get_cross_validation_datasets_random(
        list(range(10)), 2, seed=5)
    order = numpy.random.RandomState(5).permutation(10)
    assert values(splits[0][1]) == list(order[5:])
    assert values(splits[1][1]) == list(order[:5])


def test_cross_validation_bad_n_fold():
    with pytest.raises(ValueError, match='get_cross_validation_datasets: '
                                         'n_fold'):
        datasets.get_cross_validation_datasets(list(range(3)), 4)
