"""``chainer.graph_optimizations``: Chainer's static-subgraph decorators.

cpuframe runs every chain define-by-run; ``static_graph`` and
``static_code`` keep Chainer's signatures and run the decorated code as
written (see ``static_graph``).
"""
from cpuframe.graph_optimizations import (
    static_graph,  # noqa: F401
    static_graph_utilities,  # noqa: F401
)
from cpuframe.graph_optimizations.static_graph_utilities import static_code  # noqa: F401
