"""`try_op`: a `try` / `except` whose body records graph operations, as one graph node.

The body and each handler are traced into child graphs that read outer values only
through captures (no inputs of their own); the executor writes a real Python `try`
around the body's code, one `except` clause per handler, and assigns the node's outputs
(the state variables, then `path`: -1 when the body finished, else the handler's
index) on each path. An error an operation raises when the graph runs (LinAlgError,
IndexError, FloatingPointError, a graph-side `raise`) so reaches the handler Python
would pick.

The state a handler sees is what the variables held when the error was raised (computed
in try_state.py). The body is traced with a hook that reads the state whenever an
operation is recorded (try_points.py; a nested `try` counts as its operations); a
variable that holds the same value from outside the body at every operation that may
raise what the handler catches (the caller's `relevant`) is exact. A value the body
computed that is the same at all those operations is computed again in the handler
(`Replay`: pure operations that succeeded before the error give the same value).
Any other is `Unknown` in the handler, and a handler that uses or passes on such a
value is a ConversionError (the graph cannot tell which value Python would have had).

Inside a handler the caught exception is a stand-in (`Caught`): `raise e`, a bare
`raise` and `raise X(...) from e` become nodes that raise the real exception at run
time (`RERAISE`); reading its contents (`e.args`, `str(e)`) is a ConversionError.

The node is effectful (never dropped, moved or merged by the passes) and its body keeps
every operation (each body node's results are extra body outputs, so dead-code
elimination cannot drop an operation whose error a handler catches).
"""
from __future__ import annotations

import itertools
import threading
from typing import Callable, Sequence

import numpy as np

from runtime.control_flow import path_kinds
from runtime.control_flow.common import (
    as_value,
    aval_of,
    finish_captures,
    is_python_scalar,
    same_constant,
)
from runtime.control_flow.cond import _merge_dtype, _merge_shape, _number_like
from runtime.control_flow.learn_types import is_placeholder, needs_value, zeros_like
from runtime.control_flow.try_arrays import Tracked
from runtime.control_flow.try_cleanup import check_untainted, stand_ins_for
from runtime.control_flow.try_marks import Marked, mark
from runtime.control_flow.try_points import Snapshots, recorders_around, refusals
from runtime.control_flow.try_state import (
    ConversionRefusal,
    mark_compiler_error,
    Replay,
    Unknown,
    catches,
    drop_ended,
    drop_foreign,
    leaf_names,
    leaves_as,
    replay,
    state_at_errors,
)
from runtime.core import tracing
from runtime.core.graph import Graph
from runtime.core.registry import OpDef, add_node
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor
from runtime.ops.constant import CONSTANT, constant
from runtime.state.after_error import ALWAYS_TRACED
from runtime.state.effects import KEEP, keep_nested, unused_results

TRY = OpDef("try", None, num_outputs=-1, stateful=True, effect=True)


def _reraise_kernel(*, var, error, args):
    caught = _CAUGHT.values.get(var)
    if error is None:
        raise caught
    raise error(*args) from caught


RERAISE = OpDef("reraise", _reraise_kernel, lambda op, inputs, attrs: [], num_outputs=0,
                stateful=True, effect=True)


class _Caught(threading.local):
    def __init__(self):
        self.values: dict = {}


_CAUGHT = _Caught()  # the interpreter's caught exceptions, by the handler's variable
_counter = itertools.count()


class Caught(Exception):
    """The caught exception inside a handler traced into a graph (see the docstring)."""

    def __init__(self, var: str, kinds: tuple):
        super().__init__()
        self.var, self.kinds = var, kinds

    def _refuse(self, *args):
        raise ConversionRefusal(
            "the handler reads the caught exception, whose contents are known only when "
            "the graph runs. In a graph handler the exception can be re-raised (`raise`, "
            "`raise e`, `raise X(...) from e`) but not read.")

    __str__ = __repr__ = __getitem__ = __iter__ = __len__ = __bool__ = _refuse
    args = property(_refuse)


def _trace(name: str, parent: Graph, fn: Callable, get_state=None, trees=(), names=()):
    sub = Graph(name, parent=parent)
    sub.in_order = True  # (runs where it stands: writes into outer arrays, try_arrays.py)
    if get_state is not None:
        outer = [r for r in recorders_around(parent) if r.get_state is not get_state]
        sub.nodes = Snapshots(get_state, trees, names, outer)
    with tracing.graph_context(sub):
        error = None
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            error = exc
    return sub, error


def try_except(body: Callable, handlers: Sequence, get_state: Callable, set_state: Callable,
               names: Sequence[str], defer: Callable, relevant: Callable,
               errstate: tuple | None = None, unbound_after: list | None = None,
               compiler_error: Callable | None = None, going_on: list | None = None) -> tuple:
    """Trace `try: body() except kinds_i as e: handler_i(e)` on the state `get_state()`
    (a tuple of the variables' values; `set_state` writes them), and leave the state
    as Python would. Returns `(path, pending)`: `path` is -1 when the body finished, i
    when handler i ran (a graph value when an operation decides it); `pending` is an
    error the body raised while tracing, after its last operation (every run raises
    it once the operations are done; the caller hands it to its handler in Python).

    `handlers`: (kinds, handler(e)) with `kinds` a tuple of classes (empty: bare
    `except`); only those `relevant(kinds, body_nodes)` (they may catch an error the
    body's operations raise) become graph handlers. `defer(exc)`: whether an error a
    handler raises while traced is the user's `raise` (then recorded as a graph-side
    raise, True) or a tracing error (False). `errstate`: the (name, value) pairs of an
    `np.errstate` the body runs under when the graph runs (a region: no handlers).
    `unbound_after`: given a list, (name, unbound on the body's path only) for each
    variable bound on some paths going on after the `try` only (`_partly_bound`).
    `compiler_error(exc)`: whether an error the body raised while traced is a refusal
    of the compiler's (a construct inside cannot be converted): raised as it is, before
    the state it left behind (values of a construct it did not finish) is looked at.
    `going_on`: given a list, the path values (-1: the body) of the parts that may finish
    (a handler that always raises gives none)."""
    graph = tracing.current_graph()
    init = get_state()
    init_leaves, tree = flatten(init)
    trees = [flatten(v)[1] for v in init]
    labels = leaf_names(names, tree, len(init_leaves))
    tracked = Tracked(init_leaves, labels)
    g_body, error = _trace("try", graph, body, get_state, trees, names)
    snaps, own, refusal = g_body.nodes.seen, g_body.nodes.own, refusals(g_body)
    g_body.recorder = g_body.nodes  # (read when the node is recorded in an outer body)
    g_body.nodes = list(g_body.nodes)
    if not g_body.nodes:  # nothing can fail when the graph runs: Python's `try`
        if error is not None:
            drop_foreign(graph, get_state, set_state, init_leaves, tree)
        if going_on is not None:
            going_on.append(-1)
        return -1, error
    if isinstance(error, ConversionRefusal) or \
            error is not None and compiler_error is not None and compiler_error(error):
        raise error
    if refusal is not None:
        raise refusal
    written = tracked.written(g_body)  # (and the handlers', added as they are traced)
    for _, leaves in snaps if written else ():
        tracked.check(written, leaves, " around operations that may fail", g_body)
    set_state = tracked.following(written, set_state)  # arrays follow their variable
    if error is not None:
        caught = any(catches(h[0], error) for h in handlers)
        drop_foreign(g_body, get_state, set_state, init_leaves, tree,
                     names if caught else None)
    handlers = [(i, h[0], h[1], h[2:] == (True,)) for i, h in enumerate(handlers)
                if relevant(h[0], g_body.nodes)]
    body_leaves = leaves_as(get_state(), trees, names) if error is None else \
        flatten(get_state())[0]
    if error is None:
        tracked.check(written, body_leaves, "")
    g_handlers, h_leaves = [], []
    for index, kinds, handler, cleanup in handlers:
        # the state where an operation may raise what this handler catches
        points = [(node, leaves) for node, leaves in snaps if relevant(kinds, [node])]
        exc_leaves = state_at_errors(g_body, [leaves for _, leaves in points], init_leaves,
                                     names, tree)
        exc_leaves = [_marked(g_body, points, own, k, x) if isinstance(x, Unknown) else x
                      for k, x in enumerate(exc_leaves)]
        var = f"caught_{next(_counter)}"
        set_state(unflatten(tree, exc_leaves))
        stand_in = Caught(var, kinds)
        stand_ins: list = []

        def run(handler=handler, stand_in=stand_in, cleanup=cleanup, stand_ins=stand_ins,
                exc_leaves=exc_leaves):
            if any(isinstance(x, (Replay, Marked)) for x in exc_leaves):
                exc_leaves = [replay(x.value, g_body) if isinstance(x, Replay) else
                              x.read() if isinstance(x, Marked) else x for x in exc_leaves]
                set_state(unflatten(tree, exc_leaves))
            if cleanup:  # values only its outputs may depend on (it always re-raises)
                stand_ins.extend(stand_ins_for(exc_leaves, body_leaves))
                set_state(unflatten(tree, [s if s is not None else v for s, v in
                                           zip(stand_ins, exc_leaves)]))
            try:
                handler(stand_in)
            except BaseException as exc:
                if reraise(exc):
                    raise _Raised() from None
                raise

        g, err = _trace(f"except_{index}", graph, run)
        new = tracked.written_in(g, written)
        for lv in ([body_leaves] if error is None else []) + h_leaves:
            if lv is not None:
                tracked.check(new, lv, "")
        if cleanup:
            check_untainted(g, {id(x): labels[k] for k, x in enumerate(stand_ins)
                                if x is not None})
        if isinstance(err, _Raised):
            leaves = None
        elif err is not None:
            with tracing.graph_context(g):
                if isinstance(err, ConversionRefusal):
                    raise err
                if not defer(err):
                    raise mark_compiler_error(err)
            leaves = None
        else:
            leaves = leaves_as(get_state(), trees, names)
            for k, x in enumerate(leaves):
                if isinstance(x, Unknown):  # (held by another variable: the handler read it)
                    x.refuse_passed_on() if labels[k] == x.name else x._refuse()
            tracked.check(written, leaves, " in a handler")
        g_handlers.append((g, var, tuple(kinds), index))
        h_leaves.append(leaves)
    g_body.pending = error is not None
    paths = [(g_body, body_leaves)] + [(g, lv) for (g, *_), lv in zip(g_handlers, h_leaves)]
    if going_on is not None:
        going_on.extend(code for code, (_, lv) in zip([-1] + [h[3] for h in g_handlers], paths)
                        if lv is not None)
    drop_ended(paths, init_leaves, labels)
    out = _finish(graph, paths, init_leaves, g_handlers, labels, errstate, unbound_after)
    tracked.pass_through(written, [lv for _, lv in paths if lv is not None], out)
    set_state(unflatten(tree, out[:-1]))
    return out[-1], error


def _marked(g_body: Graph, points: list, own: dict, k: int, unknown: Unknown):
    """Leaf `k` in a handler: read from marks the body leaves at each point where it may
    raise (try_marks.py), or still `unknown` where it cannot. `own`: each point's state
    in the values of its own graph (a branch of the body's)."""
    if not points or any(k >= len(leaves) or k >= len(own.get(id(node), ()))
                         for node, leaves in points):
        return unknown
    found = mark(g_body, [(node, leaves[k], own[id(node)][k]) for node, leaves in points])
    return unknown if found is None else found


def reraise(exc: BaseException) -> bool:
    """Record a re-raise of a caught exception (`raise e`, or `raise X(...) from e` with
    `e` the stand-in of a handler being traced); False for any other error."""
    if isinstance(exc, Caught):
        attrs = {"var": exc.var, "error": None, "args": ()}
    elif isinstance(exc.__cause__, Caught) and not isinstance(exc, ConversionRefusal):
        attrs = {"var": exc.__cause__.var, "error": type(exc), "args": tuple(exc.args)}
    else:
        return False
    graph = tracing.current_graph()
    # what the handler computed before the re-raise runs first, as in Python (a
    # `finally` whose operation raises replaces the error passing through)
    keep_nested(graph)
    unused = unused_results(graph)
    if unused:
        add_node(graph, KEEP, unused, {}, [])
    add_node(graph, RERAISE, [], attrs, [])
    return True


class _Raised(Exception):
    """A handler that always raises (recorded): it gives no state."""


def _finish(graph: Graph, paths: list, init: list, handlers: list, labels: list,
            errstate: tuple | None = None, unbound_after: list | None = None) -> list:
    """Add the node: merge each state leaf over the paths that give one (a variable one
    path leaves unbound: the others' type; its name goes to `unbound_after`, see
    `_partly_bound`)."""
    live = [lv for _, lv in paths if lv is not None]
    if not live:
        live = [list(init)]
    n = len(init)
    out, slots, avals = list(live[0]) + [None], [], []
    if unbound_after is not None:
        unbound_after.extend(_partly_bound(paths, init, labels, handlers))
    for k in range(n):
        typed = [lv[k] for lv in live if not is_placeholder(lv[k])]
        if typed and len(typed) < len(live):
            # "no value" on a path (unbound there, as after a `cond`): the other type
            for lv in live:
                if is_placeholder(lv[k]):
                    lv[k] = zeros_like(typed[0])
        vals = [lv[k] for lv in live]
        if all(not isinstance(v, Tensor) for v in vals) and \
                all(same_constant(vals[0], v) for v in vals[1:]):
            # the value every path gives (where the first path left it unbound, the
            # others' value, as after a `cond`: an `else` or a `return` after the `try`
            # then meets it, not the placeholder)
            out[k] = vals[0]
            continue
        for v in vals:
            if isinstance(v, Unknown):
                v.refuse_passed_on() if labels[k] == v.name else v._refuse()
            if not (isinstance(v, (Tensor, np.ndarray, np.generic)) or is_python_scalar(v)):
                what = "the value a `return` in it gives" if labels[k] == "try_return" \
                    else f"'{labels[k]}'"
                raise ConversionRefusal(
                    f"{what} holds a value of another structure inside the `try` on "
                    f"different paths ({v!r:.60} on one, an array on another): give it an "
                    "array or number on every path.")
        dtype = aval_of(vals[0])[1]
        shape = aval_of(vals[0])[0]
        for v in vals[1:]:
            label = f"'{labels[k]}' (assigned in a `try`)"
            dtype = _merge_dtype(label, vals[0], v)
            shape = _merge_shape(label, vals[0], v, "body", "handler")
        slots.append(k)
        avals.append((shape, dtype))
    live = [(i, g, lv) for i, (g, lv) in enumerate(paths) if lv is not None]
    results = [[as_value(g, lv[k], avals[j][1]) for j, k in enumerate(slots)]
               for _, g, lv in live]
    # a Python number on one path and a NumPy value on another: the kind of the path taken
    kind_outputs = path_kinds.add_kind_outputs([g for _, g, _ in live],
                                        [[lv[k] for k in slots] for _, _, lv in live],
                                        results, avals, as_value)
    avals.append(((), np.dtype(np.int64)))
    codes = [-1] + [h[3] for h in handlers]  # the path: -1 (body) or the handler's index
    for g, lv in paths:
        if lv is None:
            g.outputs = []
    for (i, g, _), path_results in zip(live, results):
        with tracing.graph_context(g):
            path_results.append(constant(np.int64(codes[i])))
        g.outputs = path_results + _may_raise(g, path_results)
    subs = [g for g, _ in paths]
    keep_nested(subs[0])  # (every operation of its branches and loops runs too)
    caps = finish_captures(subs, 0)
    attrs = {"body": subs[0], "n_out": len(avals)}
    for i, (g, var, kinds, _) in enumerate(handlers):
        attrs[f"except_{i}"] = g
        attrs[f"kinds_{i}"] = kinds
        attrs[f"var_{i}"] = var
        attrs[f"code_{i}"] = codes[i + 1]
    attrs["n_handlers"] = len(handlers)
    if errstate is not None:
        attrs["errstate"] = errstate
    outs = add_node(graph, TRY, caps, attrs, avals)
    path_kinds.note_kinds(graph, outs, kind_outputs)
    for j, k in enumerate(slots):
        outs[j].weak = all(_number_like(lv[k]) for _, lv in paths if lv is not None)
        out[k] = outs[j]
    out[-1] = outs[-1]
    return out


def _partly_bound(paths: list, init: list, labels: list, handlers: list) -> list:
    """(leaf label, {path: bound there}) for the leaves of the user's variables, unbound
    before the `try`, that some path going on after the `try` leaves unbound and another
    binds: Python raises UnboundLocalError reading it after the `try` on the first only.
    `path` is the node's path value (-1: the body; i: handler i). A body that raised while
    traced (its error handed to a handler in Python, which may bind it: the caller looks)
    counts as the body's path. The caller carries each as PartlyBound (reads checked
    when the graph runs) or refuses reading it."""
    def goes_on(lv) -> bool:
        # (known to make no jump; a jump known only when the graph runs may return,
        # where Python never reads the variable: that path keeps the zeros of before)
        return all(type(x) is int and x == 0 if label.startswith("try_jump") else
                   x is False if label.startswith("try_returned") else True
                   for x, label in zip(lv, labels))

    values = [-1] + [h[3] for h in handlers]
    live = [(values[i], lv) for i, (g, lv) in enumerate(paths) if lv is not None and goes_on(lv)]
    out = []
    for k, start in enumerate(init):
        if not needs_value(start) or labels[k].startswith("try_"):
            continue
        bound = {value: not is_placeholder(lv[k]) for value, lv in live}
        if not all(bound.values()) and (any(bound.values()) or -1 in bound):
            out.append((labels[k], bound))
    return out


def _may_raise(g: Graph, results: list) -> list:
    """The results of `g`'s operations that nothing else keeps: extra outputs, so that
    every operation of a body runs (each may raise what a handler catches)."""
    used = {id(x) for x in results}
    for node in g.nodes:
        used.update(id(x) for x in node.inputs if isinstance(x, Tensor))
    return [o for node in g.nodes if node.op is not CONSTANT
            for o in node.outputs if id(o) not in used]


def try_sources(node, index: int) -> list:
    subs = [node.attrs["body"]] + [node.attrs[f"except_{i}"]
                                   for i in range(node.attrs["n_handlers"])]
    return [g.outputs[index] for g in subs if len(g.outputs) > index]


def try_feeds(node, position: int) -> list:
    return [node.inputs[position]] if position < len(node.inputs) else []


def check_try(inputs: list, attrs: dict, avals: list, fail: Callable[[str], None]) -> None:
    subs = [attrs["body"]] + [attrs[f"except_{i}"] for i in range(attrs["n_handlers"])]
    for g in subs:
        if len(g.inputs) != len(inputs):
            fail(f"subgraph {g.name} takes {len(g.inputs)} inputs, the node passes {len(inputs)}")
        if g.outputs and len(g.outputs) < attrs["n_out"]:
            fail(f"subgraph {g.name} gives too few results")


ALWAYS_TRACED.update({_trace.__code__, try_except.__code__})  # (the body, not a handler)


def _attach() -> None:
    TRY.subgraph_attrs = ("body",)  # and `except_<i>` for each handler:
    TRY.subgraph_names = lambda attrs: ("body",) + tuple(
        f"except_{i}" for i in range(attrs["n_handlers"]))
    TRY.slot_use, RERAISE.slot_use = "catch", "reraise"
    TRY.check = check_try
    TRY.sources = try_sources
    TRY.feeds = try_feeds
    TRY.once_inputs = lambda node: []


_attach()
