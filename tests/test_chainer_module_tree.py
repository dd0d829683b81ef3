"""Chainer 7's module layout: every module path and name cpuframe claims
imports under ``import chainer``, and no submodule is hidden behind a
function of the same name.

The data (Chainer 7.8.1's public tree and what cpuframe does not provide
yet) is in chainer7_module_tree.py.  The counts are printed with ``-s``.
"""
import importlib
import sys

import pytest

from cpuframe import compat

from . import chainer7_module_tree as data

# Deprecated Chainer names (e.g. chainer.optimizer.WeightDecay) warn on access.
pytestmark = pytest.mark.filterwarnings('ignore::DeprecationWarning')

CLAIMED_MODULES = sorted(set(data.TREE) - data.NOT_PROVIDED_MODULES)


def _names(module):
    return data.TREE[module].split()


def _missing_names(module):
    return set(data.NOT_PROVIDED_NAMES.get(module, '').split())


@pytest.fixture(scope='module')
def chainer_alias():
    already = compat._finder in sys.meta_path
    compat.install()
    yield importlib.import_module
    if not already:
        compat.uninstall()


def test_data_is_consistent():
    assert data.NOT_PROVIDED_MODULES <= set(data.TREE)
    for module, names in data.NOT_PROVIDED_NAMES.items():
        assert module in data.TREE and module not in data.NOT_PROVIDED_MODULES
        assert set(names.split()) <= set(_names(module)), module


@pytest.mark.parametrize('module', CLAIMED_MODULES)
def test_claimed_module_and_names_resolve(chainer_alias, module):
    mod = chainer_alias(module)
    absent = [name for name in _names(module)
              if name not in _missing_names(module) and not hasattr(mod, name)]
    assert not absent, '{} lacks {}'.format(module, absent)
    # A name listed as missing that now exists: take it off the list.
    now_present = sorted(n for n in _missing_names(module) if hasattr(mod, n))
    assert not now_present, (
        '{} now has {}: remove them from NOT_PROVIDED_NAMES'.format(
            module, now_present))


@pytest.mark.parametrize('module', CLAIMED_MODULES)
def test_submodule_is_not_shadowed(chainer_alias, module):
    parent, _, leaf = module.rpartition('.')
    if not parent:
        return
    mod = chainer_alias(module)
    bound = getattr(chainer_alias(parent), leaf, None)
    if (parent, leaf) in data.CHAINER_SHADOWS:
        # Chainer itself binds the function there (chainer.utils.experimental).
        assert bound is getattr(mod, leaf), '{}.{} is {!r}'.format(
            parent, leaf, bound)
        return
    assert bound is mod, '{}.{} is {!r}, not the module'.format(
        parent, leaf, bound)
    # The `from package import module` form users write.
    namespace = {}
    exec('from {} import {} as found'.format(parent, leaf), namespace)
    assert namespace['found'] is mod


@pytest.mark.parametrize('module', sorted(data.NOT_PROVIDED_MODULES))
def test_listed_missing_module_is_missing_and_says_so(chainer_alias, module):
    parent = module.rpartition('.')[0]
    if parent in data.NOT_PROVIDED_MODULES:
        return   # its parent already fails
    with pytest.raises(ImportError) as info:
        chainer_alias(module)
    message = str(info.value)
    # Modules cpuframe lacks entirely say so; a broken one would show its
    # own error (and belongs nowhere in this list).
    assert 'cpuframe does not provide {}'.format(module) in message, message


def test_counts(capsys):
    modules = len(data.TREE)
    names = sum(len(_names(m)) for m in data.TREE)
    provided_modules = modules - len(data.NOT_PROVIDED_MODULES)
    provided_names = sum(
        len(_names(m)) - len(_missing_names(m)) for m in CLAIMED_MODULES)
    with capsys.disabled():
        print('\nChainer 7 module tree: {}/{} module paths, {}/{} names '
              'provided'.format(provided_modules, modules, provided_names,
                                names))
    assert provided_modules > 0 and provided_names > 0


def test_readme_lists_what_is_not_provided():
    from . import chainer7_not_provided as listing
    with open(listing.readme_path()) as f:
        block = listing.current_block(f.read())
    assert block is not None, \
        'docs/chainer-coverage.md lacks the not-provided table'
    assert block == listing.render(), (
        'docs/chainer-coverage.md\'s not-provided table is stale: run '
        'python tests/chainer7_not_provided.py')
    for module in data.NOT_PROVIDED_MODULES:
        assert module in listing.MODULE_REASONS, module


# What ``import chainer`` (7.8.1) leaves unbound: reaching these needs their
# own import statement there too (read from Chainer 7.8.1 by walking
# attributes from the package after ``import chainer``).
_UNBOUND_AFTER_IMPORT_IN_CHAINER = frozenset({
    'chainer.exporters', 'chainer.exporters.caffe', 'chainer.gradient_check',
    'chainer.link_hooks', 'chainer.link_hooks.spectral_normalization',
    'chainer.link_hooks.timer', 'chainer.link_hooks.weight_standardization',
    'chainer.links.caffe', 'chainer.links.caffe.caffe_function',
    'chainer.links.caffe.protobuf3', 'chainer.links.caffe.protobuf3.caffe_pb2',
    'chainer.testing', 'chainer.testing.array', 'chainer.testing.attr',
    'chainer.testing.backend', 'chainer.testing.condition',
    'chainer.testing.distribution_test', 'chainer.testing.doctest_helper',
    'chainer.testing.function_link', 'chainer.testing.helper',
    'chainer.testing.matrix', 'chainer.testing.parameterized',
    'chainer.testing.random', 'chainer.testing.serializer',
    'chainer.testing.training', 'chainer.testing.unary_math_function_test',
})


def test_modules_bound_after_import_as_in_chainer():
    # ``F.math.identity`` and the like are attributes right after
    # ``import chainer`` on cpuframe, as on Chainer (a fresh process).
    import subprocess
    paths = sorted(set(CLAIMED_MODULES) - _UNBOUND_AFTER_IMPORT_IN_CHAINER
                   - {'chainer'})
    code = (
        'import sys\n'
        'from cpuframe import compat\n'
        'compat.install()\n'
        'import chainer\n'
        'bad = []\n'
        'for path in sys.argv[1:]:\n'
        '    obj = chainer\n'
        '    for part in path.split(".")[1:]:\n'
        '        if not hasattr(obj, part):\n'
        '            bad.append(path)\n'
        '            break\n'
        '        obj = getattr(obj, part)\n'
        'print(" ".join(bad))\n')
    out = subprocess.run([sys.executable, '-c', code] + paths,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == []
