"""The one way cpuframe writes a file: cpuframe._atomic_write."""
import os
import stat
import threading

import pytest

from cpuframe import _atomic_write


def _write_bytes(data):
    def write(tmp):
        with open(tmp, 'wb') as f:
            f.write(data)
    return write


@pytest.mark.parametrize('mask, mode', [(0o022, 0o644), (0o077, 0o600),
                                        (0o002, 0o664)])
def test_mode_follows_the_umask_like_open(tmp_path, umask, mask, mode):
    umask(mask)
    path = tmp_path / 'out'
    _atomic_write.write_atomically(path, _write_bytes(b'new'))
    assert path.read_bytes() == b'new'
    assert stat.S_IMODE(path.stat().st_mode) == mode
    with open(tmp_path / 'plain', 'w'):
        pass
    assert stat.S_IMODE((tmp_path / 'plain').stat().st_mode) == mode


def test_temporary_name_says_which_target_and_process(tmp_path):
    seen = []

    def write(tmp):
        seen.append(os.path.basename(tmp))
        _write_bytes(b'x')(tmp)

    _atomic_write.write_atomically(tmp_path / 'model.npz', write)
    prefix = _atomic_write.temporary_prefix('model.npz')
    assert prefix.startswith('.model.npz.tmp-')
    assert seen[0].startswith('{}{}-'.format(prefix, os.getpid()))
    assert os.listdir(tmp_path) == ['model.npz']


def test_stale_temporaries_of_dead_processes_are_removed(tmp_path, dead_pid):
    prefix = _atomic_write.temporary_prefix('model.npz')
    host = prefix[len('.model.npz.tmp-'):-1]

    def debris(target, pid, host=host):
        return tmp_path / '.{}.tmp-{}-{}-0123abcd'.format(target, host, pid)

    dead = debris('model.npz', dead_pid)
    # a killed save of another name (snapshots are never saved twice under
    # one name) and the inner temporary of a save into a temporary
    dead_elsewhere = debris('snapshot_iter_1', dead_pid)
    dead_nested = debris(debris('snapshot_iter_1', dead_pid).name, dead_pid)
    live = debris('model.npz', os.getpid())
    other_host = debris('model.npz', dead_pid, host=host + 'x')
    unrelated = tmp_path / '.model.npz.tmp-notes'
    for path in (dead, dead_elsewhere, dead_nested, live, other_host,
                 unrelated):
        path.write_bytes(b'partial')
    _atomic_write.write_atomically(tmp_path / 'model.npz', _write_bytes(b'x'))
    assert sorted(os.listdir(tmp_path)) == sorted(
        p.name for p in (live, other_host, unrelated, tmp_path / 'model.npz'))


def test_fsync_file_before_rename_and_directory_after(tmp_path, monkeypatch):
    path = tmp_path / 'out'
    path.write_bytes(b'old')
    old_inode = path.stat().st_ino
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        st = os.fstat(fd)
        # what the target's name refers to at the moment of the fsync
        synced.append((stat.S_ISDIR(st.st_mode), st.st_ino,
                       path.stat().st_ino, path.read_bytes()))
        real_fsync(fd)

    monkeypatch.setattr(os, 'fsync', fsync)
    _atomic_write.write_atomically(path, _write_bytes(b'new'))
    new_inode = path.stat().st_ino
    assert synced == [
        (False, new_inode, old_inode, b'old'),
        (True, tmp_path.stat().st_ino, new_inode, b'new'),
    ]


@pytest.mark.parametrize('error', [OSError('disk full'), KeyboardInterrupt()])
def test_failed_write_removes_temporary_and_keeps_old_target(tmp_path, error):
    path = tmp_path / 'out'
    path.write_bytes(b'old')

    def write(tmp):
        with open(tmp, 'wb') as f:
            f.write(b'partial')
        raise error

    with pytest.raises(type(error)):
        _atomic_write.write_atomically(path, write)
    assert path.read_bytes() == b'old'
    assert os.listdir(tmp_path) == ['out']


def test_concurrent_writers_of_one_target_both_succeed(tmp_path):
    path = tmp_path / 'out'
    both_started = threading.Barrier(2)
    errors = []

    def save(data):
        def write(tmp):
            both_started.wait(timeout=10)
            _write_bytes(data)(tmp)
        try:
            _atomic_write.write_atomically(path, write)
        except Exception as e:  # noqa: BLE001 - reported by the assert
            errors.append(e)

    threads = [threading.Thread(target=save, args=(d,))
               for d in (b'a' * 1000, b'b' * 1000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert path.read_bytes() in (b'a' * 1000, b'b' * 1000)
    assert os.listdir(tmp_path) == ['out']
