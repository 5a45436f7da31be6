"""`assert` and `try` in converted code.

    assert x > 0, "x must be positive"   =>   ag__.assert_stmt(x > 0, lambda: "x must be positive")

On a Python value this is Python's assert (the message is only built when it fails).
On a symbolic value it is a graph assertion (`runtime.assert_`): it runs every time the
graph runs and raises AssertionError with the message when the value is false.

A `try` with handlers has a graph form (`converters/try_statements.py`): while a graph
is traced, `try_graph` makes its body and handlers a `try` graph node
(runtime/control_flow/try_op.py), `else` a branch on the path the node took, and
`finally` runs on every path (around the node, and in a catch-all handler that
re-raises). A `try` that stays Python catches what is raised while the function runs as
Python or is traced; an error raised by graph operations when the graph runs would pass
its handlers by, so `try_body` refuses, at the `try`'s line, a body that recorded graph
operations while a handler could catch such an error (checked when the statement is
done, outside the user's handlers):

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
from autograph.errors import ConversionError, Diagnostic, caller_location
from autograph.operators import sole_holder
from autograph.operators.try_containers import carrying_items
from autograph.operators.partly_bound import unbound_after_try
from autograph.operators.variables import UNSET, Undefined
from autograph.operators.conditionals import (defer_raise, is_symbolic, python_read_error,
                                              raised_by_user)
from autograph.operators.first_assigned import note_first_assigned_read
from runtime.core import tracing
from runtime.core.errors import GraphModeError, LeakedTensorError, StateArrayWrite
from runtime.core.tensor import describing
from runtime.control_flow.try_op import RERAISE, ConversionRefusal, reraise, try_except
from runtime.control_flow.try_state import is_compiler_error
from runtime.state.effects import RAISE, raise_


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
    "try": "this condition is symbolic but sits inside a `try` that stays Python, where "
           "conditions must be Python values: a `try` keeps no graph form when it writes "
           "an attribute of an item such as `xs[0].y = v`, changes a container in place "
           "such as `xs.append(v)`, deletes, declares a `global`, or has a `break` / "
           "`continue` / `return` inside `finally`. Move those statements out of the "
           "`try` (collect into an array instead of appending), or make the condition a "
           "Python value.",
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

    __slots__ = ("handlers", "graph", "start", "end", "where", "tracing_error")

    def __init__(self, handlers: Callable):
        self.handlers = handlers  # () -> a class or tuple per handler (None: bare `except:`)
        self.graph = None
        self.tracing_error = None

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
        if self.tracing_error is not None:  # (whatever the handlers made of it)
            error, self.tracing_error = self.tracing_error, None
            raise error.with_traceback(error.__traceback__)
        if graph is not None and self.end > self.start and (
                typ is None or issubclass(typ, Exception) and not tracing_error(value)):
            # (also when the statement ends in the user's error, raised while tracing
            # after the body's operations: one of them may raise first what a handler
            # catches, when the graph runs)
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
            if value is not None and tracing_error(value):
                # the compiler's error, which Python would never raise: no handler of the
                # user's may take it (it is raised again when the statement is done)
                stmt.tracing_error = value
                raise _TracingError() from None
        return False


class _TracingError(BaseException):
    """Carries a tracing error past the user's handlers of a `try` that stays Python."""


def tracing_error(error: BaseException) -> bool:
    """Whether `error` is the compiler's (it cannot convert or trace something), never
    an error of the user's program: a user's handler never catches it."""
    return isinstance(error, (ConversionError, GraphModeError, Diagnostic, ConversionRefusal,
                              StateArrayWrite, LeakedTensorError)) or is_compiler_error(error)


def refused(error: BaseException) -> bool:
    """Whether `error` is a refusal of the compiler's, with its message for the user (the
    construct it names cannot be converted): raised as it is out of an enclosing `try`
    being traced (try_op.py's `compiler_error`)."""
    return isinstance(error, (ConversionError, Diagnostic, ConversionRefusal)) or \
        is_compiler_error(error)


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
            f"{caught}` could catch an error they raise when the graph runs, but the `try` "
            "stays Python (it writes an attribute of an item such as `xs[0].y = v`, "
            "changes a container in place such as `xs.append(v)`, deletes, declares a "
            "`global`, or has a "
            "`break` / `continue` / `return` inside `finally`), so the graph would not "
            "hand the error to the "
            "handler. Move those statements out of the `try`, test the condition "
            "explicitly before the operation (an `if` on a symbolic value becomes a graph "
            "branch), or call the function with ag.run_functions_eagerly(True).",
            filename, line)


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


def jumped_over(getter: Callable, name: str):
    """A variable's value where a `break` / `continue` / `return` in a `try` skipped the
    statements that assign it (converters/try_jumps.py). While it is unbound: unbound
    still (`Undefined`), except in the false branch of a symbolic `if` (the jump
    decided when the graph runs), where it is `UNSET` ("no value yet": the `if` gives it
    the type of the other path; the jump is made right after the `try`)."""
    try:
        value = getter()
    except NameError:
        value = Undefined(name)
    if isinstance(value, Undefined):
        graph = tracing.current_graph()
        return UNSET if graph is not None and graph.name == "else" else value
    return value


def try_graph_mode() -> bool:
    """Whether a `try` runs in its graph form (`converters/try_statements.py`): while a
    graph is traced."""
    return tracing.current_graph() is not None


# errors Python raises while tracing that every run would raise too (the lookup is of
# Python values fixed by the trace): recorded as a graph-side raise after the body's
# operations, so a handler catches them after those operations ran
_REPLAYABLE = (KeyError, AttributeError, NameError, ZeroDivisionError, IndexError)


def _defer(error: BaseException) -> bool:
    if raised_by_user(error) is not None:
        return defer_raise(error)
    if isinstance(error, _REPLAYABLE) and not isinstance(error, ConversionError):
        note_first_assigned_read(error)
        raise_(python_read_error(error))
        return True
    return False


def try_graph(body: Callable, handlers: tuple, orelse, final, get_state: Callable,
              set_state: Callable, names: tuple) -> None:
    """A `try` statement in its graph form: the body and handlers become one `try` graph
    node (runtime/control_flow/try_op.py); `else` runs where the body finished (a
    graph branch on the path the node reports). With `finally`, all of that is the
    body of an outer `try` node whose handler catches everything, runs `finally` and
    re-raises; on the other paths `finally` runs after the node."""
    where = caller_location()
    sole_holder.enter_state(get_state())  # (before the branches hold its arrays too)
    fns = (body, orelse, final) + tuple(f for h in handlers for f in h[:2])

    def run(get_state, set_state, names):
        _try_graph(body, handlers, orelse, final, _stable(get_state, names), set_state,
                   names, where)

    try:
        carrying_items(run, fns, get_state, set_state, names, where, "`try`")
    except ConversionRefusal as e:  # (also from the `else` or `finally`, traced after)
        raise ConversionError(f"this `try` cannot run in a graph: {e}", *where) from None
    finally:
        sole_holder.leave_state()


def _try_graph(body, handlers, orelse, final, get_state, set_state, names, where) -> None:
    if final is None:
        return _try_except(body, handlers, orelse, get_state, set_state, names, where)

    def protected():
        _try_except(body, handlers, orelse, get_state, set_state, names, where)

    def cleanup(error):
        final()
        raise error

    _try_except(protected, ((lambda: (), cleanup, True),), None, get_state, set_state,
                names, where)
    final()


def _stable(get_state: Callable, names: tuple) -> Callable:
    """`get_state` giving one `Undefined` per unbound name (the same on every path)."""
    undefined: dict = {}

    def stable():
        return tuple(undefined.setdefault(n, v) if isinstance(v, Undefined) else v
                     for n, v in zip(names, get_state()))
    return stable


def _try_except(body, handlers, orelse, get_state, set_state, names, where) -> None:
    kinds = []
    for kinds_fn, handler, *cleanup in handlers:
        k = kinds_fn()
        kinds.append((() if k == () else k if isinstance(k, tuple) else (k,), handler,
                      *cleanup))
    before = get_state()
    try:
        unbound_after: list = []
        going_on: list = []  # the node's paths that may finish (-1: the body)
        path, pending = try_except(body, kinds, get_state, set_state, names, _defer,
                                   _relevant, unbound_after=unbound_after,
                                   compiler_error=refused, going_on=going_on)
    except BaseException as e:
        if isinstance(e, ConversionRefusal) or tracing_error(e):
            # the variables as before the `try` (not a handler's stand-ins for them):
            # code that goes on after the compiler's error, as a loop that Python walks
            # instead, must not see them
            set_state(before)
        if isinstance(e, ConversionRefusal):
            raise ConversionError(f"this `try` cannot run in a graph: {e}", *where) from None
        raise
    rebound: set = set()  # (the variables the `else` assigns)

    def tracked_orelse():
        before = get_state()
        orelse()
        rebound.update(n for n, a, b in zip(names, before, get_state()) if a is not b)

    ended: list = []  # the error recorded where the body's path always raises
    if pending is not None:
        _hand_over(pending, path, kinds, get_state, set_state, rebound, names, ended)
    elif orelse is not None:
        _on_body_path(path, tracked_orelse, get_state, set_state, names, ended)
    if ended and going_on == [-1]:
        # every path of the `try` raises when the graph runs: the code after it never
        # runs, so it is not traced either (traced, it could read a variable no path
        # bound and fail where Python raises). As after a symbolic `if` whose branches
        # both raise, the error goes on as the user's `raise` seen while tracing: the
        # construct around records it after this node, which raises first
        raise ended[0]
    unbound_after_try(unbound_after, rebound, get_state, set_state, names, where, path)


def _relevant(kinds: tuple, nodes: list) -> bool:
    """Whether `except kinds` may catch an error these graph operations raise when the
    graph runs: a graph-side `raise` of a matching type, or any operation for a type
    that is not only raised by Python while tracing (`LinAlgError` and its subclasses:
    only NumPy's linear algebra)."""
    if not kinds:
        return True
    stack = list(nodes)
    while stack:
        node = stack.pop()
        for g in node.subgraphs():
            stack.extend(g.nodes)
        if node.op is RAISE or node.op is RERAISE and node.attrs["error"] is not None:
            if any(isinstance(k, type) and issubclass(node.attrs["error"], k) for k in kinds):
                return True
            continue
        for k in kinds:
            if not isinstance(k, type) or not issubclass(k, BaseException):
                return True  # not an exception class: Python raises TypeError at run time
            if issubclass(k, _PYTHON_SIDE):
                continue
            if issubclass(k, np.linalg.LinAlgError) and not _linear_algebra(node):
                continue
            return True
    return False


def _linear_algebra(node) -> bool:
    op = node.op
    return "linalg" in op.name or "linalg" in getattr(op.kernel, "__module__", "") or \
        op.kernel is None  # (a control-flow or other kernel-less node: may raise anything)


def _on_body_path(path, fn: Callable, get_state: Callable, set_state: Callable,
                  names: tuple | None = None, ended: list | None = None) -> None:
    """Run `fn` (on the state) only where the body finished: `path` is -1. `names`: the
    state's variables (an array the `else` writes into is then the same array after it,
    for its other names and the caller). `ended`: given a list, the error `fn` raised
    (recorded as a graph-side raise on that path) is added to it."""
    if not isinstance(path, runtime.Tensor):
        if path == -1:
            fn()
        return

    def run(*state):
        set_state(state)
        try:
            fn()
        except BaseException as exc:  # (the user's `raise` in an `else`: a graph raise
            if not _defer(exc):       # where the body finished, not one while tracing)
                raise
            if ended is not None:
                ended.append(exc)
        return get_state()

    set_state(runtime.cond(path == -1, run, lambda *state: state, get_state(),
                           names=list(names) if names is not None else None))


def _hand_over(error: BaseException, path, kinds: list, get_state, set_state,
               rebound: set | None = None, names: tuple = (), ended: list | None = None
               ) -> None:
    """The body raised `error` while tracing, after its operations (it is raised on
    every run that gets past them): its handler runs as in Python, where the body
    finished (`path` -1); with no handler for it, it is raised there. Only an error
    every run would raise is handed over so (the user's `raise`, a failed lookup of a
    Python value): any other is an error of tracing, raised now."""
    symbolic = isinstance(path, runtime.Tensor)
    if tracing_error(error) or symbolic and (isinstance(error, ConversionError) or not (
            raised_by_user(error) is not None or isinstance(error, _REPLAYABLE))):
        raise error
    for k, handler, *_ in kinds:
        if not k or isinstance(error, k):
            def run():
                try:
                    raise error
                except BaseException:
                    before = get_state()
                    try:
                        handler(error)
                    except BaseException as exc:
                        if not symbolic:
                            raise
                        if exc is error:  # re-raised as is
                            _raise_in_graph(error)
                        elif not reraise(exc) and not _defer(exc):
                            raise
                        if ended is not None:
                            ended.append(exc)
                    else:  # (the names it assigns: bound on the body's path after all)
                        if rebound is not None:
                            rebound.update(n for n, a, b in zip(names, before, get_state())
                                           if a is not b)
            return _on_body_path(path, run, get_state, set_state)
    if not symbolic:
        raise error
    _on_body_path(path, lambda: _raise_in_graph(error), get_state, set_state)
    if ended is not None:
        ended.append(error)


def _raise_in_graph(error: BaseException) -> None:
    """`error` raised where the graph gets to this point (the caught exception of an
    enclosing handler being traced: re-raised)."""
    if not reraise(error):
        raise_(error)
