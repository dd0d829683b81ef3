"""The intel64 backend's threading choice (cpuframe/_threads.py): the thread
count from affinity and cgroup quota, the wait policy, the user's own
settings kept, set/get_num_threads and the runtime info lines.

The choice logic runs on fake inputs; what libgomp really got is checked in
a subprocess with ``OMP_DISPLAY_ENV=verbose`` (libgomp prints its settings when
it starts), so the choice is seen to reach the runtime before it loads.
"""
import os
import subprocess
import sys
import textwrap

import pytest

from cpuframe import _native, _threads

_CLEAN = {k: v for k, v in os.environ.items()
          if k not in ('OMP_NUM_THREADS', 'OMP_WAIT_POLICY', 'GOMP_SPINCOUNT',
                       'CPUFRAME_NO_THREAD_POLICY', 'OMP_DISPLAY_ENV')}


# -- cgroup quota -------------------------------------------------------------

def _v2(tmp_path, cpu_max, rel='user.slice/job'):
    d = tmp_path / rel
    d.mkdir(parents=True)
    (d / 'cpu.max').write_text(cpu_max + '\n')
    return tmp_path, '0::/{}\n'.format(rel)


def test_cgroup_v2_quota(tmp_path):
    root, proc = _v2(tmp_path, '150000 100000')
    assert _threads.cgroup_quota_cpus(root, proc) == pytest.approx(1.5)


def test_cgroup_v2_unlimited(tmp_path):
    root, proc = _v2(tmp_path, 'max 100000')
    assert _threads.cgroup_quota_cpus(root, proc) is None


def test_cgroup_v2_parent_quota_applies(tmp_path):
    root, proc = _v2(tmp_path, 'max 100000', rel='a/b')
    (tmp_path / 'a' / 'cpu.max').write_text('100000 100000\n')
    assert _threads.cgroup_quota_cpus(root, proc) == pytest.approx(1.0)


def test_cgroup_v1_quota(tmp_path):
    d = tmp_path / 'cpu,cpuacct' / 'docker' / 'abc'
    d.mkdir(parents=True)
    (d / 'cpu.cfs_quota_us').write_text('250000\n')
    (d / 'cpu.cfs_period_us').write_text('100000\n')
    proc = '4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n'
    assert _threads.cgroup_quota_cpus(tmp_path, proc) == pytest.approx(2.5)


def test_cgroup_v1_unlimited(tmp_path):
    d = tmp_path / 'cpu,cpuacct'
    d.mkdir()
    (d / 'cpu.cfs_quota_us').write_text('-1\n')
    (d / 'cpu.cfs_period_us').write_text('100000\n')
    assert _threads.cgroup_quota_cpus(tmp_path, '4:cpu,cpuacct:/\n') is None


def test_no_cgroup_files(tmp_path):
    assert _threads.cgroup_quota_cpus(tmp_path, '') is None


# -- the choice -----------------------------------------------------------------

def test_affinity_decides_without_quota():
    c = _threads.choose({}, affinity_cpus=3, quota_cpus=None, detect=False)
    assert c.num_threads == 3
    assert c.num_threads_source.startswith('affinity')
    assert c.env['OMP_NUM_THREADS'] == '3'
    assert c.env['GOMP_SPINCOUNT'] == str(_threads.DEFAULT_SPINCOUNT)


def test_quota_below_affinity_wins_rounded_up():
    c = _threads.choose({}, affinity_cpus=8, quota_cpus=1.5, detect=False)
    assert c.num_threads == 2
    assert c.num_threads_source.startswith('cgroup quota')
    assert c.env['OMP_NUM_THREADS'] == '2'


def test_small_quota_gives_one_thread():
    c = _threads.choose({}, affinity_cpus=4, quota_cpus=0.5, detect=False)
    assert c.num_threads == 1


def test_quota_above_affinity_does_not_raise_count():
    c = _threads.choose({}, affinity_cpus=2, quota_cpus=6.0, detect=False)
    assert c.num_threads == 2
    assert c.num_threads_source.startswith('affinity')


def test_user_num_threads_kept():
    c = _threads.choose({'OMP_NUM_THREADS': '5'}, affinity_cpus=2,
                        quota_cpus=1.0, detect=False)
    assert c.num_threads == 5
    assert 'user env' in c.num_threads_source
    assert 'OMP_NUM_THREADS' not in c.env
    # The wait policy is still chosen: the user said nothing about it.
    assert c.env == {'GOMP_SPINCOUNT': str(_threads.DEFAULT_SPINCOUNT)}


@pytest.mark.parametrize('var,value', [('OMP_WAIT_POLICY', 'active'),
                                       ('GOMP_SPINCOUNT', 'infinite')])
def test_user_wait_policy_kept(var, value):
    c = _threads.choose({var: value}, affinity_cpus=2, quota_cpus=None,
                        detect=False)
    assert 'GOMP_SPINCOUNT' not in c.env
    assert c.wait_policy_source == 'user env'
    assert value in c.wait_policy
    assert c.env == {'OMP_NUM_THREADS': '2'}


def test_policy_off_sets_nothing():
    c = _threads.choose({'CPUFRAME_NO_THREAD_POLICY': '1'}, affinity_cpus=2,
                        quota_cpus=1.0, detect=False)
    assert c.env == {}


def test_detects_this_process_affinity():
    c = _threads.choose({}, quota_cpus=None)
    assert c.affinity_cpus == len(os.sched_getaffinity(0))


# -- in a fresh process: what libgomp got, set/get, runtime info -----------------

def _run(code, env_extra=None, affinity=None):
    env = dict(_CLEAN, OMP_DISPLAY_ENV='verbose')
    env.update(env_extra or {})
    pre = ''
    if affinity is not None:
        pre = 'import os; os.sched_setaffinity(0, {!r})\n'.format(set(affinity))
    r = subprocess.run([sys.executable, '-c', pre + textwrap.dedent(code)],
                       env=env, capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(os.path.dirname(_native.__file__)))
    assert r.returncode == 0, r.stderr
    return r


def _need_native():
    if _native.load() is None:
        pytest.skip('native module: {}'.format(_native.load_error()))


def test_libgomp_gets_the_choice():
    _need_native()
    r = _run("""
        import cpuframe
        from cpuframe import _native
        assert _native.load() is not None
        print('N', cpuframe.get_num_threads())
    """, affinity=[0])
    assert "OMP_NUM_THREADS = '1'" in r.stderr
    assert "GOMP_SPINCOUNT = '{}'".format(_threads.DEFAULT_SPINCOUNT) in r.stderr
    assert 'N 1' in r.stdout


def test_libgomp_keeps_user_env():
    _need_native()
    r = _run("""
        import cpuframe
        from cpuframe import _native
        assert _native.load() is not None
        print('N', cpuframe.get_num_threads())
        cpuframe.print_runtime_info()
    """, env_extra={'OMP_NUM_THREADS': '3', 'OMP_WAIT_POLICY': 'active'})
    assert "OMP_NUM_THREADS = '3'" in r.stderr
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in r.stderr
    assert 'N 3' in r.stdout
    assert 'Thread choice:  3 (user env (OMP_NUM_THREADS=3))' in r.stdout
    assert 'Wait policy:    OMP_WAIT_POLICY=active (user env)' in r.stdout


def test_set_get_round_trip():
    _need_native()
    r = _run("""
        import cpuframe
        from cpuframe import _native
        assert _native.load() is not None
        for n in (1, 3, 2):
            cpuframe.set_num_threads(n)
            print('N', n, cpuframe.get_num_threads())
        try:
            cpuframe.set_num_threads(0)
        except ValueError:
            print('rejected 0')
        cpuframe.print_runtime_info()
    """)
    assert 'N 1 1' in r.stdout and 'N 3 3' in r.stdout and 'N 2 2' in r.stdout
    assert 'rejected 0' in r.stdout
    assert 'set_num_threads: 2 (cpuframe.set_num_threads)' in r.stdout
    assert 'oneDNN threads: 2' in r.stdout


def test_set_before_load_reaches_libgomp():
    _need_native()
    r = _run("""
        import cpuframe
        from cpuframe import _native
        cpuframe.set_num_threads(1)
        assert _native.load() is not None
        print('N', cpuframe.get_num_threads())
    """)
    assert "OMP_NUM_THREADS = '1'" in r.stderr
    assert 'N 1' in r.stdout


def test_runtime_info_names_the_source():
    _need_native()
    r = _run("""
        import os
        import cpuframe
        from cpuframe import _native
        assert _native.load() is not None
        cpuframe.print_runtime_info()
    """, affinity=[0])
    assert 'Thread choice:  1 (affinity (1 CPUs))' in r.stdout
    assert 'Wait policy:    GOMP_SPINCOUNT={} (cpuframe default'.format(
        _threads.DEFAULT_SPINCOUNT) in r.stdout
    assert 'CPUs usable:    affinity 1' in r.stdout


def test_set_after_load_is_per_thread():
    # GNU OpenMP keeps omp_set_num_threads per thread: another Python thread
    # keeps the count chosen at load (documented in set_num_threads).
    _need_native()
    r = _run("""
        import threading
        import cpuframe
        from cpuframe import _native
        assert _native.load() is not None
        cpuframe.set_num_threads(1)
        seen = []
        t = threading.Thread(target=lambda: seen.append(cpuframe.get_num_threads()))
        t.start(); t.join()
        print('main', cpuframe.get_num_threads(), 'other', seen[0])
    """, env_extra={'OMP_NUM_THREADS': '3'})
    assert 'main 1 other 3' in r.stdout
