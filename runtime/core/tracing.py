"""The tracing context: which graph (if any) is being built on this thread.

Graphs nest: a `cond` branch or `while_loop` body is traced into a child graph whose
parent is the graph being built around it.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator

class _State(threading.local):
    """Per thread. Class-level defaults: a thread that never traced reads them at once
    (a `getattr` that misses on a plain `threading.local` costs ~0.45 µs, a third of a
    call's overhead)."""

    graph = None
    tapes = 0
    progress = None  # called for each node recorded, while `log.trace_progress` is on
    entry = None     # the frame that started the trace (`errors.user_origin` stops there)
    calls = None     # (innermost user frame, the user frames around it) of the last node


_state = _State()
# one entry per graph being built on any thread: empty means no thread is tracing, which
# the call path of a Function reads instead of the thread-local (a list: append and pop
# are atomic under the GIL)
building: list = []
# called (no arguments) when the first graph starts being built on any thread and when
# the last one is done: the converted functions of `autograph` switch code then
BUILDING_CHANGED: list = []


def current_graph():
    """The innermost graph being traced on this thread, or None (eager)."""
    return _state.graph


def in_graph_mode() -> bool:
    """True while a function is being traced on this thread."""
    return _state.graph is not None


@contextlib.contextmanager
def graph_context(graph) -> Iterator:
    previous = _state.graph
    _state.graph = graph
    building.append(None)
    try:
        if len(building) == 1:
            for changed in BUILDING_CHANGED:
                changed()
        yield graph
    finally:
        building.pop()
        _state.graph = previous
        if graph.parent is None:
            graph.snapshots.clear()  # the trace is over: let go of the captured originals
            graph.__dict__.pop("snapshot_bases", None)
        if not building:
            for changed in BUILDING_CHANGED:
                changed()


@contextlib.contextmanager
def user_calls_from(frame) -> Iterator[None]:
    """Origins recorded in the block carry the user's frames called below `frame`."""
    previous = _state.entry, _state.calls
    _state.entry, _state.calls = frame, None
    try:
        yield
    finally:
        _state.entry, _state.calls = previous  # no frame is kept after the trace


def tapes_recording() -> int:
    """How many gradient tapes record the graph being traced (on this thread)."""
    return _state.tapes


@contextlib.contextmanager
def tape_recording() -> Iterator[None]:
    _state.tapes = tapes_recording() + 1
    try:
        yield
    finally:
        _state.tapes -= 1
