"""Arrays a graph `try` writes into (`out[0] = v`, `a[i] += 1`): their value on each path.

An array is one identity in runtime/state/views.py (aliases and views of it see its
latest value). A `try` body and its handlers are traced in order, each after the
other, so the body's writes are allowed where they stand (`Graph.in_order`,
`views._in_order`), and this module sets the array's latest value on each path: in a
handler, the value the variable holding it had where the error was raised (the state
the handler starts from); after the node, the node's output. So a write made before the
error stays done, in the handler, after the `try` and in the caller's argument, as in
Python.

The array must be carried by one state variable that holds (a written version of) it
at every point: `Tracked.check` refuses a `try` whose body writes an array that no state
variable holds by its own name (a view, or an alias of it only), or whose variable is
rebound to another array on some path.
"""
from __future__ import annotations

from typing import Callable

from runtime.control_flow.try_state import ConversionRefusal, within
from runtime.core.structure import flatten
from runtime.core.graph import Graph
from runtime.core.tensor import Tensor
from runtime.state import views


class Tracked:
    """The arrays of a `try`'s state leaves, taken before its body is traced."""

    def __init__(self, init_leaves: list, labels: list):
        table = views._table(create=True)
        self.table, self.labels = table, labels
        self.roots: dict = {}  # id(root) -> (leaf index, root)
        self.before: dict = {}  # id(root) -> (root, latest, version): every array so far
        if table is None:
            return
        for k, leaf in enumerate(init_leaves):
            if type(leaf) is Tensor:
                a = views._array(table, leaf)
                if a.base is None:
                    self.roots.setdefault(id(a), (k, a))
        for _, arr in table.values():
            root = views._root(arr)
            self.before[id(root)] = (root, root.latest, root.version)

    def written(self, g_body) -> list:
        """(leaf index, root) of the arrays the body `g_body` wrote into; refuses an
        array from outside the body written but not held by a state variable."""
        if self.table is None:
            return []
        out, tracked = [], {}
        for _, (root, latest, version) in self.before.items():
            if root.latest is not latest or root.version != version:
                if id(root) not in self.roots:
                    _refuse(None)
                tracked[id(root)] = self.roots[id(root)]
        for t, arr in list(self.table.values()):
            if arr.base is None and id(arr) not in self.before and arr.latest is not t \
                    and isinstance(t.graph, Graph) and not within(t.graph, g_body):
                _refuse(None)  # (an outer array first written inside the body)
        out = sorted(tracked.values(), key=lambda p: p[0])
        return out

    def written_in(self, g, written: list) -> list:
        """The arrays of state variables the handler `g` wrote into that no path wrote
        before, added to `written` (and returned); refuses an outer array no state
        variable holds."""
        if self.table is None:
            return []
        known = {id(root) for _, root in written}
        new = []
        for k, root in self.roots.values():
            if id(root) not in known and _inside(root.latest, g):
                new.append((k, root))
        for t, arr in list(self.table.values()):
            root = views._root(arr)
            if id(root) not in self.roots and _inside(root.latest, g) and \
                    isinstance(t.graph, Graph) and not within(t.graph, g):
                _refuse(None)
        written.extend(new)
        return new

    def pass_through(self, written: list, paths: list, out: list) -> None:
        """An array variable no path writes or rebinds is the same array after the
        node: its output stands for that array (a later write through it reaches the
        array's other names and the caller; reading it reads the array)."""
        if self.table is None:
            return
        known = {id(root) for _, root in written}
        for k, root in self.roots.values():
            v = out[k]
            if id(root) in known or type(v) is not Tensor or \
                    views._lookup(self.table, v) is not None or \
                    not all(views._lookup(self.table, lv[k]) is root for lv in paths):
                continue
            views._register(self.table, v, root)  # (its value: the array's, unchanged)

    def check(self, written: list, leaves: list, where: str, g_body=None) -> None:
        """Each written array's variable holds a version of it in `leaves` (a value of
        a loop or branch inside `g_body` is the construct's own: a handler cannot read
        it, try_state.py)."""
        for k, root in written:
            v = leaves[k] if k < len(leaves) else None
            if type(v) is Tensor and g_body is not None and v.graph is not g_body and \
                    isinstance(v.graph, Graph) and within(v.graph, g_body):
                continue
            if type(v) is not Tensor or views._lookup(self.table, v) is not root:
                _refuse(self.labels[k] if k < len(self.labels) else None, where)

    def following(self, written: list, set_state: Callable) -> Callable:
        """`set_state` that also makes each written array hold its variable's new value
        (the state of the path traced next): a value known only once the handler reads
        it (try_marks.py) leaves the array unreadable until then."""
        def set_and_follow(state):
            set_state(state)
            leaves = flatten(state)[0]
            for k, root in written:
                v = leaves[k] if k < len(leaves) else None
                if type(v) is Tensor and views._lookup(self.table, v) in (None, root):
                    root.latest = v
                    views._register(self.table, v, root)
                    root.version += 1
                    if root.poison == _UNKNOWN:
                        root.poison = None
                elif root.poison is None:
                    root.poison = _UNKNOWN
        return set_and_follow


_UNKNOWN = ("This array is written inside a graph `try` whose handler cannot tell which "
            "value it held where the error was raised: read it through the variable the "
            "`try` assigns, or write it before the `try`.")


def _inside(t, g) -> bool:
    return isinstance(t, Tensor) and isinstance(t.graph, Graph) and within(t.graph, g)


def _refuse(label, where: str = "") -> None:
    name = f"'{label}'" if label else "an array"
    raise ConversionRefusal(
        f"its body writes into {name}{where} in a way the graph cannot carry to each "
        "path: write into an array through the variable that holds it (not a view or "
        "another name), and do not assign that variable another array inside the `try`.")
