"""@static_graph / @static_code: Chainer's static-subgraph decorators run the
decorated chain define-by-run and give the same values and gradients as the
undecorated chain, across iterations, in training and test mode."""
import numpy
import pytest

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L
from cpuframe.graph_optimizations.static_graph import static_graph
from cpuframe.graph_optimizations.static_graph_utilities import (
    static_code,
    static_forward_optimizations,
)


class Plain(cpuframe.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 8)
            self.bn = L.BatchNormalization(8)
            self.l2 = L.Linear(8, 3)

    def forward(self, x):
        return self.l2(F.dropout(F.relu(self.bn(self.l1(x))), 0.3))


class Static(Plain):
    calls = 0

    @static_code
    def count(self):
        type(self).calls += 1

    @static_graph
    def forward(self, x):
        self.count()
        return super().forward(x)


class StaticWithOptions(Plain):
    @static_graph(verbosity_level=1, minimize_cache_size=False)
    def forward(self, x):
        return super().forward(x)


@pytest.mark.parametrize('cls', [Static, StaticWithOptions])
@pytest.mark.parametrize('train', [True, False])
def test_same_values_and_gradients_every_iteration(cls, train):
    plain, static = Plain(), cls()
    static.copyparams(plain)
    rng = numpy.random.default_rng(0)
    Static.calls = 0
    for it in range(3):
        x = rng.standard_normal((5, 4)).astype(numpy.float32)
        outs = []
        for model in (plain, static):
            model.cleargrads()
            numpy.random.seed(it)    # the same dropout mask
            with cpuframe.using_config('train', train):
                y = model(x)
            F.sum(y * y).backward()
            outs.append((y.array.copy(), model.l1.W.grad.copy()))
        numpy.testing.assert_array_equal(outs[0][0], outs[1][0])
        numpy.testing.assert_array_equal(outs[0][1], outs[1][1])
    assert isinstance(static.schedule_manager, object)
    static.schedule_manager.end_forward()   # Chainer's call for forward-only runs
    if cls is Static:
        assert Static.calls == 3               # @static_code runs every iteration


def test_top_level_names():
    assert cpuframe.static_graph is static_graph
    assert cpuframe.static_code is static_code
    assert cpuframe.graph_optimizations.static_code is static_code
    assert static_forward_optimizations(None, ()) is None


def test_bad_arguments_are_named():
    with pytest.raises(TypeError,
                       match='static_graph: unexpected keyword argument.*fast'):
        static_graph(fast=True)
    with pytest.raises(TypeError, match='static_graph: expected the method'):
        static_graph(3)
    with pytest.raises(TypeError, match='static_code: expected no keyword'):
        static_code(x=1)
