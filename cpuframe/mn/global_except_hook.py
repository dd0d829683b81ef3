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

Only uncaught exceptions of the main thread reach ``sys.excepthook``; a
rank that calls ``sys.exit`` is not aborted.  Importing this module (and
``cpuframe.mn``) does not import mpi4py: the hook imports it only when it
fires.
"""
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


def _abort():
    try:
        from cpuframe.mn import _mpi
        MPI = _mpi.get()
        if not MPI.Is_finalized():
            MPI.COMM_WORLD.Abort(1)
    except BaseException as e:  # noqa: BLE001 - last resort below
        try:
            sys.stderr.write('cpuframe.mn: MPI_Abort failed ({}: {}); '
                             'exiting this rank\n'.format(type(e).__name__, e))
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
    # Abort does not return; if MPI could not be reached, leave without
    # MPI_Finalize so the launcher sees this rank fail.
    os._exit(1)


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
