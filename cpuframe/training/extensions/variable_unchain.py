"""unchain_variables: drop the graphs of reported variables."""
from cpuframe.training import extension
from cpuframe.variable import Variable


@extension.make_extension(trigger=(1, 'iteration'),
                          priority=extension.PRIORITY_READER - 1)
def unchain_variables(trainer):
    """Cut the computational graph behind every Variable in the
    observation (useful with ``keep_graph_on_report``) so its memory is
    freed before the next iteration."""
    for value in trainer.observation.values():
        if isinstance(value, Variable):
            value.unchain_backward()
