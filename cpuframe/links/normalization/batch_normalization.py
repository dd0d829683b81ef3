"""Batch normalization layer."""
import numpy

from cpuframe import backend, configuration, initializers, link, variable
from cpuframe.functions.normalization.batch_normalization import (
    BatchNormalization as _BatchNormalizationNode,
)
from cpuframe.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)


class BatchNormalization(link.Link):
    """Batch normalization with learned scale/shift and running statistics.

    In training mode (``config.train``) it normalizes with the batch
    statistics and updates ``avg_mean``/``avg_var`` (persistents) with
    ``decay``; in test mode it uses the running statistics.  ``size``
    None infers the shape from the first input.  ``finetune=True`` in
    ``forward`` averages the statistics over all batches seen (decay
    1 - 1/N).

    ``impl_selector`` (a cpuframe addition; Chainer 7 takes it only in
    ``F.normalization.batch_normalization.BatchNormalization``, the
    function node) is passed to that node in training mode:
    ``impl_selector(batch_norm_func, inputs)`` returns the implementation
    of the call, e.g. a ``GeneralBatchNormalizationImpl`` subclass.

    Before its first call a link built without ``size`` has no
    statistics (``avg_mean`` is None) and may be moved with ``to_cpu``,
    ``to_intel64`` or ``to_device``; the first call makes them on the
    link's device.
    """

    gamma = None
    beta = None
    avg_mean = None
    avg_var = None

    def __init__(self, size=None, decay=0.9, eps=2e-5, dtype=None,
                 use_gamma=True, use_beta=True, initial_gamma=None,
                 initial_beta=None, axis=None, initial_avg_mean=None,
                 initial_avg_var=None, *, impl_selector=None):
        super().__init__()
        self._impl_selector = impl_selector
        # Under mixed16 the parameters and statistics are float32 (as in
        # Chainer 7): float16 x, float32 gamma, beta, avg_mean and avg_var.
        from cpuframe import get_dtype
        self._dtype = get_dtype(dtype, map_mixed16=numpy.float32)
        self.decay = decay
        self.eps = eps
        self.axis = (axis,) if isinstance(axis, int) else axis
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.add_persistent('N', 0)
        self.register_persistent('avg_mean')
        self.register_persistent('avg_var')
        with self.init_scope():
            if use_gamma:
                init = initializers._get_initializer(initial_gamma) or \
                    initializers.One()
                init.dtype = self._dtype
                self.gamma = variable.Parameter(init)
            if use_beta:
                init = initializers._get_initializer(initial_beta) or \
                    initializers.Zero()
                init.dtype = self._dtype
                self.beta = variable.Parameter(init)
        if size is not None:
            self._initialize_params(size if isinstance(size, tuple) else (size,))

    def _initialize_params(self, shape):
        self.avg_mean = self._stat(self._initial_avg_mean, 0.0, shape)
        self.avg_var = self._stat(self._initial_avg_var, 1.0, shape)
        if self.gamma is not None:
            self.gamma.initialize(shape)
        if self.beta is not None:
            self.beta.initialize(shape)

    def _stat(self, initial, default, shape):
        if initial is not None and hasattr(initial, 'dtype') and \
                initial.dtype != self._dtype:
            # An initial statistic in another dtype is cast to the link's
            # (Chainer: a float16 one under mixed16 gives float32 stats).
            initial = initial.astype(self._dtype)
        init = initializers._get_initializer(
            default if initial is None else initial)
        return initializers.generate_array(init, shape, self.xp,
                                           dtype=self._dtype,
                                           device=self.device)

    def _param_shape(self, x):
        if self.axis is None:
            return (x.shape[1],)
        axes = [a % x.ndim for a in self.axis]
        return tuple(s for i, s in enumerate(x.shape) if i not in axes)

    def printable_specs(self):
        return (('size', None if self.avg_mean is None else
                 self.avg_mean.shape), ('decay', self.decay), ('eps', self.eps))

    def forward(self, x, **kwargs):
        """Normalize ``x``; ``finetune=True`` uses the cumulative average."""
        finetune = kwargs.pop('finetune', False)
        if 'test' in kwargs:
            # Chainer 7's message (argument.parse_kwargs raises ValueError).
            raise ValueError('test argument is not supported anymore. '
                             'Use chainer.using_config')
        if kwargs:
            raise TypeError('BatchNormalization.forward: unexpected keyword '
                            'arguments {}'.format(sorted(kwargs)))
        gamma, beta = self._gamma_beta(x)
        if configuration.config.train:
            decay = self._decay(finetune)
            avg_mean, avg_var = self.avg_mean, self.avg_var
            if configuration.config.in_recomputing:
                # As Chainer 7: an extra forward pass (recomputation) leaves
                # the statistics and the fine-tuning count alone.
                if finetune:
                    self.N -= 1
                avg_mean = avg_var = None
            if self._impl_selector is not None:
                return self._forward_selected(x, gamma, beta, decay,
                                              avg_mean, avg_var)
            return batch_normalization(
                x, gamma, beta, eps=self.eps, running_mean=avg_mean,
                running_var=avg_var, decay=decay, axis=self.axis)
        return fixed_batch_normalization(
            x, gamma, beta, variable.Variable(self.avg_mean,
                                              requires_grad=False),
            variable.Variable(self.avg_var, requires_grad=False),
            self.eps, axis=self.axis)

    def _forward_selected(self, x, gamma, beta, decay, avg_mean, avg_var):
        func = _BatchNormalizationNode(
            self.eps, avg_mean, avg_var, decay, self.axis,
            impl_selector=self._impl_selector)
        y, = func.apply((x, gamma, beta))
        if avg_mean is None:
            return y
        # An implementation may return new running statistics.
        for name, value in (('avg_mean', func.running_mean),
                            ('avg_var', func.running_var)):
            current = getattr(self, name)
            if value is not None and value is not current:
                backend.copyto(current, value)
        return y

    def _gamma_beta(self, x):
        """gamma and beta (constant ones / zeros where unused), after the
        statistics are initialized from ``x``'s shape when still unset."""
        if self.avg_mean is None:
            self._initialize_params(self._param_shape(x))
        xp = backend.get_array_module(x)
        gamma = self.gamma if self.gamma is not None else \
            variable.Variable(xp.ones(self.avg_mean.shape, self._dtype),
                              requires_grad=False)
        beta = self.beta if self.beta is not None else \
            variable.Variable(xp.zeros(self.avg_mean.shape, self._dtype),
                              requires_grad=False)
        return gamma, beta

    def _decay(self, finetune):
        """The running averages' decay of this step (``finetune``: the
        cumulative average over the steps since start_finetuning)."""
        if finetune:
            self.N += 1
            return 1.0 - 1.0 / self.N
        return self.decay

    def start_finetuning(self):
        """Reset the count used by ``finetune=True``."""
        self.N = 0
