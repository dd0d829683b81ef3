"""Batch renormalization layer."""
from cpuframe import configuration, variable
from cpuframe.functions.normalization.batch_normalization import (
    fixed_batch_normalization,
)
from cpuframe.functions.normalization.batch_renormalization import (
    batch_renormalization,
)
from cpuframe.links.normalization.batch_normalization import BatchNormalization


class BatchRenormalization(BatchNormalization):
    """Batch renormalization layer, a :class:`BatchNormalization` subclass.

    Same parameters (``gamma``, ``beta``) and persistents (``avg_mean``,
    ``avg_var``, ``N``) as :class:`BatchNormalization`.  In training mode
    it calls :func:`~cpuframe.functions.batch_renormalization` with the
    running statistics and updates them (not while
    ``config.in_recomputing``); in test mode it normalizes with the running
    statistics (:func:`fixed_batch_normalization`).

    Args:
        size (int, tuple or None): Shape of the parameters (``(c,)``); None
            infers ``x.shape[1]`` at the first call.
        rmax (float): Bound of ``r`` (``1/rmax <= r <= rmax``).
        dmax (float): Bound of ``|d|``.
        decay, eps, dtype, use_gamma, use_beta, initial_gamma,
            initial_beta, initial_avg_mean, initial_avg_var: as in
            :class:`BatchNormalization`.

    >>> bn = L.BatchRenormalization(3, rmax=3., dmax=5.)
    >>> bn(np.ones((2, 3), np.float32)).shape
    (2, 3)
    """

    def __init__(self, size, rmax=1, dmax=0, decay=0.9, eps=2e-5,
                 dtype=None, use_gamma=True, use_beta=True,
                 initial_gamma=None, initial_beta=None,
                 initial_avg_mean=None, initial_avg_var=None):
        super().__init__(size, decay=decay, eps=eps, dtype=dtype,
                         use_gamma=use_gamma, use_beta=use_beta,
                         initial_gamma=initial_gamma,
                         initial_beta=initial_beta,
                         initial_avg_mean=initial_avg_mean,
                         initial_avg_var=initial_avg_var)
        self.rmax = rmax  # the largest correction of the std
        self.dmax = dmax  # the largest correction of the mean
        self.r = None
        self.d = None

    def printable_specs(self):
        return super().printable_specs() + (('rmax', self.rmax),
                                            ('dmax', self.dmax))

    def forward(self, x, finetune=False):
        """Renormalize ``x``; ``finetune=True`` uses the cumulative average."""
        gamma, beta = self._gamma_beta(x)
        if configuration.config.train:
            decay = self._decay(finetune)
            update = True
            if configuration.config.in_recomputing:
                # An extra forward pass must not count twice.
                if finetune:
                    self.N -= 1
                update = False
            return batch_renormalization(
                x, gamma, beta, self.rmax, self.dmax, self.eps,
                self.avg_mean, self.avg_var, decay,
                update_statistics=update)
        return fixed_batch_normalization(
            x, gamma, beta,
            variable.Variable(self.avg_mean, requires_grad=False),
            variable.Variable(self.avg_var, requires_grad=False), self.eps)
