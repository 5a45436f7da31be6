"""Python container items a `try` (or a `with np.errstate` region) traced into a graph
leaves holding values of its own graph: carried out as extra state of the construct.

The converter carries the variables a `try` assigns, and `obj.attr` written as such
(`names`). A symbolic `if` or loop inside the body also carries the container items
it replaces in place through code the converter does not see as an assignment (a
method, or a context manager's `__enter__` / `__exit__`, writing `self.n`:
`containers.py`), and stores into them values of the `try` body's graph. Those are no
output of the `try` node, so after it they would be values of a graph that has ended
(a LeakedTensorError when read). So the construct is traced once; if some item reachable
from its functions then holds such a value, everything is put back as it was and the
construct is traced again with those items as extra state variables (as symbolic loops
do), so each is an output of the node, set on every path as Python would.
"""
from __future__ import annotations

from typing import Callable

from autograph.errors import Diagnostic
from autograph.operators import containers
from runtime.control_flow.try_state import within
from runtime.core import tracing
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor
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
        result = run(*_extended(get_state, set_state, names, carried))
        found, _ = snap.changes()
        new = [c for c in containers.new_locations(found, carried)
               if _holds_inner(containers.get(c), graph)]
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


def _holds_inner(value, graph) -> bool:
    """Whether `value` holds a graph value of a graph inside `graph` (not readable in it)."""
    try:
        leaves = flatten(value)[0]
    except Exception:  # noqa: BLE001 - a value the structure walk does not know
        leaves = [value]
    return any(isinstance(v, Tensor) and not within(graph, v.graph) for v in leaves)
