"""The tracing context: which graph (if any) is being built on this thread.

Graphs nest: a `cond` branch or `while_loop` body is traced into a child graph whose
parent is the graph being built around it.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator

_state = threading.local()


def current_graph():
    """The innermost graph being traced on this thread, or None (eager)."""
    return getattr(_state, "graph", None)


def in_graph_mode() -> bool:
    """True while a function is being traced on this thread."""
    return getattr(_state, "graph", None) is not None


@contextlib.contextmanager
def graph_context(graph) -> Iterator:
    previous = getattr(_state, "graph", None)
    _state.graph = graph
    try:
        yield graph
    finally:
        _state.graph = previous
        if graph.parent is None:
            graph.snapshots.clear()  # the trace is over: let go of the captured originals


def tapes_recording() -> int:
    """How many gradient tapes record the graph being traced (on this thread)."""
    return getattr(_state, "tapes", 0)


@contextlib.contextmanager
def tape_recording() -> Iterator[None]:
    _state.tapes = tapes_recording() + 1
    try:
        yield
    finally:
        _state.tapes -= 1
