import numpy
import pytest

import cpuframe.links as L
from cpuframe import testing, training


def test_save_and_load_npz_copies_parameters():
    src = L.Linear(3, 2)
    dst = L.Linear(3, 2)
    assert not numpy.array_equal(src.W.array, dst.W.array)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(src.W.array, dst.W.array)
    numpy.testing.assert_array_equal(src.b.array, dst.b.array)


def test_save_and_load_uses_a_temporary_file(tmp_path):
    seen = []

    def saver(path, obj):
        seen.append(path)
        with open(path, 'w') as f:
            f.write(str(obj))

    def loader(path, obj):
        with open(path) as f:
            obj.append(f.read())

    out = []
    testing.save_and_load(42, out, 'x.txt', saver, loader)
    assert out == ['42']
    assert seen[0].endswith('x.txt')
    import os
    assert not os.path.exists(os.path.dirname(seen[0]))  # cleaned up


def test_save_and_load_hdf5():
    src, dst = L.Linear(3, 2), L.Linear(3, 2)
    try:
        import h5py  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match='h5py is not installed'):
            testing.save_and_load_hdf5(src, dst)
        return
    testing.save_and_load_hdf5(src, dst)
    numpy.testing.assert_array_equal(src.W.array, dst.W.array)


def test_trainer_with_mock_updater_counts_iterations_and_epochs():
    log = []

    @training.make_extension(trigger=(1, 'iteration'))
    def record(trainer):
        u = trainer.updater
        log.append((u.iteration, u.epoch, u.epoch_detail, u.is_new_epoch,
                    u.previous_epoch_detail))

    trainer = testing.get_trainer_with_mock_updater(
        stop_trigger=(2, 'epoch'), iter_per_epoch=3)
    trainer.extend(record)
    trainer.run()
    assert trainer.updater.iteration == 6
    assert trainer.updater.update_core.call_count == 6
    assert [entry[:2] for entry in log] == [
        (1, 0), (2, 0), (3, 1), (4, 1), (5, 1), (6, 2)]
    assert [entry[3] for entry in log] == [
        False, False, True, False, False, True]
    assert log[0][2] == pytest.approx(1 / 3)
    assert log[0][4] == 0


def test_trainer_with_mock_updater_extensions_argument():
    calls = []
    trainer = testing.get_trainer_with_mock_updater(
        stop_trigger=(4, 'iteration'),
        extensions=[training.make_extension()(lambda t: calls.append(1))])
    trainer.run()
    assert len(calls) == 4
