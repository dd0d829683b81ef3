"""Unmodified ChainerMN 7 scripts run under
``mpiexec -n 2 python -m cpuframe.compat`` and learn."""
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip('mpi4py')

from . import _launch  # noqa: E402

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')


@pytest.fixture
def only_on_rank_0(comm):
    # Each test starts a job of its own: once per job is enough.
    if comm.rank != 0:
        pytest.skip('runs on rank 0 only')


def _run_script(name, ranks, cwd, *args):
    command = [_launch.mpiexec(), '-n', str(ranks), sys.executable, '-m',
               'cpuframe.compat', os.path.join(SCRIPTS, name), *args]
    return subprocess.run(command, cwd=str(cwd),
                          env=_launch.clean_env(OMP_NUM_THREADS='1'),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)


@pytest.mark.parametrize('communicator', ['naive', 'flat'])
def test_data_parallel_mnist_script_learns(only_on_rank_0, local_tmp,
                                           communicator):
    out = _run_script('train_mnist_data_parallel.py', 2, local_tmp,
                      '--epoch', '3', '--communicator', communicator,
                      '--out', str(local_tmp / 'result'))
    assert out.returncode == 0, out.stdout[-3000:]
    assert 'Num process (COMM_WORLD): 2' in out.stdout
    assert 'validation/main/accuracy' in out.stdout     # PrintReport's header
    # The report is printed once (rank 0), with three epochs.
    assert len(re.findall(r'^3\s', out.stdout, re.M)) == 1, out.stdout
    accuracy = float(re.search(r'final validation accuracy ([0-9.]+)',
                               out.stdout).group(1))
    assert accuracy > 0.9, out.stdout[-2000:]


def test_model_parallel_mnist_script_learns(only_on_rank_0, local_tmp):
    out = _run_script('train_mnist_model_parallel.py', 2, local_tmp,
                      '--epoch', '3', '--out', str(local_tmp / 'result'))
    assert out.returncode == 0, out.stdout[-3000:]
    assert 'validation/main/accuracy' in out.stdout
    accuracy = float(re.search(r'final validation accuracy ([0-9.]+)',
                               out.stdout).group(1))
    assert accuracy > 0.9, out.stdout[-2000:]


def test_model_parallel_script_refuses_other_sizes(only_on_rank_0, local_tmp):
    out = _run_script('train_mnist_model_parallel.py', 3, local_tmp,
                      '--epoch', '1', '--out', str(local_tmp / 'result'))
    assert out.returncode != 0
    assert 'exactly 2 processes' in out.stdout
