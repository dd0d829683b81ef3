"""Test helpers: requirements, warnings and patching
(``chainer.testing.helper``)."""
import contextlib
import re
import sys
import unittest
import warnings


def _split_requirement(requirement):
    match = re.match(r'^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?'
                     r'\s*(.*?)\s*$', requirement)
    if match is None:
        raise ValueError('with_requires: cannot parse the requirement '
                         '{!r}'.format(requirement))
    return match.group(1), match.group(2)


def _simple_version(text):
    """A comparable tuple from a version string (digits only)."""
    parts = []
    for piece in re.split(r'[.+-]', text):
        match = re.match(r'\d+', piece)
        if match is None:
            break
        parts.append(int(match.group()))
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


_SIMPLE_OPS = {
    '>=': lambda a, b: a >= b, '<=': lambda a, b: a <= b,
    '>': lambda a, b: a > b, '<': lambda a, b: a < b,
    '==': lambda a, b: a == b, '!=': lambda a, b: a != b,
}


def _satisfies_simple(version, spec):
    for clause in filter(None, (c.strip() for c in spec.split(','))):
        match = re.match(r'^(>=|<=|==|!=|>|<)\s*(\S+)$', clause)
        if match is None:
            raise ValueError('with_requires: cannot parse the version '
                             'specifier {!r}'.format(clause))
        op, wanted = match.groups()
        if not _SIMPLE_OPS[op](_simple_version(version),
                               _simple_version(wanted)):
            return False
    return True


def _installed_version(name):
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _satisfied(requirement):
    """Whether an installed distribution meets a requirement string."""
    try:
        from packaging.requirements import Requirement
    except ImportError:
        Requirement = None
    if Requirement is not None:
        req = Requirement(requirement)
        version = _installed_version(req.name)
        if version is None:
            return False
        return req.specifier.contains(version, prereleases=True)
    name, spec = _split_requirement(requirement)
    version = _installed_version(name)
    if version is None:
        return False
    return _satisfies_simple(version, spec)


def _check_requirements(requirements):
    return all(_satisfied(r) for r in requirements)


def with_requires(*requirements):
    """Skip a test (method or class) unless every requirement is met.

    Requirements are strings such as ``'numpy>=1.10'``, checked against the
    installed distributions.
    """
    return unittest.skipIf(
        not _check_requirements(requirements),
        'requires: {}'.format(','.join(requirements)))


def without_requires(*requirements):
    """Skip a test (method or class) when every requirement is met."""
    return unittest.skipIf(
        _check_requirements(requirements),
        'requires not: {}'.format(','.join(requirements)))


@contextlib.contextmanager
def assert_warns(expected):
    """Assert that the ``with`` block issues a warning of class ``expected``.

    Every warning is recorded (filters are switched to 'always' inside).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        yield caught
    if not any(isinstance(w.message, expected) for w in caught):
        name = getattr(expected, '__name__', str(expected))
        raise AssertionError('{} not triggered'.format(name))


def _import_object_from_name(fullname):
    parts = fullname.split('.')
    obj = sys.modules.get(parts[0])
    if obj is None:
        raise RuntimeError("Can't import {}".format(parts[0]))
    for i, part in enumerate(parts[1:]):
        obj = getattr(obj, part)
        if obj is None:
            raise RuntimeError("Can't find object {}".format(
                '.'.join(parts[:i + 2])))
    return obj


def patch(target, *args, **kwargs):
    """``mock.patch`` whose mock wraps the patched object by default.

    Calls reach the original (``wraps=``) while the mock records them.
    ``target`` is the object's full dotted name (its top-level module must
    be imported).  Pass ``wraps=`` to wrap something else.
    """
    from unittest import mock
    if 'wraps' not in kwargs:
        kwargs['wraps'] = _import_object_from_name(target)
    return mock.patch(target, *args, **kwargs)
