"""`with` statements in converted code: the context managers allowed around graph
operations.

    with m:           =>   with ag__.with_manager(m):
        y = x + 1              y = x + 1

While a graph is traced, a manager's `__enter__` and `__exit__` run once, at trace
time, while the operations recorded in its body run on every call, later. So a
manager whose effect is at run time (`np.errstate`, `contextlib.suppress`,
`warnings.catch_warnings`, a lock, a timer, a file) would be silently different around
graph operations. `with_manager` lets through the managers known to mean the same
(`_known_safe`); any other one is watched, and if its body recorded graph operations
the statement is a ConversionError at the `with` line saying why and what to do.
`contextlib.suppress(E)` is refused only when those operations may raise E when the
graph runs (the rule a `try` that stays Python follows, `exceptions._relevant`;
ZeroDivisionError only comes from exact Python-int arithmetic, a graph-side `raise` or
object arrays): errors Python raises while tracing are raised, and suppressed, the
same way on every call.
A body that only runs Python (no graph operation recorded) keeps Python's meaning and
is left alone, as is every `with` outside tracing.

`with np.errstate(...):` written as such has a graph form (`converters/try_statements.py`):
`errstate_region` traces its body into a region node (a `try` node with no handlers whose
executor code runs under the same `np.errstate`), so the body's operations warn, raise or
stay silent when the graph runs as they do eagerly.
"""
from __future__ import annotations

import contextlib

import numpy as np

from typing import Callable

from autograph.errors import ConversionError, caller_location
from autograph.operators import sole_holder
from autograph.operators.exceptions import _defer, _relevant, _stable, refused
from autograph.operators.try_containers import carrying_items
from runtime.control_flow.try_op import RERAISE, ConversionRefusal, try_except
from runtime.core import tracing
from runtime.ops.constant import CONSTANT
from runtime.ops.exact_ints import EXACT_INT
from runtime.state.effects import RAISE

# modules whose context managers are written for tracing (ag.GradientTape, ...)
_PROJECT = ("autograph.", "runtime.")


def with_manager(manager):
    """`manager` itself when no graph is traced or it is known to mean the same around
    graph operations; otherwise a stand-in that refuses a body with graph operations."""
    graph = tracing.current_graph()
    if graph is None or _known_safe(manager):
        return manager
    return _Watched(manager, graph, caller_location())


def _known_safe(manager) -> bool:
    if isinstance(manager, contextlib.nullcontext):
        return True
    module = type(manager).__module__ or ""
    if module.startswith(_PROJECT):
        return True
    func = getattr(manager, "func", None)  # a @contextlib.contextmanager of the project
    return isinstance(manager, contextlib._GeneratorContextManager) and \
        (getattr(func, "__module__", None) or "").startswith(_PROJECT)


def _fix(manager) -> str:
    if isinstance(manager, np.errstate):
        return ("Only `with np.errstate(...):` written alone, without `as` or `call=`, "
                "becomes a run-time errstate region. Write it so, or set it around the "
                "call instead (`with np.errstate(...): f(x)`), which the graph honours")
    if isinstance(manager, contextlib.suppress):
        return ("An error those operations raise when the graph runs would not be "
                "suppressed. Write `try: ... except E: pass` instead, which is a graph "
                "construct")
    return ("Move the `with` outside the function (around the call), or move the array "
            "computations out of its body, or mark the function with "
            "ag.do_not_convert / call it with ag.run_functions_eagerly(True)")


class _Watched:
    __slots__ = ("manager", "graph", "where", "start")

    def __init__(self, manager, graph, where: tuple):
        self.manager = manager
        self.graph = graph
        self.where = where
        self.start = 0

    def __enter__(self):
        value = type(self.manager).__enter__(self.manager)
        self.start = len(self.graph.nodes)
        return value

    def __exit__(self, typ, value, tb) -> bool:
        nodes = [n for n in self.graph.nodes[self.start:] if n.op is not CONSTANT]
        recorded = bool(nodes) and (not isinstance(self.manager, contextlib.suppress) or
                                    _may_raise(self.manager._exceptions, nodes))
        suppressed = type(self.manager).__exit__(self.manager, typ, value, tb)
        if recorded and (typ is None or suppressed):  # (an error passing out fails the trace)
            filename, line = self.where
            name = type(self.manager).__qualname__
            raise ConversionError(
                f"this `with {name}` wraps graph operations, but its __enter__ and "
                "__exit__ run once while the function is traced, not each time the graph "
                f"runs, so it would not act on them. {_fix(self.manager)}.",
                filename, line)
        return bool(suppressed)


def _may_raise(kinds: tuple, nodes: list) -> bool:
    """Whether these graph operations may raise one of `kinds` when the graph runs."""
    zero = tuple(k for k in kinds if isinstance(k, type) and issubclass(k, ZeroDivisionError))
    rest = tuple(k for k in kinds if k not in zero)
    if rest and _relevant(rest, nodes):
        return True
    stack = list(nodes) if zero else []
    while stack:
        node = stack.pop()
        subgraphs = list(node.subgraphs())
        for g in subgraphs:
            stack.extend(g.nodes)
        if node.op is RAISE or node.op is RERAISE:
            if _relevant(zero, [node]):
                return True
        elif node.op is EXACT_INT or (node.op.kernel is None and not subgraphs) or \
                any(getattr(getattr(o, "dtype", None), "kind", "") == "O" for o in node.outputs):
            return True
    return False


_ERRSTATE_KINDS = ("all", "divide", "over", "under", "invalid")


def errstate_region(manager: Callable, body: Callable, get_state: Callable,
                    set_state: Callable, names: tuple) -> None:
    """`with manager(): body()` while a graph is traced: an `np.errstate` (without
    `call=`) becomes a region node run under it; any other manager is the `with` itself."""
    m = manager()
    settings = _errstate_settings(m)
    if settings is None:
        with with_manager(m):
            body()
        return
    where = caller_location()
    sole_holder.enter_state(get_state())

    def run(get_state, set_state, names):
        with manager():  # (NumPy on Python values while tracing honours it too; a new
            # one each trace: an np.errstate is entered once)
            return try_except(body, (), _stable(get_state, names), set_state, names,
                              _defer, _relevant, errstate=settings,
                              compiler_error=refused)

    try:
        _, pending = carrying_items(run, (body,), get_state, set_state, names, where,
                                    "`with np.errstate`")
    except ConversionRefusal as e:
        raise ConversionError(f"this `with np.errstate` cannot run in a graph: {e}",
                              *where) from None
    finally:
        sole_holder.leave_state()
    if pending is not None:
        raise pending


def _errstate_settings(m) -> tuple | None:
    if not isinstance(m, np.errstate) or getattr(m, "_call", None).__class__.__name__ != \
            "_unspecified":
        return None
    return tuple((k, getattr(m, f"_{k}")) for k in _ERRSTATE_KINDS
                 if getattr(m, f"_{k}", None) is not None)
