"""ChainerMN's own module paths (issue: cpuframe.mn's shape).

ChainerMN code and ChainerMN's tests import communicator classes, their
helpers, ``chainermn.testing`` and ``chainermn.nccl`` by path; each is
checked here as such code uses it, under ``mpiexec -n 2`` and ``-n 3`` in
CI (and as one process in the normal run).
"""
import importlib
import subprocess
import sys
import textwrap

import numpy
import pytest

pytest.importorskip('mpi4py')

import cpuframe  # noqa: E402
import cpuframe.links as L  # noqa: E402
from cpuframe.backends import cuda  # noqa: E402
from cpuframe.mn import nccl  # noqa: E402
from cpuframe.mn.communicators import (  # noqa: E402
    _communication_utility as cu,
)
from cpuframe.mn.communicators import (
    _memory_utility as mu,
)
from cpuframe.mn.communicators.flat_communicator import FlatCommunicator  # noqa: E402
from cpuframe.mn.communicators.mpi_communicator_base import MpiCommunicatorBase  # noqa: E402
from cpuframe.mn.communicators.naive_communicator import NaiveCommunicator  # noqa: E402
from cpuframe.mn.communicators.non_cuda_aware_communicator import (
    NonCudaAwareCommunicator,  # noqa: E402
)
from cpuframe.mn.communicators.pure_nccl_communicator import PureNcclCommunicator  # noqa: E402
from cpuframe.mn.datasets.scatter import _scatter_index  # noqa: E402
from cpuframe.mn.iterators.multi_node_iterator import (  # noqa: E402
    _build_ctrl_msg,
    _parse_ctrl_msg,
)


@pytest.fixture(scope='module')
def mpi_comm(comm):
    return comm.mpi_comm


def test_init_ranks_is_rank_and_host_layout(mpi_comm, comm):
    ranks = cu.init_ranks(mpi_comm)
    assert isinstance(ranks, tuple) and len(ranks) == 5
    rank, intra_rank, intra_size, inter_rank, inter_size = ranks
    assert rank == mpi_comm.rank
    # one host here: every rank is on it
    assert (intra_rank, intra_size, inter_rank, inter_size) == \
        (mpi_comm.rank, mpi_comm.size, 0, 1)
    assert (comm.intra_rank, comm.intra_size, comm.inter_rank,
            comm.inter_size) == ranks[1:]


@pytest.mark.parametrize('max_buf_len', [7, 234, cu.INT_MAX - 1])
@pytest.mark.parametrize('root', [0, -1])
def test_chunked_bcast_obj(mpi_comm, max_buf_len, root):
    root = root % mpi_comm.size
    big = {'w': numpy.arange(1000, dtype=numpy.float32), 'name': 'x' * 300}
    obj = big if mpi_comm.rank == root else None
    got = cu.chunked_bcast_obj(obj, mpi_comm, max_buf_len=max_buf_len,
                               root=root)
    if mpi_comm.rank == root:
        assert got is big
    else:
        assert got['name'] == big['name']
        numpy.testing.assert_array_equal(got['w'], big['w'])
    assert cu.INT_MAX == 2 ** 31 - 1


@pytest.mark.parametrize('max_buf_len', [-1, 0, cu.INT_MAX])
def test_chunked_bcast_obj_bad_buffer_length(mpi_comm, max_buf_len):
    # checked before any communication, on every rank alike
    with pytest.raises(AssertionError):
        cu.chunked_bcast_obj(1 if mpi_comm.rank == 0 else None, mpi_comm,
                             max_buf_len=max_buf_len)


def test_intra_and_inter_comms(mpi_comm):
    _, intra_rank, _, inter_rank, _ = cu.init_ranks(mpi_comm)
    intra = cu.init_intra_mpi_comm(mpi_comm, intra_rank, inter_rank)
    inter = cu.init_inter_mpi_comm(mpi_comm, intra_rank, inter_rank)
    try:
        assert intra.size == mpi_comm.size and inter.size == 1
    finally:
        intra.Free()
        inter.Free()


@pytest.mark.parametrize('cls,name', [(NaiveCommunicator, 'naive'),
                                      (FlatCommunicator, 'flat')])
def test_communicator_classes_by_path(mpi_comm, cls, name):
    made = cls(mpi_comm=mpi_comm)
    assert isinstance(made, MpiCommunicatorBase)
    assert made.batched_copy is False      # constructed directly
    assert (made.rank, made.size) == (mpi_comm.rank, mpi_comm.size)
    created = cpuframe.mn.create_communicator(name, mpi_comm)
    assert type(created) is cls and created.batched_copy is True
    made.set_config('batched_copy', True)
    assert made.get_config('batched_copy') is True
    # their collectives work: the mean gradient of a model
    link = L.Linear(3, 2)
    link.cleargrads()
    for p in link.params():
        p.grad = numpy.full(p.shape, mpi_comm.rank, numpy.float32)
    made.multi_node_mean_grad(link)
    mean = (mpi_comm.size - 1) / 2
    for p in link.params():
        numpy.testing.assert_allclose(p.grad, mean)
    sub = made.split(0, mpi_comm.rank)
    try:
        assert type(sub) is cls and sub.size == mpi_comm.size
    finally:
        sub.finalize()


def test_subclass_of_mpi_communicator_base(mpi_comm):
    # ChainerMN's test of its base: a subclass overriding the mean.
    class Halving(MpiCommunicatorBase):
        def multi_node_mean_grad(self, model, zero_fill=False):
            for p in model.params():
                if p.grad is not None:
                    p.grad /= 2

    made = Halving(mpi_comm)
    assert made.intra_size == mpi_comm.size and made.inter_size == 1
    link = L.Linear(2, 2)
    link.cleargrads()
    link.W.grad = numpy.ones((2, 2), numpy.float32)
    made.multi_node_mean_grad(link)
    numpy.testing.assert_array_equal(link.W.grad, 0.5)


@pytest.mark.skipif(nccl._available, reason='a machine with NCCL')
def test_gpu_communicators_without_nccl(mpi_comm):
    assert nccl._available is False
    assert not hasattr(nccl, 'get_build_version')
    with pytest.raises(RuntimeError, match='requires NCCL 2.0'):
        PureNcclCommunicator(mpi_comm)
    with pytest.raises(RuntimeError, match='NCCL is not available'):
        NonCudaAwareCommunicator(mpi_comm)


def test_array_to_buffer_object(mpi_comm):
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    buf = mu.array_to_buffer_object(a)
    assert buf is a or numpy.shares_memory(buf, a)
    # a strided view: a contiguous copy, as in ChainerMN
    view = a[:, ::2]
    numpy.testing.assert_array_equal(mu.array_to_buffer_object(view), view)
    # usable as an MPI buffer
    out = numpy.empty_like(a)
    mpi_comm.Allreduce(mu.array_to_buffer_object(a),
                       mu.array_to_buffer_object(out))
    numpy.testing.assert_array_equal(out, a * mpi_comm.size)
    if not cuda.available:
        with pytest.raises(RuntimeError, match='Cupy is not available'):
            mu.DeviceMemory()
        with pytest.raises(RuntimeError, match='Cupy is not available'):
            mu.HostPinnedMemory()


def test_params_helpers():
    link = L.Linear(3, 2)
    link.cleargrads()
    assert [id(p) for p in mu.extract_params_set_data(link)] == \
        [id(link.W), id(link.b)]
    assert mu.extract_params_set_grad(link, zero_fill=False) == []
    assert len(mu.extract_params_set_grad(link, zero_fill=True)) == 2
    assert mu.count_grad_elements(
        mu.extract_params_set_grad(link, True), zero_fill=True) == 8


def test_testing_get_device():
    from cpuframe.mn import testing
    from cpuframe.mn.testing.device import get_device
    assert testing.get_device is get_device
    assert get_device().name == '@numpy'
    assert get_device(use_chainerx=False).xp is numpy
    with pytest.raises(ValueError, match='ChainerX'):
        get_device(use_chainerx=True)
    if not cuda.available:
        with pytest.raises(RuntimeError, match='CuPy'):
            get_device(0)


def test_ctrl_msg_round_trip():
    msg = _build_ctrl_msg(True, False, True, True, 37)
    assert msg.dtype == numpy.float32 and msg.shape == (5,)
    assert _parse_ctrl_msg(msg) == (True, False, True, True, 37)
    numpy.testing.assert_array_equal(_build_ctrl_msg(*_parse_ctrl_msg(msg)),
                                     msg)


@pytest.mark.parametrize('n,size,equal,expected', [
    (10, 3, False, [(0, 0, 4), (1, 4, 7), (2, 7, 10)]),
    (10, 3, True, [(0, 0, 4), (1, 3, 7), (2, 6, 10)]),
    (0, 2, False, [(0, 0, 0), (1, 0, 0)]),
])
def test_scatter_index_generator(n, size, equal, expected):
    assert list(_scatter_index(n, size, equal)) == expected


def test_iterator_serialize_with_a_serializer_without_children():
    # Chainer's iterators open no child serializer; ChainerMN's tests hand
    # them serializers that only record calls.
    from cpuframe.iterators import SerialIterator

    class Recording:
        def __init__(self):
            self.keys = []

        def __call__(self, key, value):
            self.keys.append(key)
            return value

    it = SerialIterator(list(range(10)), 3, shuffle=True)
    next(it)
    s = Recording()
    it.serialize(s)
    assert {'current_position', 'epoch', 'is_new_epoch'} <= set(s.keys)


@pytest.mark.parametrize('module', [
    'chainermn.testing', 'chainermn.testing.device', 'chainermn.nccl',
    'chainermn.communicators.naive_communicator',
    'chainermn.communicators.flat_communicator',
    'chainermn.communicators.non_cuda_aware_communicator',
    'chainermn.communicators.pure_nccl_communicator',
    'chainermn.communicators.mpi_communicator_base',
    'chainermn.communicators._communication_utility',
    'chainermn.communicators._memory_utility',
])
def test_importable_as_chainermn_under_compat(comm, local_tmp, module):
    if comm.rank != 0:
        pytest.skip('runs on rank 0 only')
    script = textwrap.dedent('''
        import importlib, sys
        m = importlib.import_module({!r})
        print('FROM', m.__name__)
    '''.format(module))
    result = subprocess.run(
        [sys.executable, '-m', 'cpuframe.compat', '-c', script],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
        cwd=str(local_tmp))
    out = result.stdout.decode(errors='replace')
    assert result.returncode == 0, out
    assert 'FROM ' in out
    importlib.import_module(module.replace('chainermn', 'cpuframe.mn'))
