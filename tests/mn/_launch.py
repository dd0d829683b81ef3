"""Starting an MPI job of its own from inside a test (rank 0 only)."""
import os
import shutil
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# What a launcher sets for its ranks; a nested mpiexec must not inherit it.
_LAUNCHER_PREFIXES = ('PMI_', 'PMIX_', 'HYDRA_', 'OMPI_', 'MPI_LOCAL', 'MPIR_',
                      'MV2_')


def mpiexec():
    """The mpiexec next to this Python (the mpich wheel's), or on PATH."""
    candidate = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    if os.path.exists(candidate):
        return candidate
    found = shutil.which('mpiexec')
    if found is None:
        pytest.skip('no mpiexec')
    return found


def clean_env(repo_first=False, **extra):
    """This environment without the launcher's variables (and the abort
    switches), optionally with the checkout first on the path."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(_LAUNCHER_PREFIXES)
           and k not in ('CHAINERMN_FORCE_ABORT_ON_EXCEPTION',
                         'CPUFRAME_MN_ABORT_ON_EXCEPTION')}
    if repo_first:
        env['PYTHONPATH'] = REPO + os.pathsep + env.get('PYTHONPATH', '')
    env.update(extra)
    return env
