"""How many OpenMP threads the intel64 backend runs, and how they wait.

GNU OpenMP (libgomp, which the ``onednn-cpu-gomp`` wheel uses) reads its
settings once, when it is loaded, so they are chosen here before
``cpuframe._native`` loads ``libdnnl.so.3``:

- the thread count: the CPUs this process may really use, i.e. the smaller of
  ``os.sched_getaffinity(0)`` and the cgroup CPU quota (cgroup v2
  ``cpu.max``, v1 ``cpu.cfs_quota_us / cpu.cfs_period_us``, rounded up);
  libgomp itself only looks at the affinity mask;
- the wait policy: a small ``GOMP_SPINCOUNT`` instead of libgomp's default
  of 300,000 spins (about 0.1-0.3 ms per wait) so that a waiting thread goes
  to sleep quickly instead of burning the core another process needs. With
  a neighbour on a 2-core machine the default spin turns a 1.5 s job into
  34 s; see ``benchmarks/busy_machine``.

Whatever the user set (``OMP_NUM_THREADS``, ``OMP_WAIT_POLICY``,
``GOMP_SPINCOUNT``) is never overridden; ``CPUFRAME_NO_THREAD_POLICY=1``
turns the whole choice off (libgomp's own defaults then apply).
``choice()`` says what was chosen and where it came from;
``print_runtime_info()`` shows it.
"""
from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

#: Spins of a waiting libgomp thread before it sleeps (libgomp's default is
#: 300,000). Chosen with benchmarks/busy_machine/run.py.
DEFAULT_SPINCOUNT = 10000

_OFF_VAR = 'CPUFRAME_NO_THREAD_POLICY'
_USER_VARS = ('OMP_NUM_THREADS', 'OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')


@dataclass
class ThreadChoice:
    """The threading chosen for the OpenMP runtime, with its sources."""

    num_threads: int | None
    num_threads_source: str
    wait_policy: str
    wait_policy_source: str
    #: Environment variables to set before libgomp loads (only unset ones).
    env: dict = field(default_factory=dict)
    affinity_cpus: int | None = None
    quota_cpus: float | None = None


def _affinity_cpus() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _own_cgroup_dirs(root: Path, proc_cgroup: str | None, controller_v1: str):
    """Cgroup directories of this process, innermost first, then the root."""
    dirs = []
    for line in (proc_cgroup or '').splitlines():
        parts = line.split(':', 2)
        if len(parts) != 3:
            continue
        hier, controllers, rel = parts
        rel = rel.lstrip('/')
        if hier == '0' and controllers == '':
            base = root
        elif controller_v1 in controllers.split(','):
            base = root / controllers
            if not base.is_dir():
                base = root / controller_v1
        else:
            continue
        d = base / rel
        while True:
            dirs.append(d)
            if d == base:
                break
            d = d.parent
    dirs.append(root)
    return dirs


def cgroup_quota_cpus(root: str | os.PathLike = '/sys/fs/cgroup',
                      proc_cgroup: str | None = None) -> float | None:
    """The CPU quota of this process's cgroup in CPUs, or None when unlimited.

    Looks at cgroup v2 ``cpu.max`` (``"max 100000"`` or ``"150000 100000"``)
    and at v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (quota -1:
    unlimited), in this process's own cgroup and its parents; the smallest
    quota wins. ``root`` and ``proc_cgroup`` (the text of
    ``/proc/self/cgroup``) are for tests.
    """
    root = Path(root)
    if proc_cgroup is None:
        proc_cgroup = _read(Path('/proc/self/cgroup'))
    best = None
    seen = set()
    for d in _own_cgroup_dirs(root, proc_cgroup, 'cpu'):
        if d in seen:
            continue
        seen.add(d)
        quota = None
        text = _read(d / 'cpu.max')
        if text is not None:
            fields = text.split()
            if len(fields) >= 2 and fields[0] != 'max':
                try:
                    quota = int(fields[0]) / int(fields[1])
                except (ValueError, ZeroDivisionError):
                    quota = None
        else:
            q, p = _read(d / 'cpu.cfs_quota_us'), _read(d / 'cpu.cfs_period_us')
            if q is not None and p is not None:
                try:
                    qi, pi = int(q), int(p)
                    if qi > 0 and pi > 0:
                        quota = qi / pi
                except ValueError:
                    quota = None
        if quota is not None and quota > 0 and (best is None or quota < best):
            best = quota
    return best


def choose(environ=None, affinity_cpus=None, quota_cpus=None,
           detect=True) -> ThreadChoice:
    """Choose the thread count and wait policy.

    ``environ`` defaults to ``os.environ``; with ``detect`` the affinity and
    the cgroup quota are read from this process unless given.
    """
    env = os.environ if environ is None else environ
    if detect:
        if affinity_cpus is None:
            affinity_cpus = _affinity_cpus()
        if quota_cpus is None:
            quota_cpus = cgroup_quota_cpus()
    off = env.get(_OFF_VAR, '') not in ('', '0')
    to_set = {}

    # Thread count.
    user_n = env.get('OMP_NUM_THREADS', '').strip()
    if user_n:
        n = _parse_first_int(user_n)
        n_src = 'user env (OMP_NUM_THREADS={})'.format(user_n)
    elif off:
        n, n_src = affinity_cpus, 'default (libgomp; {}=1)'.format(_OFF_VAR)
    else:
        quota_n = None if quota_cpus is None else max(1, math.ceil(quota_cpus - 1e-9))
        if quota_n is not None and (affinity_cpus is None or quota_n < affinity_cpus):
            n = quota_n
            n_src = 'cgroup quota ({:g} CPUs)'.format(quota_cpus)
        elif affinity_cpus is not None:
            n, n_src = affinity_cpus, 'affinity ({} CPUs)'.format(affinity_cpus)
        else:
            n, n_src = os.cpu_count() or 1, 'default (os.cpu_count())'
        to_set['OMP_NUM_THREADS'] = str(n)

    # Wait policy.
    policy = env.get('OMP_WAIT_POLICY', '').strip()
    spin = env.get('GOMP_SPINCOUNT', '').strip()
    if policy or spin:
        parts = []
        if policy:
            parts.append('OMP_WAIT_POLICY={}'.format(policy))
        if spin:
            parts.append('GOMP_SPINCOUNT={}'.format(spin))
        w = ', '.join(parts)
        w_src = 'user env'
    elif off:
        w, w_src = 'libgomp default (spin 300000)', 'default ({}=1)'.format(_OFF_VAR)
    else:
        w = 'GOMP_SPINCOUNT={}'.format(DEFAULT_SPINCOUNT)
        w_src = 'cpuframe default (short spin, then sleep)'
        to_set['GOMP_SPINCOUNT'] = str(DEFAULT_SPINCOUNT)

    return ThreadChoice(n, n_src, w, w_src, to_set, affinity_cpus, quota_cpus)


def _parse_first_int(text):
    # OMP_NUM_THREADS may be a list ("4,2"): the first level counts here.
    try:
        return int(text.split(',')[0])
    except ValueError:
        return None


_lock = threading.Lock()
_applied: ThreadChoice | None = None


def apply() -> ThreadChoice:
    """Choose once and set the unset variables in ``os.environ``.

    Called by ``cpuframe._native`` before libdnnl (and so libgomp) loads;
    later calls return the first choice.
    """
    global _applied
    with _lock:
        if _applied is None:
            c = choose()
            for k, v in c.env.items():
                os.environ.setdefault(k, v)
            _applied = c
        return _applied


def choice() -> ThreadChoice | None:
    """The choice made when the backend loaded, or None before that."""
    return _applied


def set_num_threads(n: int) -> None:
    """Set how many threads the intel64 backend's kernels use.

    Before the backend is loaded this sets ``OMP_NUM_THREADS``, for every
    thread of the process. Afterwards it calls ``omp_set_num_threads``,
    which in GNU OpenMP applies to the calling Python thread only (the one
    that runs the model in ordinary scripts): other threads, started before
    or after, keep the count chosen at load; call it in each of them.
    """
    n = int(n)
    if n < 1:
        raise ValueError('set_num_threads: expected n >= 1, got {}'.format(n))
    from cpuframe import _native
    global _set_by_call
    _set_by_call = n
    if not _native._loaded:
        os.environ['OMP_NUM_THREADS'] = str(n)
        return
    mod = _native.load()
    if mod is not None and hasattr(mod, 'set_num_threads'):
        mod.set_num_threads(n)


_set_by_call: int | None = None


def get_num_threads() -> int:
    """How many threads the intel64 backend's kernels use in this thread.

    Loads the backend; without it, the count that would be chosen.
    """
    from cpuframe import _native
    mod = _native.load()
    if mod is not None:
        return int(mod.num_threads())
    c = _applied or choose()
    return int(c.num_threads or 1)


def describe() -> list[str]:
    """Lines for ``print_runtime_info``."""
    c = _applied
    if c is None:
        return ['Threads:        not chosen (the native backend was not loaded)']
    lines = [
        'Thread choice:  {} ({})'.format(c.num_threads, c.num_threads_source),
        'Wait policy:    {} ({})'.format(c.wait_policy, c.wait_policy_source),
        'CPUs usable:    affinity {}, cgroup quota {}'.format(
            c.affinity_cpus if c.affinity_cpus is not None else 'unknown',
            'none' if c.quota_cpus is None else '{:g}'.format(c.quota_cpus)),
    ]
    if _set_by_call is not None:
        lines.append('set_num_threads: {} (cpuframe.set_num_threads)'.format(
            _set_by_call))
    return lines
