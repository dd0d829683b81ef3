"""global_except_hook: an uncaught exception on one rank ends the job."""
import os
import re
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

pytest.importorskip('mpi4py')

from cpuframe.mn import global_except_hook  # noqa: E402

from . import _launch  # noqa: E402

_RAISES_ON_RANK_1 = textwrap.dedent('''
    import time
    import cpuframe.mn as chainermn
    comm = chainermn.create_communicator('naive')
    if comm.rank == 1:
        time.sleep(0.5)
        raise ValueError('boom on rank 1')
    # Rank 0 waits for rank 1, which never comes.
    comm.bcast_obj(None, root=1)
    print('rank {} got past the collective'.format(comm.rank))
''')

_REPORTS_HOOK = textwrap.dedent('''
    import sys
    import cpuframe.mn as chainermn
    from cpuframe.mn import global_except_hook
    installed = sys.excepthook is global_except_hook._global_except_hook
    sys.stdout.write('<HOOK {}>\\n'.format(installed))
    sys.stdout.flush()
''')


def _run(args, script, tmp, timeout=60, python_args=(), **env):
    path = os.path.join(str(tmp), 'script.py')
    with open(path, 'w') as f:
        f.write(script)
    start = time.monotonic()
    result = subprocess.run(args + [sys.executable] + list(python_args) +
                            [path], cwd=str(tmp),
                            env=_launch.clean_env(repo_first=True, **env),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            timeout=timeout)
    return result, time.monotonic() - start


@pytest.fixture
def only_on_rank_0(comm):
    # Subprocess tests: run once per job (no collectives inside).
    if comm.rank != 0:
        pytest.skip('runs on rank 0 only')


@pytest.mark.parametrize('env', [
    {},                                                  # the default
    {'CHAINERMN_FORCE_ABORT_ON_EXCEPTION': '1'},          # ChainerMN's way
    {'CHAINERMN_FORCE_ABORT_ON_EXCEPTION': '1',
     'CPUFRAME_MN_ABORT_ON_EXCEPTION': '0'},              # ChainerMN's wins
])
def test_exception_on_one_rank_aborts_the_job(only_on_rank_0, local_tmp,
                                              env):
    result, elapsed = _run([_launch.mpiexec(), '-n', '2'], _RAISES_ON_RANK_1,
                           local_tmp, **env)
    output = result.stdout.decode(errors='replace')
    assert result.returncode != 0, output
    assert elapsed < 30, output
    assert 'Traceback (most recent call last)' in output
    assert "ValueError: boom on rank 1" in output
    assert 'Uncaught exception on rank 1' in output
    assert 'got past the collective' not in output


def test_exception_under_compat_aborts_the_job(only_on_rank_0, local_tmp):
    # A Chainer script run through cpuframe.compat: `import chainermn`.
    script = _RAISES_ON_RANK_1.replace('import cpuframe.mn as chainermn',
                                       'import chainermn')
    result, elapsed = _run([_launch.mpiexec(), '-n', '2'], script, local_tmp,
                           python_args=['-m', 'cpuframe.compat'])
    output = result.stdout.decode(errors='replace')
    assert result.returncode != 0, output
    assert elapsed < 30, output
    assert "ValueError: boom on rank 1" in output
    assert 'Uncaught exception on rank 1' in output


_EXITS_ON_RANK_1 = textwrap.dedent('''
    import sys, time
    import cpuframe.mn as chainermn
    comm = chainermn.create_communicator('naive')
    if comm.rank == 1:
        time.sleep(0.5)
        sys.exit(3)
    # Rank 0 waits for rank 1, which never comes.
    comm.bcast_obj(None, root=1)
    print('rank {} got past the collective'.format(comm.rank))
''')

_EXITS_CLEANLY = textwrap.dedent('''
    import sys
    import cpuframe.mn as chainermn
    comm = chainermn.create_communicator('naive')
    try:
        sys.exit(2)  # caught: the program goes on
    except SystemExit as e:
        print('rank {} caught {!r}'.format(comm.rank, e))
    comm.bcast_obj(None, root=0)
    print('rank {} done'.format(comm.rank), flush=True)
    sys.exit(0 if comm.rank else None)
''')


def test_sys_exit_with_a_failure_status_on_one_rank_ends_the_job(
        only_on_rank_0, local_tmp):
    result, elapsed = _run([_launch.mpiexec(), '-n', '2'], _EXITS_ON_RANK_1,
                           local_tmp)
    output = result.stdout.decode(errors='replace')
    assert result.returncode != 0, output
    assert elapsed < 30, output
    assert 'Rank 1 called sys.exit(3): exit status 3' in output, output
    assert 'got past the collective' not in output


def test_sys_exit_zero_and_a_caught_exit_are_left_alone(only_on_rank_0,
                                                          local_tmp):
    result, _ = _run([_launch.mpiexec(), '-n', '2'], _EXITS_CLEANLY,
                     local_tmp)
    output = result.stdout.decode(errors='replace')
    assert result.returncode == 0, output
    assert output.count('caught SystemExit(2)') == 2, output
    assert output.count(' done') == 2, output
    assert 'MPI_Abort' not in output


@pytest.mark.parametrize('launcher,env,installed', [
    ('mpiexec-2', {}, True),
    ('mpiexec-2', {'CPUFRAME_MN_ABORT_ON_EXCEPTION': '0'}, False),
    ('mpiexec-1', {}, False),
    ('python', {}, False),
    ('python', {'CHAINERMN_FORCE_ABORT_ON_EXCEPTION': 'yes'}, True),
    ('python', {'CPUFRAME_MN_ABORT_ON_EXCEPTION': '1'}, True),
])
def test_when_the_hook_is_installed(only_on_rank_0, local_tmp, launcher,
                                    env, installed):
    args = {'mpiexec-2': [_launch.mpiexec(), '-n', '2'],
            'mpiexec-1': [_launch.mpiexec(), '-n', '1'], 'python': []}[launcher]
    result, _ = _run(args, _REPORTS_HOOK, local_tmp, **env)
    output = result.stdout.decode(errors='replace')
    assert result.returncode == 0, output
    # (Ranks' lines may interleave.)
    found = re.findall(r'<HOOK (True|False)>', output)
    assert found == [str(installed)] * (2 if launcher == 'mpiexec-2' else 1)


def test_single_process_exception_is_a_plain_traceback(only_on_rank_0,
                                                       local_tmp):
    script = 'import cpuframe.mn\nraise KeyError("plain")\n'
    result, _ = _run([], script, local_tmp)
    output = result.stdout.decode(errors='replace')
    assert result.returncode == 1
    assert "KeyError: 'plain'" in output
    assert 'MPI_Abort' not in output


@pytest.mark.parametrize('environ,enabled', [
    ({}, False),
    ({'PMI_SIZE': '1'}, False),
    ({'PMI_SIZE': '4'}, True),
    ({'OMPI_COMM_WORLD_SIZE': '2'}, True),
    ({'PMIX_SIZE': 'x'}, False),
    ({'PMI_SIZE': '4', 'CPUFRAME_MN_ABORT_ON_EXCEPTION': 'off'}, False),
    ({'CPUFRAME_MN_ABORT_ON_EXCEPTION': 'on'}, True),
    ({'CHAINERMN_FORCE_ABORT_ON_EXCEPTION': ''}, False),
    ({'CHAINERMN_FORCE_ABORT_ON_EXCEPTION': '0'}, True),   # as ChainerMN
])
def test_enabled_from_environment(environ, enabled):
    assert global_except_hook._enabled(environ) is enabled


_WATCHES_EXITS = textwrap.dedent('''
    import atexit, sys
    from cpuframe.mn import global_except_hook as g
    sys.exit = g._recording_exit
    atexit.register(lambda: print('RECORDED', g._exit_status, flush=True))
    try:
        sys.exit(5)
    except SystemExit as e:
        print('CAUGHT', repr(e), e.code, g._exit_status)
    def leave():
        sys.exit(%s)
    leave()
''')


@pytest.mark.parametrize('status,code,recorded', [
    ('3', 3, '(3,)'), ('0', 0, '(0,)'), ('', 0, '(None,)'),
    ('"bye"', 1, "('bye',)")])
def test_sys_exit_is_watched_only_when_it_ends_the_interpreter(
        only_on_rank_0, local_tmp, status, code, recorded):
    result, _ = _run([], _WATCHES_EXITS % status, local_tmp)
    output = result.stdout.decode(errors='replace')
    assert result.returncode == code, output
    # the caught one: a SystemExit as any, not recorded
    assert 'CAUGHT SystemExit(5) 5 None' in output
    assert 'RECORDED ' + recorded in output


def test_add_hook_twice_warns(monkeypatch):
    monkeypatch.setattr(global_except_hook, '_orig_except_hook', None)
    monkeypatch.setattr(global_except_hook, '_orig_exit',
                        global_except_hook._orig_exit)
    monkeypatch.setattr(sys, 'exit', sys.exit)
    monkeypatch.setattr(sys, 'excepthook', sys.__excepthook__)
    global_except_hook.add_hook()
    assert sys.excepthook is global_except_hook._global_except_hook
    assert global_except_hook._orig_except_hook is sys.__excepthook__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        global_except_hook.add_hook()
    assert any('multiple times' in str(w.message) for w in caught)
    assert global_except_hook._orig_except_hook is sys.__excepthook__


def test_importing_cpuframe_mn_does_not_import_mpi4py(only_on_rank_0,
                                                      local_tmp):
    script = ('import sys\nimport cpuframe.mn\n'
              'print("MPI4PY", any(m.startswith("mpi4py") '
              'for m in sys.modules))\n')
    result, _ = _run([], script, local_tmp,
                     CHAINERMN_FORCE_ABORT_ON_EXCEPTION='1')
    assert b'MPI4PY False' in result.stdout, result.stdout
