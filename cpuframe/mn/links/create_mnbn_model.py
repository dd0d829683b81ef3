"""``create_mnbn_model``: replace BatchNormalization by the multi-node one."""
import copy

from cpuframe.link import Chain, ChainList
from cpuframe.links.normalization.batch_normalization import (
    BatchNormalization,
)
from cpuframe.mn.links.batch_normalization import MultiNodeBatchNormalization
from cpuframe.sequential import Sequential


def _convert(bn, comm, communication_backend):
    if bn.avg_mean is None:
        raise ValueError(
            'create_mnbn_model: a BatchNormalization without a size (not '
            'yet initialized) cannot be converted; give it a size or run it '
            'once first')
    mnbn = MultiNodeBatchNormalization(
        size=bn.avg_mean.shape, comm=comm, decay=bn.decay, eps=bn.eps,
        dtype=bn.avg_mean.dtype, use_gamma=bn.gamma is not None,
        use_beta=bn.beta is not None,
        communication_backend=communication_backend)
    if getattr(bn, 'axis', None) not in (None, (0,)):
        raise ValueError('create_mnbn_model: BatchNormalization with axis={} '
                         'is not supported'.format(bn.axis))
    mnbn.copyparams(bn)
    for name in bn._persistent:
        setattr(mnbn, name, copy.deepcopy(getattr(bn, name)))
    mnbn.name = bn.name
    return mnbn


def create_mnbn_model(link, comm, communication_backend='auto'):
    """A copy of ``link`` with every
    :class:`~cpuframe.links.BatchNormalization` replaced by a
    :class:`MultiNodeBatchNormalization` with the same parameters and
    statistics.

    Args:
        link (~cpuframe.Link): the model (``link`` itself is unchanged).
        comm: a cpuframe.mn communicator.
        communication_backend (str): ``'mpi'`` or ``'auto'``.
    """
    if isinstance(link, BatchNormalization):
        return _convert(link, comm, communication_backend)
    if isinstance(link, Sequential):
        new = copy.deepcopy(link)
        for i, layer in enumerate(link):
            new[i] = create_mnbn_model(layer, comm, communication_backend)
        return new
    if isinstance(link, Chain):
        new = copy.deepcopy(link)
        for name in link._children:
            child = create_mnbn_model(getattr(link, name), comm,
                                      communication_backend)
            child.name = name
            new.__dict__[name] = child
        return new
    if isinstance(link, ChainList):
        new = copy.deepcopy(link)
        for i, child in enumerate(link):
            new_child = create_mnbn_model(child, comm, communication_backend)
            new_child.name = child.name
            new._children[i] = new_child
        return new
    return copy.deepcopy(link)
