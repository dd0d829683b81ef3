"""Helpers shared by the function- and link-hook tests (imported as a plain
module: tests/conftest.py puts this directory on sys.path)."""
import cpuframe
import cpuframe.functions as F
import cpuframe.links as L


class MLP(cpuframe.Chain):
    """3 -> 4 -> 2 with a relu between."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class FakeClock:
    """``time`` stand-in whose perf_counter returns the values given."""

    def __init__(self, times):
        self.times = list(times)

    def perf_counter(self):
        return self.times.pop(0)


class SeenLabels(cpuframe.FunctionHook):
    """A function hook that lists the label of every node whose backward
    it sees (``labels``)."""

    name = 'SeenLabels'

    def __init__(self):
        self.labels = []

    def backward_preprocess(self, function, in_data, out_grad):
        self.labels.append(function.label)
