"""The package as a user's tools see it: dir(), typing marker."""
import os

import cpuframe


def test_dir_lists_the_lazily_imported_modules_and_names():
    names = dir(cpuframe)
    for name in cpuframe._LAZY_MODULES + tuple(cpuframe._LAZY_NAMES):
        assert name in names
    for name in ('links', 'training', 'optimizers', 'Chain', 'Variable'):
        assert name in names
    assert names == sorted(names)


def test_every_name_in_dir_resolves():
    for name in dir(cpuframe):
        getattr(cpuframe, name)


def test_py_typed_marker_ships_with_the_package():
    assert os.path.isfile(os.path.join(os.path.dirname(cpuframe.__file__),
                                       'py.typed'))
