"""Atomic file writes: how every cpuframe writer puts a file on disk.

``save_npz``, ``save_hdf5``, the snapshot writers, ``LogReport`` and
``PlotReport`` all write through ``write_atomically(path, write)``.  Its
contract, in one place:

- ``write(tmp)`` writes the whole content at ``tmp``, a new empty file in the
  target's directory, so the final ``os.replace`` stays on one filesystem and
  is atomic: ``path`` is always the old file or the complete new one.
- The temporary file is created with ``os.open(..., 0o666)``, so the kernel
  applies the process umask (and the directory's default ACL) exactly as for
  ``open(path, 'w')``: 0644 under the usual umask 022.  ``tempfile.mkstemp``
  would force 0600, and computing the mode from the umask ourselves would need
  ``os.umask(0)``, which races with other threads creating files.
- The file's data is fsynced before the rename and the directory after it,
  so a power loss cannot leave a renamed but empty file under ``path``.
- On any exception (KeyboardInterrupt included) the temporary file is removed
  and the old ``path`` is left as it was.
- The temporary file is named ``.<name>.tmp-<host>-<pid>-<random>``: a process
  killed mid-write leaves debris that says which target it belongs to, and the
  next save into that directory removes the debris of processes (on this host)
  that no longer exist.  The whole directory, not only the same target: a
  snapshot's name changes with the iteration, so its target is never saved
  again.  A live process's file is never removed: two processes or threads may
  save the same target at once.  The host is part of the name because a shared
  directory (NFS, a volume mounted in several containers) is seen by processes
  whose pids mean nothing here.
"""
import errno
import os
import re
import secrets
import socket


def write_atomically(path, write):
    """Run ``write(tmp_path)`` and move the result to ``path`` atomically.

    ``write`` must write the whole file at the path it is given (a new,
    empty file in the same directory); what it returns is ignored.  See the
    module docstring for the guarantees (mode, fsync, cleanup).
    """
    path = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(path))
    remove_stale_temporaries(directory)
    tmp = _create_temporary(directory, name)
    try:
        write(tmp)
        _fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def temporary_prefix(name):
    """The start of the names of this host's temporary files for target ``name``
    (a file name without directory); the pid and a random part follow."""
    return '.{}.tmp-{}-'.format(name, _host())


def remove_stale_temporaries(directory):
    """Remove the temporary files left in ``directory`` by processes of this
    host that no longer run.  Best effort: never raises."""
    if os.name != 'posix':
        # os.kill(pid, 0) is not an existence check elsewhere.
        return
    # Greedy '.+' takes the last '.tmp-<host>-': a target's own name may hold
    # one too (the temporary of a temporary, as a snapshot writer makes).
    pattern = re.compile(
        r'\..+\.tmp-{}-(\d+)-[0-9a-f]{{8}}'.format(re.escape(_host())))
    try:
        entries = [e.name for e in os.scandir(directory)]
    except OSError:
        return
    for entry in entries:
        match = pattern.fullmatch(entry)
        if match is None or _process_exists(int(match.group(1))):
            continue
        try:
            os.remove(os.path.join(directory, entry))
        except OSError:
            # Gone already (another writer cleaned it) or not ours to remove.
            pass


def _host():
    # Names stay plain file-name characters whatever the host name holds.
    return re.sub(r'[^A-Za-z0-9.-]', '_', socket.gethostname()) or 'localhost'


def _process_exists(pid):
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        # PermissionError: it exists, owned by another user.
        return True
    return True


def _create_temporary(directory, name):
    prefix = os.path.join(directory, temporary_prefix(name))
    while True:
        tmp = '{}{}-{}'.format(prefix, os.getpid(), secrets.token_hex(4))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp


def _fsync_file(path):
    # A read-only descriptor is enough: fsync flushes the file, not the fd.
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_directory(directory):
    if os.name != 'posix':
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        # Some filesystems (some network mounts) cannot fsync a directory:
        # the rename has happened and is as durable as they make it.
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    finally:
        os.close(fd)
