"""Data parallelism is large-batch SGD: N ranks on b samples each train
as one process on the N*b samples together, and every rank holds the same
parameters (bit for bit) after every step."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import mn, optimizers, testing
from cpuframe.backends import intel64

pytest.importorskip('mpi4py', reason='cpuframe.mn needs mpi4py (the mpi extra)')

PER_RANK = 4
STEPS = 4


def _mlp(seed, device, kind='mlp'):
    rng = numpy.random.RandomState(seed)
    if kind == 'mlp':
        model = cpuframe.Sequential(L.Linear(6, 8), F.tanh, L.Linear(8, 3))
    else:
        # Convolutions: on '@intel64' their gradients come in oneDNN's
        # blocked layouts, which cpuframe.mn reduces without reordering.
        model = cpuframe.Sequential(
            L.Convolution2D(2, 16, 3, pad=1), F.relu,
            L.Convolution2D(16, 8, 3, pad=1), F.relu,
            lambda h: F.reshape(h, (h.shape[0], -1)), L.Linear(8 * 9, 3))
    for p in model.params():
        p.array[...] = rng.uniform(-0.5, 0.5, p.shape).astype(p.dtype)
    return model.to_device(device)


def _batch(step, n, kind='mlp'):
    rng = numpy.random.RandomState(1000 + step)
    shape = (n, 6) if kind == 'mlp' else (n, 2, 3, 3)
    x = rng.standard_normal(shape).astype(numpy.float32)
    t = rng.randint(0, 3, n).astype(numpy.int32)
    return x, t


def _loss(model, x, t):
    return F.softmax_cross_entropy(model(x), t)


def _make_optimizer(name):
    return {'sgd': lambda: optimizers.SGD(lr=0.1),
            'momentum': lambda: optimizers.MomentumSGD(lr=0.1),
            'adam': lambda: optimizers.Adam(alpha=0.01)}[name]()


def _flat(model):
    return numpy.concatenate([numpy.asarray(p.array).ravel() for _, p in
                              sorted(model.namedparams())])


def _assert_same_on_every_rank(comm, model):
    mine = _flat(model)
    for rank, theirs in enumerate(comm.allgather(mine)):
        assert theirs.tobytes() == mine.tobytes(), (
            'rank {} differs from rank {}'.format(rank, comm.rank))


def _reference(device, name, double_buffering, n, kind='mlp'):
    """One process on the concatenated batches of the same steps."""
    model = _mlp(0, device, kind)
    opt = _make_optimizer(name).setup(model)
    previous = None
    for step in range(1, STEPS + 1):
        x, t = _batch(step, n, kind)
        model.cleargrads()
        _loss(model, x, t).backward()
        if not double_buffering:
            opt.update()
            continue
        grads = {k: numpy.array(numpy.asarray(p.grad))
                 for k, p in model.namedparams()}
        if previous is not None:
            for k, p in model.namedparams():
                p.grad = p.device.send(previous[k])
            opt.update()
        previous = grads
    return model


DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])


@testing.parameterize(*testing.product({
    'optimizer': ['sgd', 'momentum', 'adam'],
    'device': DEVICES,
    'double_buffering': [False, True],
    'kind': ['mlp'],
}) + testing.product({
    'optimizer': ['momentum'],
    'device': DEVICES,
    'double_buffering': [False],
    'kind': ['conv'],
}))
class TestLargeBatchEquivalence:

    def test_matches_one_process_on_the_whole_batch(self, comm):
        # ('always': the convolutions' gradients in oneDNN's blocked
        # layouts, which 'auto' would compute on NumPy at this size)
        mode = 'always' if self.device == '@intel64' else 'auto'
        with cpuframe.using_config('use_ideep', mode):
            self._check(comm)

    def _check(self, comm):
        n = PER_RANK * comm.size
        # Every rank starts from its own parameters: the first update
        # copies rank 0's to all of them and does not step.
        model = _mlp(comm.rank, self.device, self.kind)
        opt = mn.create_multi_node_optimizer(
            _make_optimizer(self.optimizer), comm,
            double_buffering=self.double_buffering).setup(model)
        lo, hi = comm.rank * PER_RANK, (comm.rank + 1) * PER_RANK
        for step in range(0, STEPS + 1):
            x, t = _batch(step, n, self.kind)
            opt.update(_loss, model, x[lo:hi], t[lo:hi])
            _assert_same_on_every_rank(comm, model)
        reference = _reference(self.device, self.optimizer,
                               self.double_buffering, n, self.kind)
        numpy.testing.assert_allclose(_flat(model), _flat(reference),
                                      rtol=2e-5, atol=2e-6)
        # The run moved the parameters (the comparison is not vacuous).
        start = _flat(_mlp(0, '@numpy', self.kind))
        assert numpy.abs(_flat(model) - start).max() > 1e-3


def test_first_update_broadcasts_and_does_not_step(comm):
    model = _mlp(comm.rank, '@numpy')
    opt = mn.create_multi_node_optimizer(optimizers.SGD(lr=0.1), comm)
    opt.setup(model)
    x, t = _batch(0, PER_RANK)
    opt.update(_loss, model, x, t)
    numpy.testing.assert_array_equal(_flat(model), _flat(_mlp(0, '@numpy')))
    assert opt.t == 0
    opt.update(_loss, model, x, t)
    assert opt.t == 1


def test_wrapper_forwards_attributes(comm):
    actual = optimizers.MomentumSGD(lr=0.1)
    opt = mn.create_multi_node_optimizer(actual, comm)
    opt.lr = 0.05
    assert actual.lr == 0.05 and opt.lr == 0.05
    assert opt.communicator is comm
    with pytest.raises(TypeError, match='expected a communicator'):
        mn.create_multi_node_optimizer(actual, object())


def _trainable_mlp():
    return L.Classifier(cpuframe.Sequential(
        L.Linear(None, 32), F.relu, L.Linear(32, 2)))


def test_trainer_learns_with_scattered_dataset(comm):
    """A ChainerMN-style script: the whole loop, reaching an accuracy."""
    from cpuframe import iterators, training
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((400, 2)).astype(numpy.float32)
    t = (x[:, 0] * x[:, 1] > 0).astype(numpy.int32)   # XOR-like quadrants
    # Each rank takes an equal share (scatter_dataset's job): equal lengths
    # keep every rank on the same number of updates.
    share = len(x) // comm.size
    dataset = list(zip(x, t))[comm.rank * share:(comm.rank + 1) * share]
    model = _trainable_mlp()
    opt = mn.create_multi_node_optimizer(optimizers.Adam(alpha=0.01), comm)
    opt.setup(model)
    it = iterators.SerialIterator(dataset, 20, shuffle=True)
    updater = training.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, (30, 'epoch'))
    trainer.run()
    with cpuframe.using_config('train', False):
        accuracy = float(F.accuracy(model.predictor(x), t).array)
    _assert_same_on_every_rank(comm, model)
    assert accuracy > 0.9, accuracy
