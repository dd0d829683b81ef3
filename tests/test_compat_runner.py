"""``python -m cpuframe.compat`` behaves as ``python``; the opt-in alias
(``CPUFRAME_AS_CHAINER=1`` and the ``.pth`` hook) reaches every process.

Every subprocess runs with its working directory outside the checkout, so it
imports the installed cpuframe rather than the source tree.
"""
import os
import pathlib
import site
import subprocess
import sys
import textwrap

import pytest

from cpuframe import testing

REPO = pathlib.Path(__file__).resolve().parent.parent
PTH_NAME = 'cpuframe-chainer-alias.pth'


def _python(args, cwd, env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.pop('CPUFRAME_AS_CHAINER', None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, *args], cwd=str(cwd), env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def _compat(args, cwd, **kwargs):
    return _python(['-m', 'cpuframe.compat', *args], cwd, **kwargs)


@pytest.fixture
def project(tmp_path):
    """A Chainer project: ``train.py`` importing its sibling ``net.py``."""
    src = tmp_path / 'project'
    src.mkdir()
    (src / 'net.py').write_text('UNITS = 7\n')
    (src / 'train.py').write_text(textwrap.dedent('''
        import pickle
        import sys

        import chainer
        import net

        def objective():
            return net.UNITS

        print('name', __name__)
        print('file', __file__)
        print('argv', sys.argv)
        print('path0', sys.path[0])
        print('chainer', chainer.__name__)
        # Functions of __main__ pickle by reference, as multiprocessing needs.
        print('pickled', pickle.loads(pickle.dumps(objective))() == 7)
        if len(sys.argv) > 1 and sys.argv[1] == 'fail':
            raise ValueError('failing as asked')
        sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    '''))
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    return src, elsewhere


def _fields(stdout):
    return dict(line.split(' ', 1) for line in stdout.splitlines() if ' ' in line)


class TestScriptRunsAsUnderPython:

    def test_script_directory_argv_main_and_file(self, project):
        src, elsewhere = project
        out = _compat(['../project/train.py', '0'], elsewhere)
        assert out.returncode == 0, out.stderr
        fields = _fields(out.stdout)
        assert fields['name'] == '__main__'
        assert fields['file'] == str(src / 'train.py')
        assert fields['argv'] == "['../project/train.py', '0']"
        assert fields['path0'] == str(src.resolve())
        assert fields['chainer'] == 'cpuframe'
        assert fields['pickled'] == 'True'

    def test_matches_plain_python_field_by_field(self, project):
        src, elsewhere = project
        plain = _python(['../project/train.py', '0'], elsewhere)
        # Plain Python has no chainer here: compare what does not need it.
        via = _compat(['../project/train.py', '0'], elsewhere)
        plain_fields = _fields(plain.stdout)
        via_fields = _fields(via.stdout)
        if plain.returncode == 0:   # a real Chainer is installed
            assert plain_fields == via_fields | {'chainer': 'chainer'}
        else:
            assert 'chainer' in plain.stderr
        assert via_fields['path0'] == str(src.resolve())

    def test_uncaught_exception_exits_1_with_traceback(self, project):
        src, elsewhere = project
        out = _compat([str(src / 'train.py'), 'fail'], elsewhere)
        assert out.returncode == 1
        assert 'ValueError: failing as asked' in out.stderr
        assert 'Traceback' in out.stderr

    def test_missing_script_is_one_line(self, tmp_path):
        out = _compat(['no_such_train.py'], tmp_path)
        assert out.returncode == 2
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert "can't open file" in lines[0]
        assert 'no_such_train.py' in lines[0]

    def test_version_is_not_a_script(self, tmp_path):
        import cpuframe
        out = _compat(['--version'], tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith('cpuframe ' + cpuframe.__version__)

    def test_unknown_option_is_rejected(self, tmp_path):
        out = _compat(['--epochs'], tmp_path)
        assert out.returncode == 2
        assert 'unknown option --epochs' in out.stderr

    def test_dash_c_runs_a_command(self, tmp_path):
        out = _compat(['-c', 'import sys, chainer; '
                             'print(chainer.__name__, sys.argv)', 'a'],
                      tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "cpuframe ['-c', 'a']"

    def test_dash_m_runs_a_module_from_the_working_directory(self, tmp_path):
        (tmp_path / 'mytool.py').write_text(
            'import sys, chainer\nprint(__name__, chainer.__name__, '
            'sys.argv[1:])\n')
        out = _compat(['-m', 'mytool', 'x'], tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "__main__ cpuframe ['x']"


@testing.parameterize(*testing.product({'status': [0, 3, 42]}))
class TestExitStatus:
    def test_exit_status_is_the_scripts(self, project):
        src, elsewhere = project
        out = _compat([str(src / 'train.py'), str(self.status)], elsewhere)
        assert out.returncode == self.status, out.stderr


class TestMissingModuleMessage:

    def test_chainer_module_cpuframe_lacks_says_so(self, tmp_path):
        out = _compat(['-c', 'import chainer.no_such_module'], tmp_path)
        assert out.returncode == 1
        assert ('ModuleNotFoundError: cpuframe does not provide '
                'chainer.no_such_module yet') in out.stderr
        assert 'No module named' not in out.stderr

    def test_error_is_still_an_import_error(self, tmp_path):
        out = _compat(['-c', textwrap.dedent('''
            try:
                import chainer.no_such_module
            except ImportError as e:
                print(type(e).__name__)
        ''')], tmp_path)
        assert out.stdout.strip() == 'ModuleNotFoundError', out.stderr

    def test_existing_paths_still_resolve(self, tmp_path):
        out = _compat(['-c', 'from chainer.functions.normalization import '
                             'batch_normalization as m; print(m.__name__)'],
                      tmp_path)
        assert out.stdout.strip() == (
            'cpuframe.functions.normalization.batch_normalization'), out.stderr


def _installed_pth():
    for directory in site.getsitepackages() + [site.getusersitepackages()]:
        path = pathlib.Path(directory) / PTH_NAME
        if path.exists():
            return path
    return None


HOOK_PROBE = textwrap.dedent('''
    import sys
    before = sorted(m for m in ('cpuframe', 'numpy') if m in sys.modules)
    import chainer
    import chainer.links as L
    print('before', before)
    print('chainer', chainer.__name__, L.__name__)
''')


def _with_pth(tmp_path, code):
    """``code`` run with the repository's .pth file in a site directory."""
    site_dir = tmp_path / 'site'
    site_dir.mkdir()
    (site_dir / PTH_NAME).write_text((REPO / 'packaging' / PTH_NAME).read_text())
    return 'import site; site.addsitedir({!r})\n'.format(str(site_dir)) + code


@testing.parameterize(*testing.product({'value': ['', '0', 'no', 'off']}))
class TestAliasOff:
    def test_unset_or_false_leaves_chainer_alone(self, tmp_path):
        code = _with_pth(tmp_path, 'import chainer\nprint(chainer.__name__)\n')
        out = _python(['-c', code], tmp_path,
                      env={'CPUFRAME_AS_CHAINER': self.value})
        assert 'cpuframe' not in out.stdout
        # Without the alias it is whatever `chainer` is installed, or none.
        assert out.returncode == 0 or 'chainer' in out.stderr


class TestEnvironmentAlias:
    """``CPUFRAME_AS_CHAINER=1``: no change to the command is needed."""

    def test_pth_line_is_lazy_and_aliases(self, tmp_path):
        code = _with_pth(tmp_path, HOOK_PROBE)
        out = _python(['-c', code], tmp_path, env={'CPUFRAME_AS_CHAINER': '1'})
        assert out.returncode == 0, out.stderr
        fields = _fields(out.stdout)
        assert fields['before'] == '[]'     # nothing imported at start-up
        assert fields['chainer'] == 'cpuframe cpuframe.links'

    def test_installed_hook_reaches_workers_and_pytest(self, tmp_path):
        if _installed_pth() is None:
            pytest.skip('{} is not in site-packages (an editable install '
                        'does not install it; a regular install does)'
                        .format(PTH_NAME))
        env = {'CPUFRAME_AS_CHAINER': '1'}
        out = _python(['-c', HOOK_PROBE], tmp_path, env=env)
        assert out.returncode == 0, out.stderr
        assert _fields(out.stdout)['chainer'] == 'cpuframe cpuframe.links'
        # A spawned worker (a fresh interpreter, as mpiexec ranks are).
        code = textwrap.dedent('''
            import multiprocessing as mp

            def probe(_):
                import chainer
                return chainer.__name__

            if __name__ == '__main__':
                with mp.get_context('spawn').Pool(1) as pool:
                    print(pool.map(probe, [0]))
        ''')
        (tmp_path / 'spawn_probe.py').write_text(code)
        out = _python(['spawn_probe.py'], tmp_path, env=env)
        assert out.stdout.strip() == "['cpuframe']", out.stderr
        # pytest collecting a test module written against chainer.testing.
        (tmp_path / 'test_user.py').write_text(textwrap.dedent('''
            import chainer
            from chainer import testing

            @testing.parameterize({'n': 1}, {'n': 2})
            class TestUser:
                def test_it(self):
                    assert chainer.__name__ == 'cpuframe' and self.n in (1, 2)
        '''))
        out = _python(['-m', 'pytest', '-q', '-p', 'no:cacheprovider',
                       'test_user.py'], tmp_path, env=env)
        assert out.returncode == 0, out.stdout + out.stderr
        assert '2 passed' in out.stdout


class TestChainerMNAlias:

    def test_chainermn_is_cpuframe_mn(self, tmp_path):
        out = _compat(['-c', 'import chainermn, chainermn.communicators as c; '
                             'print(chainermn.__name__, c.__name__, '
                             'callable(chainermn.create_communicator))'],
                      tmp_path)
        assert out.stdout.split() == [
            'cpuframe.mn', 'cpuframe.mn.communicators', 'True'], out.stderr

    def test_missing_chainermn_module_says_so(self, tmp_path):
        out = _compat(['-c', 'import chainermn.no_such_part'], tmp_path)
        assert 'cpuframe does not provide chainermn.no_such_part' in out.stderr

    def test_keep_chainermn_leaves_the_real_one(self, tmp_path):
        out = _compat(['-c', 'import chainermn'], tmp_path,
                      env={'CPUFRAME_KEEP_CHAINERMN': '1'})
        assert 'cpuframe.mn' not in out.stdout
        assert out.returncode == 0 or "No module named 'chainermn'" in out.stderr
