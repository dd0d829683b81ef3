"""Model parallelism with MultiNodeChainList: a model split over the ranks
computes the same loss and the same parameter gradients as the whole model
in one process (the reference is built on every rank from the same
seeds), and trains to an accuracy."""
import numpy
import pytest
from testhelpers.mn_model import needs_ranks

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe import mn, optimizers
from cpuframe.backends import intel64

D = 5
DEVICES = ['@numpy'] + (['@intel64'] if intel64.is_ideep_available() else [])


class _Stage(cpuframe.Chain):
    """Linear (+ relu unless last), initialized from ``seed``."""

    def __init__(self, seed, n_in, n_out, last=False, dtype=numpy.float32):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.l = L.Linear(n_in, n_out,
                              initialW=rng.uniform(-1, 1, (n_out, n_in))
                              .astype(dtype),
                              initial_bias=rng.uniform(-.1, .1, n_out)
                              .astype(dtype))
        self.last = last

    def forward(self, x):
        h = self.l(x)
        return h if self.last else F.relu(h)


def _data(seed, n=6, d=D, classes=3):
    rng = numpy.random.RandomState(seed)
    return (rng.standard_normal((n, d)).astype(numpy.float32),
            rng.randint(0, classes, n).astype(numpy.int32))


def _pipeline(comm, sizes):
    """Stage r (on rank r) maps sizes[r] -> sizes[r+1]; the last rank's
    output is the model output."""
    n, r = comm.size, comm.rank
    model = mn.MultiNodeChainList(comm)
    stage = _Stage(r, sizes[r], sizes[r + 1], last=r == n - 1)
    model.add_link(stage, rank_in=None if r == 0 else r - 1,
                   rank_out=None if r == n - 1 else r + 1)
    return model, stage


def _host(a):
    return numpy.asarray(intel64.to_numpy(a) if intel64.is_native_array(a)
                         else a)


def _assert_grads(stage, ref_stage, rtol=1e-5):
    for name in ('W', 'b'):
        numpy.testing.assert_allclose(_host(getattr(stage.l, name).grad),
                                      getattr(ref_stage.l, name).grad,
                                      rtol=rtol, atol=1e-6)


@pytest.mark.parametrize('device', DEVICES)
def test_pipeline_over_every_rank_matches_one_process(comm, device):
    needs_ranks(comm, 2)
    n, r = comm.size, comm.rank
    sizes = [D] + [4 + i for i in range(n - 1)] + [3]
    model, stage = _pipeline(comm, sizes)
    model.to_device(device)
    x, t = _data(0)
    y = model(x)
    if r == n - 1:
        loss = F.softmax_cross_entropy(y, t)
        loss.backward()
    else:
        assert y.shape == (0,)         # a delegate variable
        y.backward()
    refs = [_Stage(q, sizes[q], sizes[q + 1], last=q == n - 1)
            for q in range(n)]
    h = x
    for ref in refs:
        h = ref(h)
    ref_loss = F.softmax_cross_entropy(h, t)
    ref_loss.backward()
    if r == n - 1:
        numpy.testing.assert_allclose(_host(loss.array), ref_loss.array,
                                      rtol=1e-6)
    _assert_grads(stage, refs[r])


class _Round(cpuframe.Chain):
    def __init__(self, a, b):
        super().__init__()
        with self.init_scope():
            self.a, self.b = a, b


@pytest.mark.parametrize('device', DEVICES)
def test_round_trip_output_on_rank_0(comm, device):
    """ChainerMN's split-MLP example: rank 0 runs A, rank 1 runs M on A's
    output and sends back, rank 0 runs B on it and has the output."""
    needs_ranks(comm, 2)
    A, M, B = _Stage(1, D, 4), _Stage(2, 4, 6), _Stage(3, 6, 3, last=True)
    model = mn.MultiNodeChainList(comm)
    if comm.rank == 0:
        model.add_link(A, rank_in=None, rank_out=1)
        model.add_link(B, rank_in=1, rank_out=None)
    elif comm.rank == 1:
        model.add_link(M, rank_in=0, rank_out=0)
    model.to_device(device)
    x, t = _data(1)
    if comm.rank > 1:
        return                  # idle: this model has no part here
    y = model(x)
    if comm.rank == 0:
        loss = F.softmax_cross_entropy(y, t)
        loss.backward()
    else:
        y.backward()
    ra, rm, rb = _Stage(1, D, 4), _Stage(2, 4, 6), _Stage(3, 6, 3, last=True)
    ref_loss = F.softmax_cross_entropy(rb(rm(ra(x))), t)
    ref_loss.backward()
    if comm.rank == 0:
        numpy.testing.assert_allclose(_host(loss.array), ref_loss.array,
                                      rtol=1e-6)
        _assert_grads(A, ra)
        _assert_grads(B, rb)
    else:
        _assert_grads(M, rm)


@pytest.mark.parametrize('device', DEVICES)
def test_outputs_of_an_intermediate_component(comm, device):
    """Each of ranks 0 and 1 has an output made by a component before its
    last one (rank_out=None, then a component that sends): backward from
    it still runs the later component (pseudo_connect)."""
    needs_ranks(comm, 2)
    A, B = _Stage(11, 4, 3, last=True), _Stage(12, D, 4)
    P, Q = _Stage(13, D, 4), _Stage(14, 4, 2, last=True)
    model = mn.MultiNodeChainList(comm)
    if comm.rank == 0:
        model.add_link(A, rank_in=1, rank_out=None)
        model.add_link(B, rank_in=None, rank_out=1)
    elif comm.rank == 1:
        model.add_link(P, rank_in=None, rank_out=0)
        model.add_link(Q, rank_in=0, rank_out=None)
    model.to_device(device)
    if comm.rank > 1:
        return
    x0, t0 = _data(20)
    x1, t1 = _data(21)
    y = model(x0 if comm.rank == 0 else x1)
    loss = F.sum(y * y)
    loss.backward()
    rA, rB = _Stage(11, 4, 3, last=True), _Stage(12, D, 4)
    rP, rQ = _Stage(13, D, 4), _Stage(14, 4, 2, last=True)
    y0 = rA(rP(x1))                       # rank 0's output
    y1 = rQ(rB(x0))                       # rank 1's output
    (F.sum(y0 * y0) + F.sum(y1 * y1)).backward()
    # on @intel64 the stages' inner products (oneDNN, the AVX2 kernels of a
    # Zen 3 among them) sum in another order than the NumPy reference: 8e-6
    rtol = 1e-6 if device == '@numpy' else 2e-5
    if comm.rank == 0:
        numpy.testing.assert_allclose(_host(y.array), y0.array, rtol=rtol)
        _assert_grads(A, rA)
        _assert_grads(B, rB)
    else:
        numpy.testing.assert_allclose(_host(y.array), y1.array, rtol=rtol)
        _assert_grads(P, rP)
        _assert_grads(Q, rQ)


class _Two(cpuframe.Chain):
    """Returns a tuple (two Linear outputs)."""

    def __init__(self, seed):
        super().__init__()
        with self.init_scope():
            self.p = _Stage(seed, D, 4)
            self.q = _Stage(seed + 1, D, 3)

    def forward(self, x):
        return self.p(x), self.q(x)


class _Join(cpuframe.Chain):
    """Takes a tuple from one rank and a Variable from another."""

    def forward(self, pair, other):
        a, b = pair
        return F.sum(a) * F.sum(b) + F.sum(other * other)


class _FromPair(cpuframe.Chain):
    def __init__(self, seed):
        super().__init__()
        with self.init_scope():
            self.l = _Stage(seed, 7, 2)

    def forward(self, pair):
        return self.l(F.concat(pair, axis=1))


def test_tuples_self_sends_and_several_ranks(comm):
    """Rank 0 sends a tuple to itself and to rank 1 (rank_out=[0, 1]),
    then joins its own tuple with rank 1's answer (rank_in=[0, 1])."""
    needs_ranks(comm, 2)
    model = mn.MultiNodeChainList(comm)
    if comm.rank == 0:
        two = _Two(30)
        model.add_link(two, rank_in=None, rank_out=[0, 1])
        model.add_link(_Join(), rank_in=[0, 1], rank_out=None)
    elif comm.rank == 1:
        pair = _FromPair(40)
        model.add_link(pair, rank_in=0, rank_out=0)
    else:
        return
    x, _ = _data(31)
    y = model(x)
    y.backward()
    rtwo, rpair = _Two(30), _FromPair(40)
    p = rtwo(x)
    ref = _Join()(p, rpair(p))
    ref.backward()
    if comm.rank == 0:
        numpy.testing.assert_allclose(y.array, ref.array, rtol=1e-5)
        for (n1, a), (_, b) in zip(sorted(two.namedparams()),
                                    sorted(rtwo.namedparams())):
            numpy.testing.assert_allclose(a.grad, b.grad, rtol=1e-4,
                                          atol=1e-5, err_msg=n1)
    else:
        for (n1, a), (_, b) in zip(sorted(pair.namedparams()),
                                    sorted(rpair.namedparams())):
            numpy.testing.assert_allclose(a.grad, b.grad, rtol=1e-4,
                                          atol=1e-5, err_msg=n1)


def test_add_link_checks(comm):
    model = mn.MultiNodeChainList(comm)
    model.add_link(_Stage(0, 2, 2), rank_in=None, rank_out=None)
    with pytest.raises(ValueError, match='rank_out is None'):
        model.add_link(_Stage(1, 2, 2), rank_in=None, rank_out=None)
    # A whole model on one rank is a plain chain.
    x = numpy.ones((1, 2), numpy.float32)
    numpy.testing.assert_array_equal(model(x).array, model[0](x).array)
    # A deep copy shares the communicator and copies the parameters.
    import copy
    clone = copy.deepcopy(model)
    assert clone._comm is comm
    assert clone[0].l.W is not model[0].l.W
    numpy.testing.assert_array_equal(clone(x).array, model(x).array)
    rnn = mn.links.create_multi_node_n_step_rnn(L.NStepGRU(1, 2, 2, 0.0),
                                                comm)
    assert copy.deepcopy(rnn).communicator is comm


def test_self_send_without_receive_is_an_error(comm):
    model = mn.MultiNodeChainList(comm)
    model.add_link(_Stage(0, 2, 2), rank_in=None, rank_out=comm.rank)
    with pytest.raises(ValueError, match='never'):
        model(numpy.ones((1, 2), numpy.float32))


def _clusters(seed, n, d=10, classes=3):
    rng = numpy.random.RandomState(seed)
    centers = numpy.random.RandomState(123).standard_normal(
        (classes, d)) * 2.5
    t = rng.randint(0, classes, n).astype(numpy.int32)
    x = (centers[t] + rng.standard_normal((n, d))).astype(numpy.float32)
    return x, t


def test_model_parallel_training_reaches_accuracy(comm):
    """An MLP split over every rank (one stage each) trained with one
    optimizer per rank on its own stage's parameters."""
    needs_ranks(comm, 2)
    n, r = comm.size, comm.rank
    sizes = [10] + [16] * (n - 1) + [3]
    model, stage = _pipeline(comm, sizes)
    opt = optimizers.Adam(alpha=0.02)
    opt.setup(model)
    x, t = _clusters(0, 240)
    xt, tt = _clusters(1, 120)
    for _epoch in range(15):
        for i in range(0, len(x), 40):
            model.cleargrads()
            y = model(x[i:i + 40])
            if r == n - 1:
                F.softmax_cross_entropy(y, t[i:i + 40]).backward()
            else:
                y.backward()
            opt.update()
    with cpuframe.using_config('train', False), \
            cpuframe.no_backprop_mode():
        y = model(xt)
    acc = float(F.accuracy(y, tt).array) if r == n - 1 else None
    acc = comm.bcast_obj(acc, root=n - 1)
    assert acc >= 0.9, acc


def test_multi_node_n_step_lstm(comm):
    """Rank 0's encoder LSTM sends its final states to rank 1's decoder;
    gradients equal those of the encoder-decoder in one process."""
    needs_ranks(comm, 2)

    def lstm(seed):
        numpy.random.seed(seed)
        return L.NStepLSTM(1, 3, 4, 0.0)

    rng = numpy.random.RandomState(5)
    xs_enc = [rng.standard_normal((k, 3)).astype(numpy.float32)
              for k in (3, 2)]
    xs_dec = [rng.standard_normal((k, 3)).astype(numpy.float32)
              for k in (2, 4)]
    if comm.rank == 0:
        enc = mn.links.create_multi_node_n_step_rnn(lstm(0), comm,
                                                    rank_out=1)
        hy, cy, ys, delegate = enc(xs_enc)
        delegate.backward()
        local = enc.actual_rnn
    elif comm.rank == 1:
        dec = mn.links.create_multi_node_n_step_rnn(lstm(1), comm,
                                                    rank_in=0)
        hy, cy, ys, delegate = dec(xs_dec)
        assert delegate is None
        loss = sum(F.sum(y * y) for y in ys) + F.sum(hy) + F.sum(cy)
        loss.backward()
        local = dec.actual_rnn
    else:
        return
    renc, rdec = lstm(0), lstm(1)
    h, c, _ = renc(None, None, xs_enc)
    hy2, cy2, ys2 = rdec(h, c, xs_dec)
    (sum(F.sum(y * y) for y in ys2) + F.sum(hy2) + F.sum(cy2)).backward()
    ref = renc if comm.rank == 0 else rdec
    for (n1, a), (_, b) in zip(sorted(local.namedparams()),
                               sorted(ref.namedparams())):
        numpy.testing.assert_allclose(a.grad, b.grad, rtol=1e-4, atol=1e-5,
                                      err_msg=n1)


def test_n_step_rnn_needs_an_rnn_link(comm):
    with pytest.raises(ValueError, match='NStepRNN'):
        mn.links.create_multi_node_n_step_rnn(L.Linear(2, 2), comm)


def test_chainermn_style_trainer_script(comm):
    """ChainerMN's model-parallel MNIST example, shrunk: rank 0 trains
    Classifier(Model0) (first and last MLP), rank 1 trains Model1 (the
    middle MLP) whose call returns a delegate variable the updater
    backpropagates from; each rank has its own optimizer and Trainer."""
    from cpuframe import iterators, training
    needs_ranks(comm, 2)

    class MLP(cpuframe.Chain):
        def __init__(self, n_in, n_out, seed):
            super().__init__()
            with self.init_scope():
                self.l = _Stage(seed, n_in, n_out).l

        def forward(self, x):
            return F.relu(self.l(x))

    class Model0(mn.MultiNodeChainList):
        def __init__(self, comm):
            super().__init__(comm)
            self.add_link(MLP(10, 16, 1), rank_in=None, rank_out=1)
            self.add_link(_Stage(3, 16, 3, last=True), rank_in=1,
                          rank_out=None)

    class Model1(mn.MultiNodeChainList):
        def __init__(self, comm):
            super().__init__(comm)
            self.add_link(MLP(16, 16, 2), rank_in=0, rank_out=0)

    if comm.rank > 1:
        return
    x, t = _clusters(0, 200)
    xt, tt = _clusters(1, 100)
    model = L.Classifier(Model0(comm)) if comm.rank == 0 else Model1(comm)
    opt = optimizers.Adam(alpha=0.01).setup(model)
    # Both ranks walk the same batches in the same order (rank 1's model
    # ignores their values).
    it = iterators.SerialIterator(list(zip(x, t)), 25, shuffle=False)
    trainer = training.Trainer(training.StandardUpdater(it, opt),
                               (12, 'epoch'))
    trainer.run()
    with cpuframe.using_config('train', False), \
            cpuframe.no_backprop_mode():
        if comm.rank == 0:
            acc = float(F.accuracy(model.predictor(xt), tt).array)
            comm.send_obj(acc, 1)
        else:
            model()
            acc = comm.recv_obj(0)       # ranks 0 and 1 both check it
    assert acc >= 0.9, acc
