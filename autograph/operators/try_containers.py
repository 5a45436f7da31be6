"""Python container items and object attributes a `try` (or a `with np.errstate`
region) traced into a graph changes through code the converter does not see as an
assignment: carried out as extra state of the construct.

The converter carries the variables a `try` assigns, and `obj.attr` written as such
(`names`). A method, or a context manager's `__enter__` / `__exit__`, writing `self.n`,
and a symbolic `if` or loop inside the body replacing items in place (`containers.py`),
change state the construct does not carry: a handler's change would stay done on every
path (a method counting in a handler counted where the body finished, fuzz seed 2801 of
graph_try,try_raises), and a value of the body's graph stored there would outlive its
graph (a LeakedTensorError when read). So the construct is traced once; if some item
reachable from its functions then changed, everything is put back as it was and the
construct is traced again with those items as extra state variables (as symbolic `if`s
and loops do), so each is an output of the node, set on every path as Python would.
"""
from __future__ import annotations

from typing import Callable

from autograph.errors import Diagnostic
from autograph.operators import containers
from runtime.core import tracing
from runtime.core.errors import LeakedTensorError
from runtime.state import views

_MAX_RETRACES = 2  # traces again to find every item the construct leaves behind


def carrying_items(run: Callable, fns: tuple, get_state: Callable, set_state: Callable,
                   names: tuple, where: tuple, what: str):
    """`run(get_state, set_state, names)` (traces the construct), with the container
    items it leaves holding values of its own graph carried as extra state."""
    graph = tracing.current_graph()
    snap = containers.Snapshot(containers.roots_of(*fns, values=get_state()), names)
    if not snap:
        return run(get_state, set_state, names)
    before = get_state()
    start = len(graph.nodes)
    arrays = views.checkpoint()
    carried: list = []
    for _ in range(1 + _MAX_RETRACES):
        try:
            result = run(*_extended(get_state, set_state, names, carried))
        except LeakedTensorError:
            # (a handler read what the body's graph left there through a call: carried,
            # the handler gets it as the state at the error instead)
            found, _ = snap.changes()
            if not containers.new_locations(found, carried):
                raise
            result = None
        found, _ = snap.changes()
        new = containers.new_locations(found, carried)
        if not new:
            return result
        del graph.nodes[start:]
        views.rollback(arrays)
        snap.restore()
        set_state(before)
        carried.extend(new)
    raise Diagnostic(f"{where[0]}:{where[1]}: this {what} replaces items of Python "
                     "containers in too many places through calls; make them variables "
                     "it assigns.")


def _extended(get_state: Callable, set_state: Callable, names: tuple, carried: list):
    if not carried:
        return get_state, set_state, names
    n = len(names)

    def get():
        return tuple(get_state()) + tuple(containers.get(c) for c in carried)

    def put(values):
        set_state(tuple(values[:n]))
        for location, value in zip(carried, values[n:]):
            containers.put(location, value)

    return get, put, tuple(names) + tuple(containers.describe(c) for c in carried)
