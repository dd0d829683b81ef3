"""Small stand-ins shared by the training tests: an updater that counts
iterations and reports scripted values, and a trainer-shaped object for
testing triggers and extensions alone."""
import numpy
import pytest

from cpuframe import reporter


class CountingUpdater:
    """An updater with ``iters_per_epoch`` iterations per epoch that
    reports ``values(iteration)`` (a dict) at each update."""

    def __init__(self, iters_per_epoch=4, values=None, optimizers=None):
        self.iteration = 0
        self.iters_per_epoch = iters_per_epoch
        self.values = values
        self.optimizers = optimizers or {}
        self.finalized = 0
        self.calls = []

    @property
    def epoch(self):
        return self.iteration // self.iters_per_epoch

    @property
    def epoch_detail(self):
        return self.iteration / self.iters_per_epoch

    @property
    def previous_epoch_detail(self):
        if self.iteration == 0:
            return None
        return (self.iteration - 1) / self.iters_per_epoch

    @property
    def is_new_epoch(self):
        return self.iteration > 0 and \
            self.iteration % self.iters_per_epoch == 0

    def update(self):
        self.iteration += 1
        self.calls.append(('update', self.iteration))
        if self.values is not None:
            reporter.report(self.values(self.iteration))

    def get_optimizer(self, name):
        return self.optimizers[name]

    def get_all_optimizers(self):
        return dict(self.optimizers)

    def finalize(self):
        self.finalized += 1

    def serialize(self, serializer):
        self.iteration = serializer('iteration', self.iteration)


class FakeTrainer:
    """What triggers and extensions read from a trainer."""

    def __init__(self, iters_per_epoch=4, out='.', optimizer=None):
        self.updater = CountingUpdater(
            iters_per_epoch,
            optimizers=None if optimizer is None else {'main': optimizer})
        self.observation = {}
        self.elapsed_time = 0.0
        self.out = out
        self.stop_trigger = None

    @property
    def is_before_training(self):
        return self.updater.iteration == 0

    def step(self, observation=None):
        self.updater.iteration += 1
        self.observation = dict(observation or {})


class FakeOptimizer:
    """An optimizer with a plain ``lr`` attribute (for shift extensions)."""

    def __init__(self, lr=0.1, momentum=0.9):
        self.lr = lr
        self.momentum = momentum


@pytest.fixture
def counting_updater():
    return CountingUpdater


@pytest.fixture
def fake_trainer():
    return FakeTrainer


@pytest.fixture
def fake_optimizer():
    return FakeOptimizer


def make_linear_data(n=24, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(n, 3).astype(numpy.float32)
    t = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(numpy.int32)
    return x, t


@pytest.fixture
def linear_data():
    return make_linear_data
