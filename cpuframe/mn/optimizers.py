"""``create_multi_node_optimizer``: data-parallel training (ChainerMN 7).

The wrapped optimizer averages every gradient over the ranks before each
update, so N ranks on batches of b samples train as one process on the
N*b samples together (large-batch SGD).  The first ``update()`` after the
model's parameter set changes (the first call, or after lazily initialized
links got their shapes) copies rank 0's parameters to every rank and does
not update: the gradients of that step came from different parameters.
"""
import copy


def _param_state(target):
    return [(name, param.array is not None)
            for name, param in sorted(target.namedparams(),
                                      key=lambda e: e[0])]


class _Wrapper:
    """Forwards attribute reads and writes to the actual optimizer."""

    def __init__(self, actual_optimizer, communicator, zero_fill):
        object.__setattr__(self, 'actual_optimizer', actual_optimizer)
        object.__setattr__(self, 'communicator', communicator)
        object.__setattr__(self, 'zero_fill', zero_fill)

    def __getattr__(self, name):
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name, value):
        setattr(self.actual_optimizer, name, value)

    def setup(self, link):
        self.actual_optimizer.setup(link)
        return self

    def _compute_grads(self, lossfun, args, kwds, session=None):
        """Run ``lossfun`` and backward; return True when the gradients
        came out already divided by the number of ranks. With an overlap
        ``session``, each parameter's gradient is handed to it as soon as
        it is final (``variable.final_leaf_gradients``).

        Backward is linear in its initial gradient: seeding it with
        ``1/size`` instead of 1 makes every gradient a share of the mean at
        no cost, so the communicator only has to sum (no pass over the
        gradients to scale them afterwards).
        """
        target = self.target
        loss = lossfun(*args, **kwds)
        if getattr(self.actual_optimizer, '_use_cleargrads', True):
            target.cleargrads()
        else:
            target._zerograds()
        size = self.communicator.size
        prescaled = (size > 1 and loss.grad is None and loss.size == 1 and
                     hasattr(self.communicator, '_multi_node_mean_grad_async'))
        if prescaled:
            loss.grad = loss.xp.full_like(loss.array, 1.0 / size)
        loss_scale = getattr(self.actual_optimizer, '_loss_scale', None)
        if session is None:
            loss.backward(loss_scale=loss_scale)
        else:
            from cpuframe.variable import final_leaf_gradients
            with final_leaf_gradients(session.ready):
                loss.backward(loss_scale=loss_scale)
        del loss
        return prescaled


class _MultiNodeOptimizer(_Wrapper):
    """With ``overlap`` (and ``zero_fill``), ``update(lossfun, ...)``
    reduces each bucket of gradients while the rest of the backward runs
    (``MpiCommunicator._begin_overlapped_mean_grad``); the update waits for
    the last one."""

    def __init__(self, actual_optimizer, communicator, zero_fill,
                 overlap=False):
        super().__init__(actual_optimizer, communicator, zero_fill)
        object.__setattr__(self, '_seen', None)
        object.__setattr__(self, '_overlap', overlap)

    def update(self, lossfun=None, *args, **kwds):
        target = self.target
        prescaled = False
        session = None
        if lossfun is not None and self._overlap and self.zero_fill and \
                self._seen is not None and \
                _param_state(target) == self._seen and \
                hasattr(self.communicator, '_begin_overlapped_mean_grad'):
            session = self.communicator._begin_overlapped_mean_grad(target)
        if lossfun is not None:
            prescaled = self._compute_grads(lossfun, args, kwds, session)
        state = _param_state(target)
        if state != self._seen:
            if session is not None:
                session.abandon()
            object.__setattr__(self, '_seen', state)
            self.communicator.bcast_data(target)
            return
        if session is not None:
            session._scale = 1.0 if prescaled else \
                1.0 / self.communicator.size
            session.finish()
        elif prescaled:
            self.communicator._multi_node_mean_grad_async(
                target, self.zero_fill, prescaled=True).wait()
        else:
            self.communicator.multi_node_mean_grad(target, self.zero_fill)
        self.actual_optimizer.update(None, *args, **kwds)


class _DoubleBufferingOptimizer(_Wrapper):
    """Averages step t's gradients while step t+1 computes; each update
    uses the gradients of the step before (one step stale), as ChainerMN's
    double buffering does.  The first step after a broadcast only starts
    the averaging; updates begin with the next one."""

    def __init__(self, actual_optimizer, communicator, zero_fill):
        super().__init__(actual_optimizer, communicator, zero_fill)
        object.__setattr__(self, '_seen', None)
        object.__setattr__(self, '_shadow', None)
        object.__setattr__(self, '_pending', None)

    def wait(self):
        """Finish the averaging in flight (its means land in the shadow)."""
        pending = self._pending
        object.__setattr__(self, '_pending', None)
        if pending is not None:
            pending.wait()

    def update(self, lossfun=None, *args, **kwds):
        target = self.target
        prescaled = False
        if lossfun is not None:
            prescaled = self._compute_grads(lossfun, args, kwds)
        state = _param_state(target)
        if state != self._seen:
            self.wait()
            object.__setattr__(self, '_seen', state)
            self.communicator.bcast_data(target)
            shadow = copy.deepcopy(target)
            shadow.cleargrads()
            object.__setattr__(self, '_shadow', shadow)
            return
        self.wait()
        have_means = any(p.grad is not None for p in self._shadow.params())
        # The fresh gradients go to the shadow to be averaged in the
        # background; the target takes last step's means.
        mine = dict(target.namedparams())
        for name, shadow_param in self._shadow.namedparams():
            param = mine[name]
            param.grad, shadow_param.grad = shadow_param.grad, param.grad
        object.__setattr__(self, '_pending',
                           self.communicator._multi_node_mean_grad_async(
                               self._shadow, self.zero_fill,
                               prescaled=prescaled))
        if have_means:
            self.actual_optimizer.update(None, *args, **kwds)


def create_multi_node_optimizer(actual_optimizer, communicator,
                                double_buffering=False, zero_fill=True,
                                overlap=False):
    """Wrap ``actual_optimizer`` for data-parallel training.

    Args:
        actual_optimizer: a cpuframe optimizer (``optimizers.Adam()``, ...).
        communicator: from :func:`cpuframe.mn.create_communicator`.
        double_buffering: average step t's gradients while step t+1 runs
            and update with them then (one step stale).  ChainerMN offers it
            with 'pure_nccl' only; every cpuframe.mn communicator has it.
        zero_fill: a parameter that got no gradient takes part as zeros
            (otherwise it is skipped, and must be skipped on every rank).
        overlap: (cpuframe) with ``zero_fill``, ``update(lossfun, ...)``
            starts each bucket's allreduce as soon as its gradients are
            final, while the backward goes on; ``False`` (the default)
            reduces after the backward, as ChainerMN does. The means are the
            same either way. MPICH moves a started collective only inside
            MPI calls: the overlap polls at each final gradient, which
            hides little; with a core to spare per rank, run with
            ``MPIR_CVAR_ASYNC_PROGRESS=1`` (a progress thread) for the
            communication to go on during the backward's long kernels.
            Measured on a 2-core machine (benchmarks/mn/README.md) it did
            not pay there: no core is free for the progress.
    """
    if not hasattr(communicator, 'multi_node_mean_grad'):
        raise TypeError('create_multi_node_optimizer: expected a communicator '
                        'from create_communicator, got {}'.format(
                            type(communicator).__name__))
    if double_buffering:
        if not hasattr(communicator, '_multi_node_mean_grad_async'):
            raise ValueError(
                'This communicator does not support double buffering.')
        return _DoubleBufferingOptimizer(actual_optimizer, communicator,
                                         zero_fill)
    return _MultiNodeOptimizer(actual_optimizer, communicator, zero_fill,
                               overlap=bool(overlap))
