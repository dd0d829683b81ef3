"""Trainer extensions, as in ``chainer.training.extensions``."""
from cpuframe.training.extensions import snapshot_writers  # noqa: F401
from cpuframe.training.extensions._snapshot import (  # noqa: F401
    snapshot,
    snapshot_object,
)
from cpuframe.training.extensions.computational_graph import (  # noqa: F401
    DumpGraph,
    dump_graph,
)
from cpuframe.training.extensions.evaluator import Evaluator  # noqa: F401
from cpuframe.training.extensions.exponential_shift import (  # noqa: F401
    ExponentialShift,
)
from cpuframe.training.extensions.fail_on_nonnumber import (  # noqa: F401
    FailOnNonNumber,
)
from cpuframe.training.extensions.inverse_shift import (  # noqa: F401
    InverseShift,
)
from cpuframe.training.extensions.linear_shift import LinearShift  # noqa: F401
from cpuframe.training.extensions.log_report import LogReport  # noqa: F401
from cpuframe.training.extensions.micro_average import (  # noqa: F401
    MicroAverage,
)
from cpuframe.training.extensions.multistep_shift import (  # noqa: F401
    MultistepShift,
)
from cpuframe.training.extensions.parameter_statistics import (  # noqa: F401
    ParameterStatistics,
)
from cpuframe.training.extensions.plot_report import PlotReport  # noqa: F401
from cpuframe.training.extensions.polynomial_shift import (  # noqa: F401
    PolynomialShift,
)
from cpuframe.training.extensions.print_report import (  # noqa: F401
    PrintReport,
)
from cpuframe.training.extensions.progress_bar import (  # noqa: F401
    ProgressBar,
)
from cpuframe.training.extensions.step_shift import StepShift  # noqa: F401
from cpuframe.training.extensions.value_observation import (  # noqa: F401
    observe_lr,
    observe_value,
)
from cpuframe.training.extensions.variable_statistics_plot import (  # noqa: F401,E501
    VariableStatisticsPlot,
)
from cpuframe.training.extensions.variable_unchain import (  # noqa: F401
    unchain_variables,
)
from cpuframe.training.extensions.warmup_shift import (  # noqa: F401
    WarmupShift,
)

__all__ = [
    'DumpGraph', 'Evaluator', 'ExponentialShift', 'FailOnNonNumber',
    'InverseShift', 'LinearShift', 'LogReport', 'MicroAverage',
    'MultistepShift', 'ParameterStatistics', 'PlotReport',
    'PolynomialShift', 'PrintReport', 'ProgressBar', 'StepShift',
    'VariableStatisticsPlot', 'WarmupShift', 'dump_graph', 'observe_lr',
    'observe_value', 'snapshot', 'snapshot_object', 'snapshot_writers',
    'unchain_variables',
]
