"""The names an export gives values, and the arrays it adds (Chainer's
``onnx_chainer.context.Context``)."""
import numpy
from onnx import numpy_helper

from cpuframe import backend
from cpuframe.onnx_chainer import onnx_helper


def to_numpy(array):
    """A NumPy copy-or-view of an array of any cpuframe device."""
    return numpy.asarray(backend.CpuDevice().send(array))


class Context:
    """Names of the values of one export, keyed by object identity (a
    VariableNode, a Variable, or an array), and the initializers and
    Constant nodes converters add."""

    def __init__(self, model):
        self.name_list = {}
        self.parameters = []      # (name, numpy array) initializers
        self.constants = []       # Constant nodes, before the next node
        self._keep = []           # objects named by id: kept alive
        self._const_names = set()
        self.param_to_link = {}
        links = dict(model.namedlinks()) if hasattr(model, 'namedlinks') \
            else {}
        for name, param in (model.namedparams()
                            if hasattr(model, 'namedparams') else ()):
            owner = name[:name.rindex('/')]
            if owner in links:
                self.param_to_link[id(param)] = (
                    onnx_helper.cleanse_param_name(owner), links[owner])
            self.set_name(param, onnx_helper.cleanse_param_name(name))
        # persistent arrays (batch normalization's running averages) by
        # identity: a function reads them as constants, and they are named
        # as parameters (``param_bn_avg_mean``), as in Chainer
        self.persistents = {}
        for path, link in links.items():
            for pname in sorted(getattr(link, '_persistent', ())):
                value = getattr(link, pname, None)
                if backend.is_array(value):
                    self._keep.append(value)
                    self.persistents[id(value)] = \
                        onnx_helper.cleanse_param_name(
                            path.rstrip('/') + '/' + pname)

    def _key_objects(self, value):
        objs = [value]
        node = getattr(value, '_node', None)
        if node is not None:
            objs.append(node)
            objs.append(value.array)
        return objs

    def set_name(self, value, name, pinned=False):
        """Name ``value`` (a Variable also names its node and array)."""
        for obj in self._key_objects(value):
            self.name_list[id(obj)] = (name, pinned)
            self._keep.append(obj)

    def get_name(self, value):
        """``value``'s name, a new ``v<n>`` the first time."""
        entry = self.name_list.get(id(value))
        if entry is not None:
            return entry[0]
        name = 'v{}'.format(len(self.name_list))
        self.set_name(value, name)
        return name

    def has_name(self, value):
        return id(value) in self.name_list

    def is_pinned(self, value):
        entry = self.name_list.get(id(value))
        return entry is not None and entry[1]

    def add_param(self, array, name, use_original_name=False):
        """Add ``array`` as an initializer; returns its name
        (``<function>_param_<name>`` unless ``use_original_name``)."""
        if use_original_name:
            onnx_name = name
        else:
            if not name.startswith(('/', '_')):
                name = '/' + name
            onnx_name = '{}_{}'.format(onnx_helper.get_func_name(),
                                       onnx_helper.cleanse_param_name(name))
        self.set_name(array, onnx_name)
        self.parameters.append((onnx_name, to_numpy(array)))
        return onnx_name

    def add_const(self, array, name):
        """Add ``array`` as a Constant node; returns its name
        (``<function>_const_<name>``)."""
        assert '/' not in name
        onnx_name = '{}_const_{}'.format(onnx_helper.get_func_name(), name)
        if onnx_name in self._const_names:  # a second constant of that name
            k = 1
            while '{}_{}'.format(onnx_name, k) in self._const_names:
                k += 1
            onnx_name = '{}_{}'.format(onnx_name, k)
        self._const_names.add(onnx_name)
        self.set_name(array, onnx_name)
        tensor = numpy_helper.from_array(to_numpy(array), name=onnx_name)
        self.constants.append(onnx_helper.make_node(
            'Constant', [], [onnx_name], value=tensor))
        return onnx_name

    def get_link(self, param):
        """``(link name, link)`` of the link owning ``param``, or None."""
        return self.param_to_link.get(id(param))
