"""``MultiNodeBatchNormalization``: batch normalization over every rank's
batch."""
import numpy

from cpuframe import configuration, initializers, link, variable
from cpuframe.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from cpuframe.mn.functions.batch_normalization import (
    MultiNodeBatchNormalizationFunction,
)
from cpuframe.mn.links._util import deepcopy_sharing

_BACKENDS = ('mpi', 'nccl', 'auto')


def _communication_backend(comm, name):
    if name not in _BACKENDS:
        raise ValueError('MultiNodeBatchNormalization does not support '
                         'communication_backend={!r}; expected one of {}'
                         .format(name, ', '.join(map(repr, _BACKENDS))))
    if name == 'nccl':
        raise ValueError(
            "MultiNodeBatchNormalization: communication_backend='nccl' needs "
            "a 'pure_nccl' communicator (CuPy with NCCL); {!r} reduces on "
            "MPI: use 'mpi' or 'auto'".format(comm))
    return 'mpi'


class MultiNodeBatchNormalization(link.Link):
    """Batch normalization with the statistics of the whole batch: the
    concatenation of every rank's local batch.

    :class:`~cpuframe.links.BatchNormalization` in data-parallel training
    normalizes each rank's batch alone; this link makes every rank compute
    the mean and variance of all the ranks' batches (one ``allreduce`` of
    the per-channel count, sum and sum of squares) and the backward that
    goes with them (one more ``allreduce``).  The running statistics are
    updated as BatchNormalization over the whole batch would, so they are
    the same on every rank.  Every rank must call it in training mode (it
    is a collective); in test mode it uses the running statistics and does
    not communicate.

    The gradients of ``gamma`` and ``beta`` are those of the sum of the
    ranks' losses divided by the number of ranks (ChainerMN's convention):
    a multi-node optimizer's mean over the ranks then gives the gradient of
    the mean of the ranks' losses, as for every other parameter.

    Args:
        size (int or tuple of ints): the shape of the channel dimensions.
        comm: a cpuframe.mn communicator.
        decay (float): the decay of the running averages.
        eps (float): added to the variance.
        dtype: the dtype of the parameters and statistics (float16 is
            kept in float32; default ``config.dtype``).
        use_gamma (bool): learn a scale (otherwise 1).
        use_beta (bool): learn a shift (otherwise 0).
        initial_gamma, initial_beta: initializers of gamma and beta.
        communication_backend (str): ``'mpi'`` or ``'auto'`` (``'nccl'``
            needs a GPU communicator, which cpuframe.mn does not have).

    ``avg_mean`` starts at zeros and ``avg_var`` at ones, as in
    :class:`~cpuframe.links.BatchNormalization`.
    """

    gamma = None
    beta = None

    def __init__(self, size, comm, decay=0.9, eps=2e-5, dtype=None,
                 use_gamma=True, use_beta=True, initial_gamma=None,
                 initial_beta=None, communication_backend='auto'):
        super().__init__()
        dtype = numpy.dtype(dtype or configuration.config.dtype)
        if dtype == numpy.float16:
            dtype = numpy.dtype(numpy.float32)
        self._highprec_dtype = dtype
        self.comm = comm
        shape = size if isinstance(size, tuple) else (size,)
        self.avg_mean = numpy.zeros(shape, dtype=dtype)
        self.register_persistent('avg_mean')
        self.avg_var = numpy.ones(shape, dtype=dtype)
        self.register_persistent('avg_var')
        self.add_persistent('N', 0)
        self.decay = decay
        self.eps = eps
        self._communication_backend = _communication_backend(
            comm, communication_backend)
        with self.init_scope():
            if use_gamma:
                init = initializers._get_initializer(
                    1 if initial_gamma is None else initial_gamma)
                init.dtype = dtype
                self.gamma = variable.Parameter(init, shape)
            if use_beta:
                init = initializers._get_initializer(
                    0 if initial_beta is None else initial_beta)
                init.dtype = dtype
                self.beta = variable.Parameter(init, shape)

    def _gamma_beta(self, x):
        xp = self.xp
        shape = self.avg_mean.shape
        dtype = self._highprec_dtype
        gamma = self.gamma if self.gamma is not None else variable.Variable(
            xp.ones(shape, dtype), requires_grad=False)
        beta = self.beta if self.beta is not None else variable.Variable(
            xp.zeros(shape, dtype), requires_grad=False)
        return gamma, beta

    def forward(self, x, finetune=False):
        """Normalize ``x`` (with every rank's batch statistics when
        training; ``finetune=True`` averages them over the batches since
        :meth:`start_finetuning`)."""
        gamma, beta = self._gamma_beta(x)
        if configuration.config.train:
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            if self.comm.size == 1:
                # One rank: exactly BatchNormalization (same kernels).
                return batch_normalization(
                    x, gamma, beta, eps=self.eps, running_mean=self.avg_mean,
                    running_var=self.avg_var, decay=decay)
            func = MultiNodeBatchNormalizationFunction(
                self.comm, self.eps, self.avg_mean, self.avg_var, decay)
            return func.apply((x, gamma, beta))[0]
        return fixed_batch_normalization(
            x, gamma, beta,
            variable.Variable(self.avg_mean, requires_grad=False),
            variable.Variable(self.avg_var, requires_grad=False), self.eps)

    def start_finetuning(self):
        """Reset the count that ``finetune=True`` averages over."""
        self.N = 0

    def __deepcopy__(self, memo):
        # The communicator is shared, never copied.
        return deepcopy_sharing(self, memo, 'comm')
