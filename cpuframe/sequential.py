"""Sequential: a list of layers (links, functions or lambdas) applied in turn."""
from cpuframe.link import ChainList, Link


class Sequential(ChainList):
    """Apply layers one after another: ``Sequential(l1, F.relu, l2)(x)``.

    Layers may be Links, functions or any callables; a layer returning a
    tuple passes its items as the next layer's arguments.  Only the Link
    layers are children (named by their position among the links).
    It behaves like a list: indexing, slicing, ``append``, ``insert``,
    ``extend``, ``+``, ``remove``, ``pop``, ``clear``, ``del``.
    """

    def __init__(self, *layers):
        super().__init__()
        self._layers = []
        for layer in layers:
            self.append(layer)

    def _sync(self):
        self._children = [layer for layer in self._layers
                          if isinstance(layer, Link)]
        self._rename_children()

    @staticmethod
    def _check_layer(layer):
        if not callable(layer):
            raise TypeError('Sequential: expected a callable layer, got '
                            '{}'.format(type(layer).__name__))

    def forward(self, *x):
        if not self._layers:
            raise RuntimeError('Sequential: no layer to apply')
        # The running value lives only in `held` and is popped into each
        # call, so a layer sees it as a temporary nobody else holds (relu
        # can then fold itself into the convolution before it; see
        # cpuframe/_temporaries.py).
        held = [x]
        del x
        for layer in self._layers:
            if isinstance(held[-1], tuple):
                held.append(layer(*held.pop()))
            else:
                held.append(layer(held.pop()))
        return held.pop()

    def __len__(self):
        return len(self._layers)

    def __iter__(self):
        return iter(self._layers)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Sequential(*self._layers[index])
        return self._layers[index]

    def __setitem__(self, index, layer):
        self._check_layer(layer)
        self._layers[index] = layer
        self._sync()

    def __delitem__(self, index):
        del self._layers[index]
        self._sync()

    def __add__(self, other):
        if isinstance(other, Sequential):
            return Sequential(*(self._layers + other._layers))
        if callable(other):
            return Sequential(*(self._layers + [other]))
        return NotImplemented

    def __radd__(self, other):
        if callable(other):
            return Sequential(*([other] + self._layers))
        return NotImplemented

    def __iadd__(self, other):
        self.extend(other if isinstance(other, Sequential) else [other])
        return self

    def __contains__(self, layer):
        return any(layer is item for item in self._layers)

    def append(self, layer):
        """Add ``layer`` at the end."""
        self._check_layer(layer)
        self._layers.append(layer)
        self._sync()

    def add_link(self, link):
        self.append(link)

    def insert(self, index, layer):
        """Insert ``layer`` before position ``index``."""
        self._check_layer(layer)
        self._layers.insert(index, layer)
        self._sync()

    def extend(self, layers):
        """Append every layer of an iterable."""
        for layer in layers:
            self.append(layer)

    def remove(self, layer):
        """Remove the first occurrence of ``layer``."""
        for i, item in enumerate(self._layers):
            if item is layer or item == layer:
                del self[i]
                return
        raise ValueError('Sequential.remove: layer not in the sequence')

    def pop(self, index=-1):
        """Remove and return the layer at ``index``."""
        layer = self._layers.pop(index)
        self._sync()
        return layer

    def clear(self):
        """Remove every layer."""
        self._layers = []
        self._sync()

    def index(self, layer, start=0, end=None):
        """Position of the first occurrence of ``layer``."""
        end = len(self._layers) if end is None else end
        for i in range(start, end):
            if self._layers[i] is layer:
                return i
        raise ValueError('Sequential.index: layer not in the sequence')

    def count(self, layer):
        """How many times ``layer`` occurs."""
        return sum(1 for item in self._layers if item is layer)

    def count_by_layer_type(self, type_name):
        """How many layers have the class (or function) name ``type_name``."""
        return sum(1 for layer in self._layers
                   if getattr(layer, '__name__', type(layer).__name__)
                   == type_name or type(layer).__name__ == type_name)

    def flatten(self):
        """A Sequential with nested Sequentials expanded in place."""
        out = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                out.extend(layer.flatten())
            else:
                out.append(layer)
        return out

    def copy(self, mode='share'):
        ret = super().copy(mode)
        new_children = iter(ret._children)
        ret._layers = [next(new_children) if isinstance(layer, Link)
                       else layer for layer in self._layers]
        ret._sync()
        return ret

    def repeat(self, n_repeat, mode='init'):
        """The layers repeated ``n_repeat`` times, links copied with ``mode``."""
        ret = Sequential()
        for _ in range(max(n_repeat, 0)):
            ret.extend(self.copy(mode)._layers)
        return ret

    def __repr__(self):
        if not self._layers:
            return 'Sequential()'
        lines = ['Sequential(']
        for i, layer in enumerate(self._layers):
            text = repr(layer) if isinstance(layer, Link) else \
                getattr(layer, '__name__', repr(layer))
            lines.append('  ({}): {},'.format(i, text.replace('\n', '\n  ')))
        lines.append(')')
        return '\n'.join(lines)
