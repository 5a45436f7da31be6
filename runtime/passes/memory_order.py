"""Whether a graph reads values in memory order: then its arrays' layouts (C or F order,
strides) matter, and neither constant folding (`fold.py`), algebraic simplification
(`simplify.py`), constant materialization (`materialize.py`), the executor's buffer plan
(`runtime/exec/buffer_plan.py`) nor jit regions (`runtime/jit/`) may change them."""
from __future__ import annotations

from runtime.core.graph import Graph


def reads_memory_order(graph: Graph) -> bool:
    """Whether a value of `graph` (or of its subgraphs) is read in memory order
    (`ravel`/`reshape` with order 'K' or 'A') or by an op whose result depends on its
    inputs' layout (`OpDef.reads_layout`: `x.strides`, as_strided): its values then
    depend on the layout of the arrays before it, which writing into reused buffers or
    replacing a value by an equal one of another layout would change. Elsewhere a
    result's layout may differ from eager NumPy's; its values never do."""
    return any(n.op.reads_layout or n.attrs.get("order") in ("K", "A") for n in graph.walk())
