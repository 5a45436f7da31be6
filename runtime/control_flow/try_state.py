"""What the variables of a `try` traced into a graph hold where an error is raised
(runtime/control_flow/try_op.py builds the node).

The body is traced with a node list that reads the state whenever an operation is
recorded (`Snapshots`); its subgraphs get one too, and a `cond` node counts as its
branches' operations, their states carried out through the branch inputs. Per state
leaf, `state_at_errors` gives the value at every operation that may raise what a
handler catches: an outer value (exact), a value the body computed that the handler
computes again (`Replay`: pure operations that succeeded), or `Unknown` (reading it is
a ConversionRefusal). A variable whose structure changes inside the `try` is refused
(its leaves would not line up), and one left holding a value of an unfinished graph
(the body raised while tracing a construct inside it) is dropped (`drop_foreign`).
"""
from __future__ import annotations

from typing import Callable

from runtime.control_flow.learn_types import is_placeholder
from runtime.core import tracing
from runtime.core.graph import Graph
from runtime.core.registry import add_node
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor
from runtime.ops.quiet import silenced_op


class ConversionRefusal(Exception):
    """Raised to the converted code's operator, which turns it into a ConversionError
    at the user's `try` line."""


def mark_compiler_error(error: BaseException) -> BaseException:
    """`error`, raised while a handler was traced and found to be the compiler's (it
    cannot trace something there), not one every run raises: an enclosing `try` being
    traced must raise it too, never hand it to a handler of the user's (`finally:
    break` would swallow it, and the graph would go on with the state before it)."""
    error._compiler_error = True  # (every exception has a __dict__: BaseException's)
    return error


def is_compiler_error(error: BaseException) -> bool:
    """Whether `mark_compiler_error` marked `error`."""
    return getattr(error, "_compiler_error", False) is True


class Unknown:
    """A variable's value in a handler when the graph cannot know it (see the docstring)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def _refuse(self, *args, **kwargs):
        raise ConversionRefusal(
            f"the handler reads '{self.name}', which the `try` body assigns around "
            "operations that may fail: the graph cannot tell which value it holds when the "
            f"error is raised. Assign '{self.name}' before the `try` (or in the handler "
            "before reading it).")

    def refuse_passed_on(self):
        """Refused where a handler finishes and the variable goes on holding the value."""
        raise ConversionRefusal(
            f"after the handler, '{self.name}' holds what it held where the error was "
            "raised, which the `try` body assigns around operations that may fail: the "
            f"graph cannot tell which value that is. Assign '{self.name}' in the handler, "
            "or before the `try` only.")

    __getattr__ = _refuse
    __array_ufunc__ = __array_function__ = __array__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __getitem__ = __bool__ = __float__ = __int__ = _refuse
    __setitem__ = __delitem__ = __contains__ = __call__ = _refuse
    __matmul__ = __rmatmul__ = __neg__ = __lt__ = __gt__ = __le__ = __ge__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = _refuse
    __abs__ = __pos__ = __index__ = __len__ = __iter__ = __round__ = __complex__ = _refuse
    __eq__ = __ne__ = _refuse  # (never False by identity: the value is not known)
    __hash__ = object.__hash__


def leaves_as(state, trees: list, names) -> list:
    """The leaves of `state`, each variable with its structure `trees` from before the
    `try`: a variable that holds a value of another structure inside it is refused
    (its leaves would not line up with the other paths')."""
    out = []
    for name, value, tree in zip(names, state, trees):
        leaves, now = flatten(value)
        if now != tree:
            raise ConversionRefusal(
                f"'{name}' holds a value of another structure inside the `try` than before "
                "it (a tuple, list or dict of another length or kind, or a value where it "
                f"was unbound): give '{name}' a value of the same structure before the "
                "`try`.")
        out += leaves
    return out


def catches(kinds: tuple, error: BaseException) -> bool:
    try:
        return not kinds or isinstance(error, kinds)
    except TypeError:  # (not exception classes: Python raises when it tries the handler)
        return True


def drop_foreign(graph: Graph, get_state: Callable, set_state: Callable, before: list,
                 tree, names=None) -> None:
    """After the body raised while a construct inside it was traced, a variable may hold
    a value of that construct's unfinished graph (not `graph` or one around it), or a
    stand-in of another structure for it (a list a branch was handed as its placeholder).
    Where the error passes on, it takes its value from before the `try` again (nothing
    reads it); where a handler takes the error (`names` given), it is `Unknown` there.
    `before`, `tree`: the state's leaves and structure taken before the body ran (not
    read again from the state: a list it holds may have been written in place; fuzz
    seed 905 of the union set)."""
    state = list(get_state())
    old = unflatten(tree, list(before))
    changed = False
    for i, (value, start) in enumerate(zip(state, old)):
        leaves = flatten(value)[0]
        if not any(isinstance(v, Tensor) and not within(graph, v.graph) for v in leaves):
            continue
        changed = True
        if names is None:
            state[i] = start
        else:  # (its structure as before, each leaf unknown: the handler may not read it)
            start_leaves, start_tree = flatten(start)
            state[i] = unflatten(start_tree, [Unknown(names[i])] * len(start_leaves))
    if changed:
        set_state(tuple(state))


def drop_ended(paths: list, init: list, labels: list) -> None:
    """A variable a loop or branch inside one part of the `try` (body, handler) assigns
    without carrying it out (nothing reads it after that construct) still holds a value
    of the construct's graph, which has ended. On that path it takes its value from
    before the `try` again when it was unbound there (nothing reads it after). Where it
    was bound, or another path gives it a value, the graph cannot give it Python's
    value: refused, naming it. `paths`: (graph, leaves) per part (leaves changed in
    place; None: the part always raises)."""
    for k, start in enumerate(init):
        ended = [lv for g, lv in paths if lv is not None and isinstance(lv[k], Tensor)
                 and isinstance(lv[k].graph, Graph) and not within(g, lv[k].graph)]
        if not ended:
            continue
        others = [lv[k] for _, lv in paths if lv is not None and
                  not any(lv is e for e in ended) and not is_placeholder(lv[k])]
        if not is_placeholder(start) or others:
            # (bound before the `try`: a value before the construct is not the fix. Seeds
            # 1012 / 1903 of graph_try,try_writes and 905 of the union set came here from
            # a construct refused inside the body: try_op.py now raises that refusal
            # first and `drop_foreign` puts such variables back; none known since)
            fix = f"give '{labels[k]}' a value before that loop or branch, or use another " \
                "name there" if is_placeholder(start) else "this is a limit of the " \
                "compiler (it lost track of the value that construct gives): restructure " \
                "the `try`, e.g. move the loop or branch out of it"
            raise ConversionRefusal(
                f"'{labels[k]}' is assigned in a loop or branch inside the `try` that does "
                "not carry it out (the value it holds after that loop or branch is not "
                f"known to the graph): {fix}.")
        for lv in ended:
            lv[k] = start


def state_at_errors(g_body: Graph, snaps: list, init: list, names, tree) -> list:
    """Per state leaf: its value at every point the body may raise, a `Replay` of it
    when the body computed it, or `Unknown`."""
    labels = leaf_names(names, tree, len(init))
    out = []
    for k, start in enumerate(init):
        values = [s[k] for s in snaps if k < len(s)]
        v = values[0] if values else start
        if any(w is not v for w in values):
            v = Unknown(labels[k])
        elif isinstance(v, Tensor) and within(v.graph, g_body):
            v = Replay(v) if _replayable(v, g_body) else Unknown(labels[k])
        out.append(v)
    return out


class Replay:
    """A value the body computed before every operation that may raise what a handler
    catches: the handler computes it again from the same inputs (the operations that
    give it are pure and succeeded in the body, so they give the same value; their
    floating-point warnings were shown there, so the copies are silenced)."""

    __slots__ = ("value",)

    def __init__(self, value: Tensor):
        self.value = value


def _replayable(v: Tensor, g_body: Graph) -> bool:
    """Whether `v` comes from outer values through pure operations of `g_body` only."""
    stack, seen = [v], set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.graph is not g_body:
            return False
        node = t.node
        if node is None:
            continue  # a capture of an outer value
        if node.op.stateful or node.op.effect or node.subgraphs():
            return False
        stack.extend(x for x in node.inputs if isinstance(x, Tensor))
    return True


def replay(v: Tensor, g_body: Graph) -> Tensor:
    """`v` computed again in the graph being traced (see `Replay`)."""
    outer = {id(inner): o for o, inner in g_body.captures.items()}
    memo: dict = {}

    def value(t):
        if not isinstance(t, Tensor):
            return t
        if t.node is None:
            return outer[id(t)]
        if id(t) not in memo:
            node = t.node
            # silenced: a warning it gave in the body is not given twice
            add_node(tracing.current_graph(), silenced_op(node.op),
                     [value(x) for x in node.inputs],
                     node.attrs, [(o.static_shape, o.dtype) for o in node.outputs])
            new = tracing.current_graph().nodes[-1]
            for o, n in zip(node.outputs, new.outputs):
                n.weak = o.weak
                memo[id(o)] = n
        return memo[id(t)]
    return value(v)


def within(g, outer: Graph) -> bool:
    while g is not None:
        if g is outer:
            return True
        g = g.parent
    return False


def leaf_names(names, tree, n) -> list:
    try:
        per = unflatten(tree, list(range(n)))
        labels = [""] * n
        for name, value in zip(names, per):
            for leaf in flatten(value)[0]:
                labels[leaf] = name
        return labels
    except Exception:  # noqa: BLE001 - names are for messages only
        return ["a variable"] * n
