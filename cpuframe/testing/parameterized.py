"""``parameterize``: one test class per parameter set, as in Chainer.

    @testing.parameterize(*testing.product({'stride': [1, 2], 'pad': [0, 1]}))
    class TestConv:
        def test_forward(self):
            ... self.stride ... self.pad ...

Generated classes are named ``TestConv_param_<i>_{stride=1, pad=0}`` and
placed in the defining module, so pytest and unittest both collect them.
``parameterize`` stacks with itself and with ``inject_backend_tests``.

``product``/``product_dict`` give every combination; with the environment
variable ``CHAINER_TEST_PAIRWISE_PARAMETERIZATION=always`` (or
``CPUFRAME_TEST_PAIRWISE_PARAMETERIZATION``) they give a smaller set that
still holds every pair of values of any two parameters together
(``never``, the default, gives the full product).
"""
import functools
import itertools
import os
import types

from cpuframe.testing import _bundle

_PAIRWISE_VARS = ('CPUFRAME_TEST_PAIRWISE_PARAMETERIZATION',
                  'CHAINER_TEST_PAIRWISE_PARAMETERIZATION')


def _pairwise_mode():
    for var in _PAIRWISE_VARS:
        value = os.environ.get(var)
        if value:
            if value not in ('never', 'always'):
                raise ValueError(
                    "{}: expected 'never' or 'always', got {!r}".format(
                        var, value))
            return value
    return 'never'


def _values_to_dicts(names, values):
    """``[{names: v} for v in values]``; a tuple of names takes tuples."""
    if isinstance(names, tuple):
        out = []
        for value in values:
            if not isinstance(value, (tuple, list)) or \
                    len(value) != len(names):
                raise ValueError(
                    'product: the values of the keys {} must be tuples of '
                    'length {}, got {!r}'.format(names, len(names), value))
            out.append(dict(zip(names, value)))
        return out
    return [{names: value} for value in values]


def product(parameter):
    """All combinations of a dict of lists (or a list of lists of dicts).

    ``product({'a': [1, 2], 'b': [3]})`` is
    ``[{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]``.  A key may be a tuple of names
    whose values are tuples (``{('a', 'b'): [(1, 2), (3, 4)]}``).  A list of
    lists of dicts gives the product of the lists, merging the dicts.
    """
    if isinstance(parameter, dict):
        keys = sorted(parameter, key=lambda k: k if isinstance(k, tuple)
                      else (k,))
        return product_dict(*[_values_to_dicts(k, parameter[k])
                              for k in keys])
    if isinstance(parameter, list):
        if not all(isinstance(p, list) for p in parameter):
            raise TypeError('product: a list argument must be a list of '
                            'lists of dicts')
        return product_dict(*parameter)
    raise TypeError('product: expected a dict of lists or a list of lists of '
                    'dicts, got {}'.format(type(parameter).__name__))


def _merge(dicts):
    merged = {}
    for d in dicts:
        merged.update(d)
    return merged


def product_dict(*parameters):
    """The merged dicts of the product of lists of dicts.

    Pairwise (see the module docstring) when the environment asks for it.
    """
    parameters = [list(p) for p in parameters]
    if _pairwise_mode() == 'always':
        rows = pairwise_indices([len(p) for p in parameters])
    else:
        rows = itertools.product(*(range(len(p)) for p in parameters))
    return [_merge(p[i] for p, i in zip(parameters, row)) for row in rows]


def pairwise_indices(sizes):
    """Rows of indices (row[k] < sizes[k]) covering every pair of columns.

    For any two columns j < k and any values a < sizes[j], b < sizes[k],
    some row has ``row[j] == a`` and ``row[k] == b``.  Built column by column
    (the IPO strategy): each new column first extends the existing rows with
    the value covering most missing pairs, then rows are added for the pairs
    still missing.  Deterministic.
    """
    sizes = list(sizes)
    if any(s == 0 for s in sizes):
        return []
    if len(sizes) <= 2:
        return [list(r) for r in itertools.product(*(range(s) for s in sizes))]
    rows = [list(r) for r in itertools.product(range(sizes[0]),
                                               range(sizes[1]))]
    for k in range(2, len(sizes)):
        missing = {(j, a, b) for j in range(k) for a in range(sizes[j])
                   for b in range(sizes[k])}
        # Horizontal growth: give each row the value of column k covering the
        # most missing pairs (the first value on ties).
        for row in rows:
            best, best_gain = 0, -1
            for b in range(sizes[k]):
                gain = sum((j, row[j], b) in missing for j in range(k))
                if gain > best_gain:
                    best, best_gain = b, gain
            row.append(best)
            missing -= {(j, row[j], best) for j in range(k)}
        # Vertical growth: rows with free ('None') cells for what is left.
        extra = []
        for j, a, b in sorted(missing):
            for row in extra:
                if row[k] == b and row[j] is None:
                    row[j] = a
                    break
            else:
                row = [None] * (k + 1)
                row[j] = a
                row[k] = b
                extra.append(row)
        for row in extra:
            rows.append([0 if v is None else v for v in row])
    return rows


def _param_repr(value):
    text = getattr(value, '__name__', None) or repr(value)
    return text if len(text) <= 40 else text[:37] + '...'


def _class_name(base_name, index, param):
    return '{}_param_{}_{{{}}}'.format(
        base_name, index, ', '.join(
            '{}={}'.format(k, _param_repr(v))
            for k, v in sorted(param.items())))


def _param_members(param):
    members = {}
    for k, v in param.items():
        # A plain function stays a function (``self.f(x)`` calls ``f(x)``).
        if isinstance(v, types.FunctionType):
            v = staticmethod(v)
        members[k] = v
    return members


def _note_parameters(base_name, method, param):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as e:
            if hasattr(e, 'add_note') and not getattr(
                    e, '_cpuframe_param_noted', False):
                e.add_note('Parameterized test failed: {}.{} with {}'.format(
                    base_name, method.__name__, ', '.join(
                        '{}={!r}'.format(k, v)
                        for k, v in sorted(param.items()))))
                try:
                    e._cpuframe_param_noted = True
                except AttributeError:
                    pass
            raise
    return wrapper


def parameterize(*params):
    """Class decorator: make one copy of the class per dict in ``params``.

    Each copy has the dict's items as class attributes (functions stay plain
    functions) and ``_parameters``, the dict.  A failing test names its
    parameters in the error.  The original class is hidden from collection
    (``__test__ = False``).
    """
    for p in params:
        if not isinstance(p, dict):
            raise TypeError('parameterize: expected dicts, got {!r}'.format(p))

    def generator(base):
        for i, param in enumerate(params):
            members = _param_members(param)
            members['_parameters'] = param

            def method_generator(method, param=param, base=base):
                return _note_parameters(base.__name__, method, param)
            yield _class_name(base.__name__, i, param), members, \
                method_generator
    return _bundle.make_decorator(generator)


def parameterize_pytest(names, values):
    """``parameterize`` taking ``pytest.mark.parametrize``'s arguments.

    ``names`` is a comma-separated string (or a sequence) of names and
    ``values`` a list of tuples (or of single values for one name).
    """
    if isinstance(names, str):
        names = [n.strip() for n in names.split(',') if n.strip()]
    names = list(names)
    params = []
    for value in values:
        if len(names) == 1:
            value = (value,)
        if len(value) != len(names):
            raise ValueError(
                'parameterize_pytest: expected {} values per entry, got '
                '{!r}'.format(len(names), value))
        params.append(dict(zip(names, value)))
    return parameterize(*params)


def from_pytest_parameterize(names, values):
    """The parameter dicts ``parameterize_pytest(names, values)`` uses."""
    if isinstance(names, str):
        names = [n.strip() for n in names.split(',') if n.strip()]
    names = list(names)
    return [dict(zip(names, (v,) if len(names) == 1 else v)) for v in values]
