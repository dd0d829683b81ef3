"""``parameterize``: one test class per parameter set, as in Chainer.

    @testing.parameterize(*testing.product({'stride': [1, 2], 'pad': [0, 1]}))
    class TestConv:
        def test_forward(self):
            ... self.stride ... self.pad ...

Generated classes are named ``TestConv_param_<i>_{stride=1, pad=0}`` and
placed in the defining module, so pytest and unittest both collect them.
"""
import itertools
import sys


def product(parameter):
    """All combinations of a dict of lists (or a list of such dicts).

    ``product({'a': [1, 2], 'b': [3]})`` is
    ``[{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]``.  A list of lists of dicts
    gives the product of the lists, merging the dicts.
    """
    if isinstance(parameter, dict):
        keys = sorted(parameter)
        return [dict(zip(keys, values)) for values in
                itertools.product(*(parameter[k] for k in keys))]
    if isinstance(parameter, list):
        return product_dict(*parameter)
    raise TypeError('product: expected a dict of lists or a list of lists of '
                    'dicts, got {}'.format(type(parameter).__name__))


def product_dict(*parameters):
    """The merged dicts of the product of lists of dicts."""
    out = []
    for combo in itertools.product(*parameters):
        merged = {}
        for d in combo:
            merged.update(d)
        out.append(merged)
    return out


def _param_repr(value):
    text = getattr(value, '__name__', None) or repr(value)
    return text if len(text) <= 40 else text[:37] + '...'


def parameterize(*params):
    """Class decorator: make one copy of the class per dict in ``params``.

    Each copy has the dict's items as class attributes.  The original class
    is removed from its module so it is not collected without parameters.
    """
    def decorator(cls):
        module = sys.modules[cls.__module__]
        for i, param in enumerate(params):
            name = '{}_param_{}_{{{}}}'.format(
                cls.__name__, i, ', '.join(
                    '{}={}'.format(k, _param_repr(v))
                    for k, v in sorted(param.items())))
            attrs = dict(param)
            attrs['__module__'] = cls.__module__
            attrs['_parameters'] = param
            new_cls = type(name, (cls,), attrs)
            new_cls.__qualname__ = name
            setattr(module, name, new_cls)
        # The generated classes inherit __test__ from here, so set it on
        # each copy and hide only the un-parameterized original.
        for name in list(vars(module)):
            obj = getattr(module, name)
            if isinstance(obj, type) and obj.__bases__ == (cls,):
                obj.__test__ = True
        cls.__test__ = False
        return cls
    return decorator
