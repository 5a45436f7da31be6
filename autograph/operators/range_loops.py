"""A `for` over a Python `range` inside a trace: unrolled, then rolled into one graph loop.

`loops.for_stmt` hands a long range here (`rollable_range`). The iterations run as Python
(unrolled) until two consecutive ones start with loop variables of the same types; then
the remaining iterations become one `while_loop` (`symbolic_loop`, passed in by
loops.py), with the same results as unrolling. When rolling is decided is `rolling.py`'s.

    for i in range(1000): x = x - f(x) / df(x)   =>   16 unrolled, then while_loop(...)
"""
from __future__ import annotations

import warnings

from autograph.operators.conditionals import _symbolic_if, is_symbolic, pack, unpack
from autograph.operators.py_builtins import SymbolicRange
from autograph.operators.rolling import (
    ROLL_AFTER, ROLL_NODES, WARN_AFTER, loop_types, warn_unrolled,
)
from runtime.core import tracing


def rollable_range(r: range) -> bool:
    """A range long enough to roll (`rolling.ROLL_AFTER`) whose items fit in int64."""
    return max(abs(r.start), abs(r.stop), abs(r.step)) < 2 ** 62 and len(r) > ROLL_AFTER


def range_for(rng: range, body, state, names, extra_test, loc, opts, symbolic_loop):
    """A `for` over a Python range inside a trace: run as Python (unrolled), and once two
    consecutive iterations start with loop variables of the same types, one of them
    symbolic, the remaining iterations become one graph loop (`_roll`) - when its `break`
    or `return` turned symbolic, or unrolling them would add more than `ROLL_NODES` graph
    ops (a short chain stays unrolled, where passes such as matmul-chain squaring see
    it). A `break` or `return` that turned symbolic runs each unrolled iteration under
    `if keep_going:`."""
    graph = tracing.current_graph()
    state = tuple(state)
    checked = (-2, None)  # (iteration, its loop_types) of the last rolling check
    rollable, declined, grew, added, keep_going = True, False, 0, 0, True
    for k, item in enumerate(rng):
        if extra_test is not None:
            keep_going = extra_test(*state)
            if not is_symbolic(keep_going) and not keep_going:
                break
        if rollable and (is_symbolic(keep_going) or grew and not declined):
            types = loop_types(state + (keep_going,))
            if types is not None and checked == (k - 1, types) and len(rng) - k > 1:
                if is_symbolic(keep_going) or added * (len(rng) - k) > ROLL_NODES:
                    out = _roll(rng[k:], body, state, names, extra_test, loc, opts, graph,
                                symbolic_loop)
                    if out is not _NOT_ROLLED:
                        return out
                    rollable = False
                else:  # a short chain of ops: unrolled on purpose, without a warning
                    declined = True
            checked = (k, types)
        before = len(graph.nodes)
        if is_symbolic(keep_going):
            out = _symbolic_if(keep_going, lambda *s, item=item: body(item, *s), None,
                               state, names or (), loc, what="loop iteration")
            state = unpack(out, names) if names else ()
        else:
            state = unpack(body(item, *state), names)
        added = len(graph.nodes) - before
        grew = grew + 1 if added else 0
        if grew == WARN_AFTER and not declined:
            warn_unrolled(loc, k + 1)
    return pack(state, names)


_NOT_ROLLED = object()


def _roll(rng: range, body, state, names, extra_test, loc, opts, graph, symbolic_loop):
    """The iterations `rng` as one graph loop from `state`; `_NOT_ROLLED` (with the graph
    as it was) when the body cannot be traced that way (it needs the index as a Python
    int, its variables change type...), and the caller goes on unrolling. Warnings from
    an attempt that fails are dropped: the unrolled iterations give their own."""
    start = len(graph.nodes)
    seq = SymbolicRange(rng.start, rng.stop, rng.step)
    holds_item: list = []  # per trace of the body: which variables it sets to the item
    note = holds_item.append  # (the list itself is no closure cell: `containers.roots_of`
    #                            would take it for user state the body changes)

    def watched(item, *values):
        out = body(item, *values)
        note([v is item for v in unpack(out, names)])
        return out

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = symbolic_loop(None, watched, state, names, loc, opts, (seq, extra_test))
        except Exception:
            del graph.nodes[start:]
            return _NOT_ROLLED
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if extra_test is None and holds_item and names:
        # the loop target (`i = item`, unchanged) after a loop that runs to its end is
        # the last item: a Python int, as after the Python loop
        values = list(unpack(out, names))
        for k in range(len(values)):
            if all(k < len(h) and h[k] for h in holds_item):
                values[k] = rng[-1]
        out = pack(tuple(values), names)
    return out
