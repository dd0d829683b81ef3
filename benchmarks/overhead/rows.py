"""The small-work rows of the overhead benchmark, one builder per row.

Each builder takes a framework namespace (``fw``, see ``chainer_api`` and
``torch_api``) and returns a zero-argument ``step`` callable: one
repetition of the row's work. The Chainer-API builders run unchanged on
cpuframe (any device) and on Chainer itself; the torch twins do the same
arithmetic in PyTorch eager. Inputs are made once, outside ``step``.
"""
import numpy

#: (row name, what it is) in the order of the table.
MODEL_ROWS = (
    ('relu_4', 'one F.relu on a 4-element array, no grad'),
    ('elementwise_10', '10 elementwise ops on 32x32, then backward'),
    ('mnist_mlp', 'MLP 784-100-100-10, batch 100, one SGD step'),
    ('dqn_mlp', 'MLP 4-64-64-2, batch 32, one Adam step'),
    ('lstm_2steps', 'L.LSTM(128, 128), 2 steps at batch 1, backward'),
    ('tiny_convnet', 'conv 1-8 3x3 + pool + linear, 8x8 batch 16, SGD step'),
)
#: The per-op rows: each op on small arrays, forward alone (graph
#: recorded) and forward + backward.
OPS = ('add', 'mul', 'relu', 'sigmoid', 'tanh', 'linear', 'sum', 'reshape',
       'getitem', 'concat', 'softmax_cross_entropy')
OP_ROWS = tuple(
    ('{}_{}'.format(op, kind), '{} {}'.format(op, kind))
    for op in OPS for kind in ('fwd', 'fwdbwd'))
ROWS = MODEL_ROWS + OP_ROWS


def _rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(
        -1, 1, shape).astype(numpy.float32)


def _labels(n, classes, seed=1):
    return numpy.random.RandomState(seed).randint(
        0, classes, n).astype(numpy.int32)


# ---------------------------------------------------------------------------
# Chainer's API (cpuframe or Chainer)
# ---------------------------------------------------------------------------

class ChainerAPI:
    """``ch`` is ``cpuframe`` or ``chainer``; ``device`` a device spec
    (``'@numpy'``, ``'@intel64'``) the model and the inputs are sent to."""

    def __init__(self, ch, device, static=False):
        import importlib
        self.ch = ch
        #: decorate the models' forward with ``@static_graph`` (the model
        #: rows only)
        self.static = static
        self.F = importlib.import_module(ch.__name__ + '.functions')
        self.L = importlib.import_module(ch.__name__ + '.links')
        self.device = ch.get_device(device)

    def array(self, a):
        return self.device.send(a)

    def var(self, a):
        return self.ch.Variable(self.array(a))

    def model(self, link):
        link.to_device(self.device)
        return link


def _mlp(api, sizes):
    ch, L, F = api.ch, api.L, api.F

    class MLP(ch.ChainList):
        def __init__(self):
            super().__init__(*[L.Linear(a, b) for a, b in
                               zip(sizes[:-1], sizes[1:])])

        def forward(self, x):
            for link in list(self)[:-1]:
                x = F.relu(link(x))
            return self[-1](x)
        if api.static:
            forward = ch.static_graph(forward)
    return MLP()


def chainer_rows(api):
    ch, F, L = api.ch, api.F, api.L
    rows = {}

    x4 = api.array(_rand(4))
    if not api.static:
        rows['relu_4'] = lambda: F.relu(x4)

    a, b = api.var(_rand(32, 32)), api.var(_rand(32, 32, seed=1))

    def elementwise_10():
        h = a * b
        h = h + a
        h = F.tanh(h)
        h = F.sigmoid(h)
        h = F.relu(h)
        h = h - b
        h = h * h
        h = F.exp(h)
        h = h / 2
        loss = F.sum(h)
        a.cleargrad()
        b.cleargrad()
        loss.backward()
    if not api.static:
        rows['elementwise_10'] = elementwise_10

    mnist = api.model(L.Classifier(_mlp(api, (784, 100, 100, 10))))
    opt = ch.optimizers.SGD(lr=0.01).setup(mnist)
    xm, tm = api.array(_rand(100, 784)), api.array(_labels(100, 10))
    rows['mnist_mlp'] = lambda: opt.update(mnist, xm, tm)

    dqn = api.model(_mlp(api, (4, 64, 64, 2)))
    adam = ch.optimizers.Adam().setup(dqn)
    xd, td = api.array(_rand(32, 4)), api.array(_rand(32, 2, seed=2))

    def dqn_mlp():
        loss = F.mean_squared_error(dqn(xd), td)
        dqn.cleargrads()
        loss.backward()
        adam.update()
    rows['dqn_mlp'] = dqn_mlp

    xl = [api.array(_rand(1, 128, seed=s)) for s in (3, 4)]
    if api.static:
        class TwoSteps(ch.Chain):
            def __init__(self):
                super().__init__()
                with self.init_scope():
                    self.lstm = L.LSTM(128, 128)

            @ch.static_graph
            def forward(self, x0, x1):
                self.lstm.reset_state()
                self.lstm(x0)
                return self.lstm(x1)
        two = api.model(TwoSteps())

        def lstm_2steps():
            loss = F.sum(two(xl[0], xl[1]))
            two.cleargrads()
            loss.backward()
    else:
        lstm = api.model(L.LSTM(128, 128))

        def lstm_2steps():
            lstm.reset_state()
            h = lstm(xl[0])
            h = lstm(xl[1])
            loss = F.sum(h)
            lstm.cleargrads()
            loss.backward()
    rows['lstm_2steps'] = lstm_2steps

    class TinyConvNet(ch.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.conv = L.Convolution2D(1, 8, 3, pad=1)
                self.fc = L.Linear(128, 10)

        def forward(self, x):
            h = F.max_pooling_2d(F.relu(self.conv(x)), 2)
            return self.fc(h)
        if api.static:
            forward = ch.static_graph(forward)
    conv = api.model(L.Classifier(TinyConvNet()))
    sgd = ch.optimizers.SGD(lr=0.01).setup(conv)
    xc, tc = api.array(_rand(16, 1, 8, 8)), api.array(_labels(16, 10))
    rows['tiny_convnet'] = lambda: sgd.update(conv, xc, tc)
    if api.static:
        return rows

    x, y = api.var(_rand(32, 32)), api.var(_rand(32, 32, seed=1))
    w, bias = api.var(_rand(32, 32, seed=2)), api.var(_rand(32, seed=3))
    logits, t = api.var(_rand(32, 10)), api.array(_labels(32, 10))
    ops = {
        'add': lambda: x + y,
        'mul': lambda: x * y,
        'relu': lambda: F.relu(x),
        'sigmoid': lambda: F.sigmoid(x),
        'tanh': lambda: F.tanh(x),
        'linear': lambda: F.linear(x, w, bias),
        'sum': lambda: F.sum(x),
        'reshape': lambda: F.reshape(x, (16, 64)),
        'getitem': lambda: x[3:20],
        'concat': lambda: F.concat((x, y), axis=1),
        'softmax_cross_entropy': lambda: F.softmax_cross_entropy(logits, t),
    }
    leaves = (x, y, w, bias, logits)
    for name, fn in ops.items():
        rows[name + '_fwd'] = fn
        rows[name + '_fwdbwd'] = _fwdbwd(fn, leaves, api)
    return rows


def _fwdbwd(fn, leaves, api):
    cache = {}

    def step():
        out = fn()
        g = cache.get(out.shape)
        if g is None:
            g = cache[out.shape] = api.array(
                numpy.ones(out.shape, numpy.float32))
        out.grad = g
        for v in leaves:
            v.cleargrad()
        out.backward()
    return step


# ---------------------------------------------------------------------------
# PyTorch eager (comparison only)
# ---------------------------------------------------------------------------

def torch_rows(torch):
    F = torch.nn.functional
    t = torch.from_numpy
    rows = {}

    x4 = t(_rand(4))

    def relu_4():
        with torch.no_grad():
            return torch.relu(x4)
    rows['relu_4'] = relu_4

    a = t(_rand(32, 32)).requires_grad_()
    b = t(_rand(32, 32, seed=1)).requires_grad_()

    def elementwise_10():
        h = a * b
        h = h + a
        h = torch.tanh(h)
        h = torch.sigmoid(h)
        h = torch.relu(h)
        h = h - b
        h = h * h
        h = torch.exp(h)
        h = h / 2
        loss = h.sum()
        a.grad = b.grad = None
        loss.backward()
    rows['elementwise_10'] = elementwise_10

    for name, (loss_of, zero_grad, update) in _torch_models(torch).items():
        def step(loss_of=loss_of, zero_grad=zero_grad, update=update):
            loss = loss_of()
            zero_grad()
            loss.backward()
            update()
        rows[name] = step

    x = t(_rand(32, 32)).requires_grad_()
    y = t(_rand(32, 32, seed=1)).requires_grad_()
    w = t(_rand(32, 32, seed=2)).requires_grad_()
    bias = t(_rand(32, seed=3)).requires_grad_()
    logits = t(_rand(32, 10)).requires_grad_()
    labels = t(_labels(32, 10)).long()
    ops = {
        'add': lambda: x + y,
        'mul': lambda: x * y,
        'relu': lambda: torch.relu(x),
        'sigmoid': lambda: torch.sigmoid(x),
        'tanh': lambda: torch.tanh(x),
        'linear': lambda: F.linear(x, w, bias),
        'sum': lambda: x.sum(),
        'reshape': lambda: x.reshape(16, 64),
        'getitem': lambda: x[3:20],
        'concat': lambda: torch.cat((x, y), 1),
        'softmax_cross_entropy': lambda: F.cross_entropy(logits, labels),
    }
    leaves = (x, y, w, bias, logits)
    for name, fn in ops.items():
        rows[name + '_fwd'] = fn

        def fwdbwd(fn=fn):
            out = fn()
            for v in leaves:
                v.grad = None
            out.backward(torch.ones_like(out))
        rows[name + '_fwdbwd'] = fwdbwd
    return rows


def _torch_models(torch):
    """The model rows' parts in PyTorch: per row, (the loss of the forward,
    zero_grad, the optimizer's update), each a zero-argument callable."""
    nn, F = torch.nn, torch.nn.functional
    t = torch.from_numpy
    models = {}

    def mlp(sizes):
        layers = []
        for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(m, n))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers)

    def nothing():
        pass

    mnist = mlp((784, 100, 100, 10))
    sgd = torch.optim.SGD(mnist.parameters(), lr=0.01)
    xm, tm = t(_rand(100, 784)), t(_labels(100, 10)).long()
    models['mnist_mlp'] = (lambda: F.cross_entropy(mnist(xm), tm),
                           sgd.zero_grad, sgd.step)

    dqn = mlp((4, 64, 64, 2))
    adam = torch.optim.Adam(dqn.parameters())
    xd, td = t(_rand(32, 4)), t(_rand(32, 2, seed=2))
    models['dqn_mlp'] = (lambda: F.mse_loss(dqn(xd), td), adam.zero_grad,
                         adam.step)

    cell = nn.LSTMCell(128, 128)
    xl = [t(_rand(1, 128, seed=s)) for s in (3, 4)]

    def lstm_loss():
        h, c = cell(xl[0])
        h, c = cell(xl[1], (h, c))
        return h.sum()
    models['lstm_2steps'] = (lstm_loss, cell.zero_grad, nothing)

    conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128, 10))
    csgd = torch.optim.SGD(conv.parameters(), lr=0.01)
    xc, tc = t(_rand(16, 1, 8, 8)), t(_labels(16, 10)).long()
    models['tiny_convnet'] = (lambda: F.cross_entropy(conv(xc), tc),
                              csgd.zero_grad, csgd.step)
    return models


def torch_compiled_rows(torch):
    """The model rows under ``torch.compile`` (inductor, default mode), as
    PyTorch's documentation shows it: the forward with its loss compiled
    (AOTAutograd compiles its backward), the optimizer's step compiled
    (``torch.compile`` of a function calling it); ``zero_grad`` and the
    ``backward`` call as in eager. Returns (rows, compile seconds per row:
    the first two steps, which compile, timed apart)."""
    import time
    rows, compile_s = {}, {}
    for name, (loss_of, zero_grad, update) in _torch_models(torch).items():
        loss_of = torch.compile(loss_of)
        update = torch.compile(update)

        def step(loss_of=loss_of, zero_grad=zero_grad, update=update):
            loss = loss_of()
            zero_grad()
            loss.backward()
            update()
        start = time.perf_counter()
        step()
        step()
        compile_s[name] = round(time.perf_counter() - start, 2)
        rows[name] = step
    return rows, compile_s
