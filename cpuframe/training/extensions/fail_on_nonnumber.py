"""FailOnNonNumber: stop training when parameters become NaN or inf."""
from cpuframe.training import extension


class FailOnNonNumber(extension.Extension):
    """Raises ``RuntimeError`` as soon as a parameter (or, with
    ``check_grad``, a gradient) of any optimizer's target holds a NaN or
    an infinity."""

    def __init__(self, *, check_grad=True):
        self._check_grad = check_grad

    def __call__(self, trainer):
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            target = optimizer.target
            xp = target.xp
            for path, param in target.namedparams():
                if param.array is not None and \
                        not xp.isfinite(param.array).all():
                    raise RuntimeError(
                        'FailOnNonNumber: parameter {} of optimizer {!r} '
                        'diverged (it holds NaN or inf) at iteration {}'
                        .format(path, name, trainer.updater.iteration))
                if self._check_grad and param.grad is not None and \
                        not xp.isfinite(param.grad).all():
                    raise RuntimeError(
                        'FailOnNonNumber: the gradient of parameter {} of '
                        'optimizer {!r} holds NaN or inf at iteration {}'
                        .format(path, name, trainer.updater.iteration))
