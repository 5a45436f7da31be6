"""Whether a graph reads values in memory order: then its arrays' layouts (C or F order)
matter, and neither constant materialization (`materialize.py`) nor the executor's buffer
plan (`runtime/exec/buffer_plan.py`) may change them."""
from __future__ import annotations

from runtime.core.graph import Graph


def reads_memory_order(graph: Graph) -> bool:
    """Whether a value of `graph` (or of its subgraphs) is read in memory order
    (`ravel`/`reshape` with order 'K' or 'A'): its values then depend on the layout (C or
    F order) of the arrays before it, which writing into reused buffers would change, so
    buffers are not reused there. Elsewhere a result's layout may differ from eager
    NumPy's; its values never do."""
    return any(n.attrs.get("order") in ("K", "A") for n in graph.walk())
