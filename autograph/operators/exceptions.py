"""`assert` and `try` in converted code.

    assert x > 0, "x must be positive"   =>   ag__.assert_stmt(x > 0, lambda: "x must be positive")

On a Python value this is Python's assert (the message is only built when it fails).
On a symbolic value it is a graph assertion (`runtime.assert_`): it runs every time the
graph runs and raises AssertionError with the message when the value is false.

A `try` stays Python: it catches what is raised while the function runs as Python or
is traced. An error raised by graph operations when the graph runs (a singular matrix
in `np.linalg.inv`, a symbolic index out of range, a graph assertion, a `raise` under a
symbolic condition) would pass its handlers by, so `try_body` refuses, at the `try`'s
line, a body that recorded graph operations while a handler could catch such an error
(checked when the statement is done, outside the user's handlers):

    try:                             with ag__.try_stmt(lambda: (np.linalg.LinAlgError,)) as try_:
        y = np.linalg.inv(x)   =>        try:
    except np.linalg.LinAlgError:            with try_.body():
        y = np.zeros_like(x)                     y = np.linalg.inv(x)
                                         except np.linalg.LinAlgError:
                                             y = np.zeros_like(x)
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import runtime
from autograph.errors import ConversionError, caller_location
from autograph.operators.conditionals import is_symbolic
from runtime.core import tracing
from runtime.core.tensor import describing
from runtime.state.effects import RAISE


def assert_stmt(test, message: Callable | None = None) -> None:
    if is_symbolic(test):
        with describing():  # f"x={x}" in the message shows x's symbolic description
            text = "" if message is None else message()
        if test.ndim != 0:
            test = np.all(test)
        runtime.assert_(test, text if isinstance(text, str) else str(text))
        return
    if not test:
        graph = tracing.current_graph()
        if graph is not None and graph.parent is not None:
            # a branch or loop body of a symbolic `if` / loop is traced whether it runs or
            # not: the assert fails when the graph reaches it, as a symbolic one does
            text = "" if message is None else message()
            runtime.assert_(runtime.constant(np.bool_(False)), str(text))
            return
        if message is None:
            raise AssertionError
        raise AssertionError(message())


_PYTHON_ONLY = {
    "try": "this condition is symbolic but sits inside a try/except block, which AutoGraph "
           "leaves as Python (a graph cannot catch exceptions). Move the if/while/for out "
           "of the `try` block, or make the condition a Python value.",
    "match": "the subject of this `match` is symbolic: AutoGraph converts the statements "
             "inside the cases, but the `match` itself stays Python and its patterns cannot "
             "be tested in a graph. Use if/elif on the value instead.",
    "guard": "the guard of this `case` is symbolic: AutoGraph converts the statements "
             "inside the cases, but the `match` itself stays Python and cannot test a "
             "symbolic guard. Use if/elif, or an `if` inside the case, instead.",
}


def python_only(value, construct: str = "try"):
    """A value Python must decide on: a condition or iterable inside a `try` block, the
    subject of a `match` or the guard of a `case`. A symbolic one is a ConversionError at its line."""
    if is_symbolic(value):
        filename, line = caller_location()
        raise ConversionError(_PYTHON_ONLY[construct], filename, line)
    return value


# Errors graph operations never raise when the graph runs: a handler for only these sees
# exactly what it would see eagerly (they come from Python code run while tracing).
_PYTHON_SIDE = (KeyError, AttributeError, NameError, ImportError, StopIteration,
                StopAsyncIteration, OSError, TypeError, NotImplementedError, RecursionError,
                UnicodeError, ConversionError, KeyboardInterrupt, SystemExit, GeneratorExit)


class try_stmt:  # noqa: N801 - an operator, named like the other `ag__` calls
    """Wraps a user's `try` that has handlers (see the module docstring); `body()` wraps
    its body. The check runs when the whole statement is done, outside the user's
    `try`, so that none of its handlers can catch the ConversionError."""

    __slots__ = ("handlers", "graph", "start", "end", "where")

    def __init__(self, handlers: Callable):
        self.handlers = handlers  # () -> a class or tuple per handler (None: bare `except:`)
        self.graph = None

    def __enter__(self):
        graph = tracing.current_graph()
        if graph is not None:
            self.graph = graph
            self.start = self.end = len(graph.nodes)
            self.where = caller_location()
        return self

    def body(self):
        return _Body(self)

    def __exit__(self, typ, value, tb) -> bool:
        graph = self.graph
        if typ is None and graph is not None and self.end > self.start:
            _refuse_if_catchable(graph.nodes[self.start:self.end], self.handlers, self.where)
        return False


class _Body:
    __slots__ = ("stmt",)

    def __init__(self, stmt: try_stmt):
        self.stmt = stmt

    def __enter__(self):
        stmt = self.stmt
        if stmt.graph is not None:
            stmt.start = len(stmt.graph.nodes)
        return self

    def __exit__(self, typ, value, tb) -> bool:
        stmt = self.stmt
        if stmt.graph is not None:
            stmt.end = len(stmt.graph.nodes)
        return False


def _refuse_if_catchable(nodes: list, handlers: Callable, where: tuple) -> None:
    raised = _graph_raises(nodes)
    try:
        kinds = handlers()
    except Exception:  # noqa: BLE001 - a handler type Python could not evaluate: unknown
        kinds = (None,)
    for kind in kinds:
        caught = _catchable(kind, raised)
        if caught is None:
            continue
        filename, line = where
        raise ConversionError(
            f"this `try` has graph operations in its body and its handler `except "
            f"{caught}` could catch an error they raise when the graph runs, which the "
            "graph does not hand to Python handlers: the result would differ from NumPy's. "
            "Catch only errors Python raises while tracing (KeyError, AttributeError, "
            "TypeError, ...), test the condition explicitly before the operation (an `if` "
            "on a symbolic value becomes a graph branch), or call the function with "
            "ag.run_functions_eagerly(True).", filename, line)


def _catchable(kind, raised: list) -> str | None:
    """The name of what `except kind` could catch from the graph, or None."""
    if kind is None:
        return "(bare)"
    for k in kind if isinstance(kind, tuple) else (kind,):
        if not isinstance(k, type) or not issubclass(k, BaseException):
            return getattr(k, "__name__", repr(k))
        if not issubclass(k, _PYTHON_SIDE) or any(issubclass(r, k) for r in raised):
            return k.__name__
    return None


def _graph_raises(nodes: list) -> list:
    """The exception types of the graph-side `raise`s among `nodes` and their subgraphs."""
    out, stack = [], list(nodes)
    while stack:
        node = stack.pop()
        if node.op is RAISE:
            out.append(node.attrs["error"])
        for g in node.subgraphs():
            stack.extend(g.nodes)
    return out
