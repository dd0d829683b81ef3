"""``chainer.graph_optimizations``: Chainer's static-subgraph decorators.

``static_graph`` records a chain's ops on its first calls and replays
them; ``static_code`` marks the Python that runs on every call (see
``static_graph``).
"""
from cpuframe.graph_optimizations import (
    static_graph,  # noqa: F401
    static_graph_utilities,  # noqa: F401
)
from cpuframe.graph_optimizations.static_graph_utilities import static_code  # noqa: F401
