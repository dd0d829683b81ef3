"""observe_value and observe_lr: put a value into the observation."""
from cpuframe.training import extension


def observe_value(observation_key, target_func):
    """An extension storing ``target_func(trainer)`` in the observation
    under ``observation_key`` (once per epoch by default)."""
    @extension.make_extension(trigger=(1, 'epoch'),
                              priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer):
        trainer.observation[observation_key] = target_func(trainer)
    return _observe_value


def observe_lr(optimizer_name='main', observation_key='lr'):
    """An extension storing the ``lr`` of the named optimizer in the
    observation (under ``'lr'`` by default)."""
    return observe_value(
        observation_key,
        lambda trainer: trainer.updater.get_optimizer(optimizer_name).lr)
