"""A graph `try`'s cleanup handler (`finally` on the error path) and its stand-ins.

On the error path a `finally` may read a variable the body assigns around operations
that may fail (`Unknown`: which value it holds depends on which one failed). It is traced
on a zero stand-in of the variable's type; `check_untainted` then refuses a
side effect, or an operation whose error would replace the one passing through (an
index, a division: `may_raise`), that depends on one, and keeps only untainted results
before the re-raise:

    try:                        # on the error path `y` is 1.0 or x / k: unknown
        y = 1.0; y = x / k
    finally:
        z = y * 2               # computed from the stand-in: never a side effect's input
        w = xs[int(y)]          # refused: which IndexError (if any) passes on depends on y

The stand-in is a slot the handler fills with zeros and reads back, so tracing never
knows its value: code that would decide something in Python from a known zero (an `if`,
the position of an index, known_value.py) stays in the graph, where the check sees it.
"""
from __future__ import annotations

import itertools

import numpy as np

from runtime.control_flow.common import is_python_scalar
from runtime.control_flow.learn_types import zeros_like
from runtime.control_flow.try_marks import MARK, Marked
from runtime.control_flow.try_state import ConversionRefusal, Unknown
from runtime.core import tracing
from runtime.core.graph import Graph
from runtime.core.registry import add_node
from runtime.core.tensor import Tensor
from runtime.ops.constant import constant
from runtime.state.effects import KEEP

_counter = itertools.count()
# ops whose error depends on their operands' values (a zero divisor), by name; ufuncs
# by NumPy's name, Python-number arithmetic (path_arith, exact_int) by its `ufunc`
_DIVIDING = frozenset({"divide", "true_divide", "floor_divide", "remainder", "fmod",
                       "divmod", "power", "float_power", "reciprocal"})
_INDEXING = frozenset({"getitem", "index_update"})  # (input 0 the array, then the index)


def stand_ins_for(exc_leaves: list, body_leaves: list) -> list:
    """For a cleanup handler (`finally` on the error path): a zero array in place of
    each `Unknown` value whose type the body gives (None elsewhere)."""
    out = []
    for x, b in zip(exc_leaves, body_leaves):
        typed = isinstance(b, (Tensor, np.ndarray, np.generic)) or is_python_scalar(b)
        out.append(_opaque_zero(np.asarray(zeros_like(b))) if isinstance(x, Unknown) and typed
                   else None)
    return out


def _opaque_zero(value: np.ndarray) -> Tensor:
    """`value` (zeros) in the graph being traced, through a slot: not known while tracing."""
    var = f"stand_in_{next(_counter)}"
    add_node(tracing.current_graph(), MARK, [constant(value)], {"var": var}, [])
    return Marked(var, value.shape, value.dtype, False, None).read()


def may_raise(node, tainted: set) -> bool:
    """Whether `node`, which reads a tainted value, may raise an error that depends on it
    (then the error Python's `finally` raises, replacing the one passing through, is not
    known): a division-like op on it, an index made from it, linear algebra on it, or a
    branch or loop it decides or enters that holds any operation that may raise."""
    if node.subgraphs():
        return any(_raises_at_all(n) for g in node.subgraphs() for n in g.nodes)
    read = [isinstance(x, Tensor) and id(x) in tainted for x in node.inputs]
    name = node.op.name
    if name in _INDEXING:
        return any(read[1:])
    if name in ("path_arith", "exact_int"):
        return node.attrs.get("ufunc") in _DIVIDING and any(read)
    return (name in _DIVIDING or "linalg" in name) and any(read)


# what an op is to the cleanup checks: one lookup by its name, as the rest of the runtime
# dispatches (the records live in effects.py and try_op.py)
_ROLE = {"raise": "raise", "reraise": "raise", KEEP.name: "keep"}


def _raises_at_all(node) -> bool:
    """Whether `node` may raise on some values of its inputs (see `may_raise`)."""
    if node.subgraphs():
        return any(_raises_at_all(n) for g in node.subgraphs() for n in g.nodes)
    every = {id(x) for x in node.inputs if isinstance(x, Tensor)}
    return node.has_effects or _ROLE.get(node.op.name) == "raise" or may_raise(node, every)


def check_untainted(g: Graph, tainted: dict) -> None:
    """No side effect of the cleanup handler `g`, and no operation whose error would
    replace the one passing through, may depend on a stand-in value (`tainted`: id of
    each stand-in -> its variable's name; what is made from one is added)."""
    for node in g.nodes:
        if _ROLE.get(node.op.name) == "keep":
            node.inputs = untainted_sources(g, node.inputs, tainted)
            continue
        read = [tainted[id(x)] for x in node.inputs if isinstance(x, Tensor) and id(x) in tainted]
        read += [tainted[id(outer)] for sub in node.subgraphs() for outer in sub.captures
                 if id(outer) in tainted]
        if not read:
            continue
        if node.has_effects:
            raise ConversionRefusal(
                "its `finally` has a side effect that uses a variable the `try` assigns "
                f"around operations that may fail ('{read[0]}'): when an error passes "
                "through, the graph cannot tell which value it holds. Assign it before "
                "the `try`, or use another variable in the `finally`.")
        if may_raise(node, tainted):
            raise ConversionRefusal(
                "its `finally` has an operation that may raise (an index, a division) on "
                "a variable the `try` assigns around operations that may fail "
                f"('{read[0]}'): when an error passes through, the graph cannot tell which "
                "value it holds, so which error passes on. Assign it before the `try`, or "
                "use another variable in the `finally`.")
        tainted.update((id(o), read[0]) for o in node.outputs)


def untainted_sources(g: Graph, kept: list, tainted: dict) -> list:
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


