"""What a graph `try`'s body records of the state at each operation that may raise.

`Snapshots` is the body's node list (try_op.py traces the body with it): each time an
operation is recorded it reads the variables of the `try`, so that a handler can be
given what they held where the error was raised (try_state.py's `state_at_errors`,
try_marks.py). A `cond` or a nested `try` node counts as the operations inside it:

    try:
        try:
            y = 1.0
            z = xs[k]          # raises IndexError: the outer handler sees y == 1.0 ...
            y = 2.0 + z
        except FloatingPointError:
            y = 5.0            # ... not what the nested node's paths give once finished
    except IndexError:
        use(y)
"""
from __future__ import annotations

from typing import Callable

from runtime.control_flow.cond import COND
from runtime.control_flow.try_state import ConversionRefusal, leaves_as
from runtime.core.graph import Graph
from runtime.ops.constant import CONSTANT

# what a node is to the recorder: one lookup by its op's name (the `try` record lives in
# try_op.py, which imports this module)
_ROLE = {COND.name: "cond", "try": "try", CONSTANT.name: "constant"}


class Snapshots(list):
    """A body's node list that reads the state each time an operation is recorded.

    The subgraphs made inside the body (branches, loop bodies) get one too. The state
    read when a `cond` node is recorded is not the one its operations see (tracing the
    branches rebinds the variables to the branches' values): the node instead counts as
    the operations of its branches, each with the state read when it was recorded,
    carried out to this graph's values through the branch's inputs (a value only the
    branch knows stays as it is, and is `Unknown` to a handler). A `try` node of a `try`
    nested in the body (and the inner `try` a `finally` wraps around the handlers) counts
    so too, as the operations of its body and handlers: its outputs are what its paths
    give once it finished, not what the variables held where one of its operations
    raised. `outer`: the recorders of the `try` bodies around this one (each reads its
    own variables at the same points)."""

    def __init__(self, get_state: Callable, trees: list, names, outer=()):
        super().__init__()
        self.get_state, self.seen = get_state, []
        self.own: dict = {}  # id(node) -> the state in the values of the node's own graph
        self.trees, self.names, self.refusal = trees, names, None
        self.outer = list(outer)

    def child(self) -> "Snapshots":
        out = Snapshots(self.get_state, self.trees, self.names, [o.child() for o in self.outer])
        out.outer_only = self.outer_only
        return out

    def leaves(self) -> list:
        try:
            return leaves_as(self.get_state(), self.trees, self.names)
        except ConversionRefusal as e:  # (raised after the body, not into the user's code)
            self.refusal = self.refusal or e
            return []

    def append(self, node):
        for recorder in [self] + self.outer:
            recorder.watch(node)
        for g in node.subgraphs():  # (done: a plain list again)
            if isinstance(g.nodes, Snapshots):
                self.refusal = self.refusal or g.nodes.refusal
                g.nodes = list(g.nodes)
        super().append(node)

    def watch(self, node) -> None:
        """Record the state at `node` (at the operations inside it for a `cond` or `try`)."""
        subs = node.subgraphs()
        role = _ROLE.get(node.op.name)
        mine = [self._recorder_in(g) for g in subs] if role in ("cond", "try") else [None]
        # (a watching recorder that met a refusal: the node counts as one operation)
        if subs and all(m is not None and not (m.outer_only and m.refusal) for m in mine):
            self.seen.extend(_carried_out(node, subs, mine))
            for m in mine:
                self.own.update(m.own)
        elif role != "constant":  # (a constant cannot fail)
            leaves = self.own[id(node)] = self.leaves()
            self.seen.append((node, leaves))

    outer_only = False  # a recorder that only watches (not a graph's node list)

    def _recorder_in(self, g: Graph) -> "Snapshots | None":
        """The recorder of subgraph `g` that reads this recorder's variables, or None."""
        nodes = getattr(g, "recorder", None)
        nodes = g.nodes if nodes is None else nodes
        if not isinstance(nodes, Snapshots):
            return None
        if nodes.get_state is self.get_state:
            return nodes
        return next((o for o in nodes.outer if o.get_state is self.get_state), None)


def recorders_around(parent: Graph) -> list:
    """New recorders, for a `try` body traced in `parent`, of the `try` bodies around it."""
    nodes = parent.nodes
    if not isinstance(nodes, Snapshots):
        return []
    out = []
    for r in [nodes] + nodes.outer:
        watcher = Snapshots(r.get_state, r.trees, r.names)
        watcher.outer_only = True
        out.append(watcher)
    return out


def refusals(g: Graph):
    """The first refusal a snapshot of `g` or of its subgraphs met (see `leaves_as`)."""
    stack = [g]
    while stack:
        sub = stack.pop()
        if isinstance(sub.nodes, Snapshots) and sub.nodes.refusal is not None:
            return sub.nodes.refusal
        for node in sub.nodes:
            stack.extend(node.subgraphs())
    return None


def _carried_out(node, subs: list, recorders: list) -> list:
    """The snapshots of a `cond`'s or `try`'s subgraphs (`recorders`: theirs), in the
    values of the node's graph (a `cond`'s input 0 is its condition; a `try` passes its
    captures only)."""
    out = []
    role = _ROLE.get(node.op.name)
    args = node.inputs[1:] if role == "cond" else node.inputs
    for i, (g, recorder) in enumerate(zip(subs, recorders)):
        if i == 0 and role == "try" and _catches_all(node):
            continue  # (an error of its body reaches the node's graph through a handler)
        outer = {id(ph): x for ph, x in zip(g.inputs, args)}
        for inner, leaves in recorder.seen:
            out.append((inner, [outer.get(id(v), v) for v in leaves]))
    return out


def _catches_all(node) -> bool:
    """Whether a handler of the `try` node catches every error an operation raises."""
    return any(not kinds or any(k in (BaseException, Exception) for k in kinds)
               for kinds in (node.attrs[f"kinds_{i}"] for i in range(node.attrs["n_handlers"])))
