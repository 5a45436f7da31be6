"""`next` in converted code: a generator advanced by a symbolic loop is an error.

A symbolic loop's body is traced once (or a few times, to learn its variables' types)
and then runs as a graph; a `next(g)` in it would advance the Python generator `g`
while tracing only, and every iteration of the graph would reuse that one value. So
`next` on a generator while a symbolic loop body or condition is being traced raises
a ConversionError at the user's line; everywhere else `next_` is the builtin.
"""
from __future__ import annotations

import builtins
import types

from autograph.errors import ConversionError, caller_location
from runtime.core import tracing

_LOOP_GRAPHS = ("body", "cond")  # the subgraphs `runtime.while_loop` traces


def next_(iterator, *default):
    if type(iterator) is types.GeneratorType and _in_symbolic_loop():
        filename, line = caller_location()
        raise ConversionError(
            "this `next()` advances a Python generator inside a symbolic loop, whose body "
            "is traced once and then runs as a graph: the generator would advance while "
            "tracing only, not once per iteration. Collect the values first "
            "(`values = np.array(list(gen))`) and index them with the loop counter, or "
            "make the loop a Python loop.", filename, line)
    return builtins.next(iterator, *default)


def _in_symbolic_loop() -> bool:
    graph = tracing.current_graph()
    while graph is not None:
        if graph.name in _LOOP_GRAPHS:
            return True
        graph = graph.parent
    return False
