"""Abort the whole MPI job when one rank dies of an uncaught exception.

Without this, a rank that raises ends (mpi4py calls ``MPI_Finalize`` at
exit) while the other ranks wait forever in their next collective: the job
hangs instead of failing, and on a cluster keeps its nodes (and its bill).
:func:`add_hook` installs a ``sys.excepthook`` that prints the exception's
traceback as usual, then a banner naming the rank, and calls
``MPI_Abort`` on ``COMM_WORLD`` (a second later, so that the launcher has
forwarded the traceback): the launcher ends every rank within seconds, with
a non-zero exit status.

When it is on
-------------
- ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` set to a non-empty value: on, as
  in ChainerMN (pass it to every rank: MPICH's ``mpiexec`` forwards the
  environment; Open MPI needs ``-x``).
- Otherwise cpuframe.mn turns it on by default when the process was
  started by an MPI launcher for a job of more than one process (the
  launcher's ``PMI_SIZE``, ``OMPI_COMM_WORLD_SIZE``, ``PMIX_SIZE`` ... say
  so), which ChainerMN does not.  Reason: a hung job is the worst way for
  distributed training to fail: it gives no exit status, its traceback is
  lost among logs that stop moving, and it holds every node until someone
  notices.  The cost of aborting is small: the failing rank's traceback is
  printed first, and the other ranks were going to be stuck anyway (they
  lose the chance to run their ``finally`` blocks and ``atexit`` handlers;
  snapshots that were already written stay complete, cpuframe writes them
  atomically).  A single process (plain ``python``, ``mpiexec -n 1``) is
  left alone.
- ``CPUFRAME_MN_ABORT_ON_EXCEPTION=0`` turns the default off (e.g. to
  debug with ``pdb`` post-mortem on one rank); ``=1`` turns it on whatever
  the launcher says.

A rank that ends with ``sys.exit(n)``, ``n`` not 0 (a failed check, a
script's error path), would leave the others waiting in their next
collective just the same; where the hook is on, it also ends the job:
as the interpreter exits with the ``SystemExit`` of ``sys.exit(n)``, a
banner names the rank and its status and ``MPI_Abort`` is called with that
status (``sys.exit(0)``, ``sys.exit()``, a normal end and a ``SystemExit``
the program catches are left alone). Only ``sys.exit`` is watched, not a
bare ``raise SystemExit(n)``.

Only uncaught exceptions of the main thread reach ``sys.excepthook``.
Importing this module (and ``cpuframe.mn``) does not import mpi4py: the hook
imports it only when it fires.
"""
import atexit
import os
import sys
import time
import warnings

_orig_except_hook = None

# Seconds between printing the traceback and MPI_Abort: the launcher
# (mpiexec's proxies) forwards a rank's output through pipes, and an abort
# tears the job down without draining them, which could cut the traceback
# off.
_OUTPUT_GRACE_SECONDS = 1.0

# Environment variables through which MPI launchers give the job's size.
_SIZE_VARIABLES = ('PMI_SIZE', 'OMPI_COMM_WORLD_SIZE', 'PMIX_SIZE',
                   'MV2_COMM_WORLD_SIZE')
_RANK_VARIABLES = ('PMI_RANK', 'OMPI_COMM_WORLD_RANK', 'PMIX_RANK',
                   'MV2_COMM_WORLD_RANK')


def _launcher_size(environ):
    """The job size an MPI launcher put in ``environ``, or None."""
    for name in _SIZE_VARIABLES:
        value = environ.get(name)
        if value is not None:
            try:
                return int(value)
            except ValueError:
                continue
    return None


def _enabled(environ=None):
    """Whether the hook should be installed, from the environment."""
    environ = os.environ if environ is None else environ
    if environ.get('CHAINERMN_FORCE_ABORT_ON_EXCEPTION'):
        return True
    own = environ.get('CPUFRAME_MN_ABORT_ON_EXCEPTION', '').strip().lower()
    if own in ('0', 'false', 'no', 'off'):
        return False
    if own in ('1', 'true', 'yes', 'on'):
        return True
    size = _launcher_size(environ)
    return size is not None and size > 1


def _rank_for_banner():
    mpi = sys.modules.get('mpi4py.MPI')
    if mpi is not None:
        try:
            if mpi.Is_initialized() and not mpi.Is_finalized():
                return mpi.COMM_WORLD.Get_rank()
        except Exception:  # noqa: BLE001 - only for a message
            pass
    for name in _RANK_VARIABLES:
        if name in os.environ:
            return os.environ[name]
    return '?'


def _global_except_hook(exctype, value, traceback):
    """Print the exception as usual, then abort every rank (MPI_Abort)."""
    try:
        if _orig_except_hook is not None:
            _orig_except_hook(exctype, value, traceback)
        else:
            sys.__excepthook__(exctype, value, traceback)
    finally:
        try:
            sys.stderr.write(
                '\n******************************************\n'
                'cpuframe.mn (ChainerMN):\n'
                '   Uncaught exception on rank {}.\n'
                '   Calling MPI_Abort() to shut down MPI...\n'
                '******************************************\n\n'.format(
                    _rank_for_banner()))
            sys.stderr.flush()
            sys.stdout.flush()
        except Exception:  # noqa: BLE001 - the abort matters more
            pass
        time.sleep(_OUTPUT_GRACE_SECONDS)
        _abort()


def _abort(status=1):
    try:
        from cpuframe.mn import _mpi
        MPI = _mpi.get()
        if not MPI.Is_finalized():
            MPI.COMM_WORLD.Abort(status)
    except BaseException as e:  # noqa: BLE001 - last resort below
        try:
            sys.stderr.write('cpuframe.mn: MPI_Abort failed ({}: {}); '
                             'exiting this rank\n'.format(type(e).__name__, e))
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
    # Abort does not return; if MPI could not be reached, leave without
    # MPI_Finalize so the launcher sees this rank fail.
    os._exit(status)


_orig_exit = None
# (status,) of a sys.exit whose SystemExit ended the interpreter, else None
_exit_status = None


class _WatchedSystemExit(SystemExit):
    """The SystemExit of ``sys.exit`` while the hook is on: it notes, as it
    is freed, whether the interpreter is exiting with it."""

    def __del__(self):
        # With no Python frame running below this one, the interpreter's
        # own handling of an uncaught SystemExit freed it (the process
        # exits with it); a program that caught it frees it in its frames.
        global _exit_status
        if sys._getframe().f_back is None:
            _exit_status = (self.code,)


# shown as Python shows a SystemExit
_WatchedSystemExit.__name__ = _WatchedSystemExit.__qualname__ = 'SystemExit'


def _recording_exit(status=None):
    """``sys.exit`` raising a :class:`_WatchedSystemExit` (what ``sys.exit``
    raises otherwise: the same arguments, the same ``code``)."""
    if status is None:
        raise _WatchedSystemExit()
    if isinstance(status, tuple):
        raise _WatchedSystemExit(*status)
    raise _WatchedSystemExit(status)


def _exit_code(status):
    # The process's exit status for sys.exit(status), as Python computes it
    # (the low byte of an int, as the OS keeps it; a message is status 1)
    if status is None:
        return 0
    if isinstance(status, int):
        return status & 0xff
    return 1


def _abort_at_exit():
    """At interpreter exit: a rank leaving by ``sys.exit(n)``, n not 0,
    ends the whole job (the others may be waiting for it in a collective)."""
    if _exit_status is None:
        return
    code = _exit_code(_exit_status[0])
    if code == 0:
        return
    mpi = sys.modules.get('mpi4py.MPI')
    try:
        if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
            return  # MPI never started (or is done): nothing can hang
    except Exception:  # noqa: BLE001 - then try the abort anyway
        pass
    try:
        sys.stderr.write(
            '\n******************************************\n'
            'cpuframe.mn (ChainerMN):\n'
            '   Rank {} called sys.exit({!r}): exit status {}.\n'
            '   Calling MPI_Abort() so that the other ranks do not wait '
            'for it...\n'
            '******************************************\n\n'.format(
                _rank_for_banner(), _exit_status[0], code))
        sys.stderr.flush()
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - the abort matters more
        pass
    time.sleep(_OUTPUT_GRACE_SECONDS)
    _abort(code)


def _add_hook_if_enabled():
    """Install the hook when the environment asks for it (see the module
    docstring); ``import cpuframe.mn`` calls this."""
    if _enabled():
        add_hook()


def add_hook():
    """Install the hook: an uncaught exception aborts every rank.

    Calling it again warns and does nothing.
    """
    global _orig_except_hook
    if _orig_except_hook is not None or sys.excepthook is _global_except_hook:
        warnings.warn('chainermn.global_except_hook.add_hook() seems to be '
                      'called multiple times. Ignoring.', stacklevel=2)
        return
    _orig_except_hook = sys.excepthook
    sys.excepthook = _global_except_hook
    global _orig_exit
    if _orig_exit is None:
        _orig_exit = sys.exit
        sys.exit = _recording_exit
        # Python's atexit handlers run before mpi4py finalizes MPI (at the
        # C level), so the abort comes first.
        atexit.register(_abort_at_exit)
