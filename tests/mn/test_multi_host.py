"""Training across "hosts": two network namespaces joined by a bridge, each
rank in its own namespace (and UTS namespace, so MPICH sees two nodes),
mpiexec (hydra) starting the remote rank through benchmarks/mn/netns's
launcher, UCX restricted to TCP over the veth links.

The test launches its own mpiexec, so it runs only in the single-process
suite, as root, where ``ip netns`` works; it is skipped with the reason
otherwise (and under mpiexec).  The namespaces are removed even when it
fails.
"""
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

pytest.importorskip('mpi4py', reason='cpuframe.mn needs mpi4py (the mpi extra)')

REPO = Path(__file__).resolve().parents[2]
NETNS = REPO / 'benchmarks' / 'mn' / 'netns'
WORKER = Path(__file__).resolve().with_name('multi_host_worker.py')
MPIEXEC = Path(sys.executable).with_name('mpiexec')


def _why_not():
    if any(v in os.environ for v in ('PMI_RANK', 'PMI_SIZE', 'OMPI_COMM_WORLD_SIZE')):
        return 'launches its own mpiexec: runs in the single-process suite only'
    if os.name != 'posix' or os.geteuid() != 0:
        return 'network namespaces need root'
    for tool in ('ip', 'tc', 'unshare', 'bash'):
        if shutil.which(tool) is None:
            return '{} not found'.format(tool)
    if not MPIEXEC.exists():
        return 'no mpiexec next to {}'.format(sys.executable)
    probe = 'cfmn-probe-{}'.format(uuid.uuid4().hex[:8])
    made = subprocess.run(['ip', 'netns', 'add', probe], capture_output=True,
                          text=True)
    subprocess.run(['ip', 'netns', 'del', probe], capture_output=True)
    if made.returncode != 0:
        return '`ip netns add` fails here: ' + made.stderr.strip()
    return None


_REASON = _why_not()
pytestmark = [pytest.mark.netns,
              pytest.mark.skipif(_REASON is not None, reason=_REASON or '')]


def _sent_bytes(prefix):
    out = subprocess.run([str(NETNS / 'netns.sh'), 'stats', '-p', prefix],
                         check=True, capture_output=True, text=True).stdout
    return {line.split()[0]: int(line.split()[1])
            for line in out.splitlines()}


def test_data_parallel_training_across_two_namespace_hosts():
    prefix = 'cfmn-{}'.format(uuid.uuid4().hex[:6])
    netns = str(NETNS / 'netns.sh')
    try:
        subprocess.run([netns, 'up', '-p', prefix, '-n', '2', '-r', '1gbit',
                        '-d', '200us'], check=True, capture_output=True,
                       timeout=60)
        before = _sent_bytes(prefix)
        env = dict(os.environ, CFMN_NETNS_PREFIX=prefix,
                   CFMN_MPIEXEC=str(MPIEXEC), OMP_NUM_THREADS='1')
        env['PATH'] = '{}:{}'.format(MPIEXEC.parent, env.get('PATH', ''))
        run = subprocess.run(
            [str(NETNS / 'mpiexec'), '-n', '2', '-wdir', str(REPO),
             '-genv', 'PYTHONPATH', str(REPO), '-genv', 'OMP_NUM_THREADS', '1',
             sys.executable, str(WORKER)],
            env=env, capture_output=True, text=True, timeout=90)
        after = _sent_bytes(prefix)
        lines = [line for line in run.stdout.splitlines()
                 if line.startswith('RESULT ')]
        assert run.returncode == 0 and lines, (
            'mpiexec failed ({}):\n{}\n{}'.format(
                run.returncode, run.stdout[-3000:], run.stderr[-3000:]))
        ranks = json.loads(lines[-1][len('RESULT '):])
        assert [r['host'] for r in ranks] == ['h0', 'h1']
        assert min(r['accuracy'] for r in ranks) >= 0.95, ranks
        assert len({r['digest'] for r in ranks}) == 1, ranks
        # Averaging the gradients of 2 ranks moves at least the gradient
        # bytes each way every step; all of it must have crossed the veths.
        expected = ranks[0]['steps'] * ranks[0]['grad_bytes']
        for host in ('{}-h0'.format(prefix), '{}-h1'.format(prefix)):
            sent = after[host] - before[host]
            assert sent >= expected, (host, sent, expected)
    finally:
        subprocess.run([netns, 'down', '-p', prefix], capture_output=True,
                       timeout=60)
        left = subprocess.run(['ip', 'netns', 'list'], capture_output=True,
                              text=True).stdout
        assert prefix not in left, 'namespaces left behind: ' + left
