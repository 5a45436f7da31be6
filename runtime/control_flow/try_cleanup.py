"""A graph `try`'s cleanup handler (`finally` on the error path) and its stand-ins.

On the error path a `finally` may read a variable the body assigns around operations
that may fail (`Unknown`: which value it holds depends on which one failed). It is traced
on a zero stand-in of the variable's type; try_op.py's `_check_untainted` then refuses a
side effect that depends on one, and keeps only untainted results before the re-raise:

    try:                        # on the error path `y` is 1.0 or x / k: unknown
        y = 1.0; y = x / k
    finally:
        z = y * 2               # computed from the stand-in: never a side effect's input
"""
from __future__ import annotations

import numpy as np

from runtime.control_flow.common import is_python_scalar
from runtime.control_flow.learn_types import zeros_like
from runtime.control_flow.try_state import Unknown
from runtime.core.graph import Graph
from runtime.core.tensor import Tensor
from runtime.ops.constant import constant


def stand_ins_for(exc_leaves: list, body_leaves: list) -> list:
    """For a cleanup handler (`finally` on the error path): a zero array in place of
    each `Unknown` value whose type the body gives (None elsewhere)."""
    out = []
    for x, b in zip(exc_leaves, body_leaves):
        typed = isinstance(b, (Tensor, np.ndarray, np.generic)) or is_python_scalar(b)
        out.append(constant(np.asarray(zeros_like(b))) if isinstance(x, Unknown) and typed
                   else None)
    return out


def untainted_sources(g: Graph, kept: list, tainted: set) -> list:
    """The results a KEEP before a re-raise keeps: each of `kept` not made from a
    stand-in, and for one that is (not the value Python computes), the values it is made
    from that are not (their operations still run first, as in Python)."""
    made_by = {id(o): n for n in g.nodes for o in n.outputs}
    out, seen, stack = [], set(), list(kept)
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if id(x) not in tainted:
            out.append(x)
        elif id(x) in made_by:
            stack.extend(v for v in made_by[id(x)].inputs if id(v) in made_by)
    return out


def reads_tainted(node, tainted: set) -> bool:
    subs = node.subgraphs()
    return any(id(outer) in tainted for g in subs for outer in g.captures)
