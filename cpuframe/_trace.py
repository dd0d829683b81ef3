"""Whether ``FunctionNode.apply`` calls are being recorded in this thread.

``@static_graph`` (``cpuframe.graph_optimizations``) records the ops of a
chain's first calls to replay them later. The core only asks, at the top of
``apply``, whether a recorder is active: ``active[0]`` counts the recorders
of all threads (one list read when none is, the common case) and
``state.recorder`` is this thread's. A recorder's ``record_apply(node,
inputs)`` runs the node's ``apply`` itself (with ``busy`` set, so the ops
that apply runs inside the node are not recorded twice) and returns its
result. A recorder with ``traces_compute`` also gets ``record_compute(node,
in_data)`` for each ``FunctionNode._compute`` (the building block of the
array backward) while it is not ``busy``.
"""
import threading

active = [0]
_count_lock = threading.Lock()


class _State(threading.local):
    recorder = None


state = _State()


class recording:
    """``with recording(recorder):`` makes ``recorder`` this thread's."""

    def __init__(self, recorder):
        self.recorder = recorder
        self.previous = None

    def __enter__(self):
        self.previous = state.recorder
        state.recorder = self.recorder
        with _count_lock:
            active[0] += 1
        return self.recorder

    def __exit__(self, *exc):
        with _count_lock:
            active[0] -= 1
        state.recorder = self.previous
        return False


class suspended:
    """``with suspended():``: no recording in this thread (a replay or a
    nested define-by-run call inside a recorded one)."""

    def __enter__(self):
        self.previous = state.recorder
        state.recorder = None

    def __exit__(self, *exc):
        state.recorder = self.previous
        return False
