"""Python containers mutated in place under symbolic control flow.

A branch of a symbolic `if` and the body of a symbolic loop run once, while tracing,
whatever the condition: an in-place mutation of a Python list, dict or object they
reach (`d["a"]["b"] = 1`, `acc["s"] += v` in a nested function, `obj.total = ...` in
a method) would be applied unconditionally, or only once. So before tracing such a
block, `Snapshot` records the containers reachable from its state and its closure (not
module globals: see `roots_of`); after each trace it lists what changed and puts
everything back:

- an element or attribute *replaced* (the container keeps its structure) is a location
  the block carries like a variable: an extra branch output or loop variable, stored
  into the container after the `if` / the loop;
- a change of *structure* (append, pop, new key, del) cannot be carried by a graph of
  fixed structure: a clear error at the user's line says what to do instead.
"""
from __future__ import annotations

import types

import numpy as np

from autograph.errors import Diagnostic
from runtime.core.tracing import building as tracing_anywhere

_LIMIT = 20000  # containers and elements walked per snapshot (beyond: not watched)
_OPAQUE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           type, np.ndarray, np.generic, str, bytes, int, float, complex, bool, type(None))
_SKIP_MODULES = ("runtime", "autograph", "numpy", "builtins")


def _kind(x) -> str | None:
    t = type(x)
    if t is list:
        # (not the runtime's list of graphs being built, which converted functions hold
        # in a closure cell to read at each call: tracing a block changes it)
        return "list" if x is not tracing_anywhere else None
    if t is dict:
        return "dict"
    if isinstance(x, _OPAQUE) or not hasattr(x, "__dict__") or \
            t.__module__.split(".")[0] in _SKIP_MODULES:
        return None
    return "object"


def _items(x, kind):
    if kind == "list":
        return list(x)
    if kind == "dict":
        return dict(x)
    return dict(vars(x))


def roots_of(*fns, values=()) -> list:
    """What a block can reach: `values`, and the closure cells (and keyword defaults, which
    the running code binds a block's reads to: `converters/bound_reads.py`) of `fns` and
    of the functions found there (`add(x)` of a nested `add` that updates a container of
    the enclosing function). Not module globals: a global container outlives the trace, and
    updating it is a Python side effect that runs while tracing (the documented rule for
    `print` and for appending to an outer list), not a value to carry."""
    out = list(values)
    seen: set = set()
    todo = [f for f in fns if f is not None]
    while todo and len(seen) < 200:
        fn = todo.pop()
        fn = getattr(fn, "__func__", fn)  # a bound method: its function (and `self`)
        code = getattr(fn, "__code__", None)
        if code is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        found = []
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                found.append(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
        found.extend((getattr(fn, "__kwdefaults__", None) or {}).values())
        out.extend(found)
        todo.extend(f for f in found if isinstance(f, (types.FunctionType, types.MethodType)))
    return out


class Snapshot:
    """The contents of every container reachable from `roots`, to compare and restore."""

    def __init__(self, roots, names=()):
        self.saved: dict[int, tuple] = {}   # id -> (container, kind, items)
        # attributes the generated code carries itself (`self.count` in `names`)
        self.own = {n.rsplit(".", 1)[1] for n in names or () if "." in n}
        budget = _LIMIT
        stack = list(roots)
        while stack and budget > 0:
            x = stack.pop()
            kind = _kind(x)
            if kind is None or id(x) in self.saved:
                continue
            items = _items(x, kind)
            self.saved[id(x)] = (x, kind, items)
            values = items if kind == "list" else list(items.values())
            budget -= 1 + len(values)
            stack.extend(values)

    def __bool__(self) -> bool:
        return bool(self.saved)

    def changes(self) -> tuple[list, list]:
        """(replaced locations `(container, key)`, descriptions of structural changes)."""
        replaced, structural = [], []
        for x, kind, items in self.saved.values():
            now = _items(x, kind)
            if kind == "object" and self.own:
                items = {k: v for k, v in items.items() if k not in self.own}
                now = {k: v for k, v in now.items() if k not in self.own}
            if kind == "list":
                if len(now) != len(items):
                    structural.append(f"a list changes length ({len(items)} -> {len(now)} "
                                      "items: append / pop / insert / del)")
                    continue
                replaced += [(x, k) for k, (a, b) in enumerate(zip(items, now)) if a is not b]
                continue
            if list(now) != list(items):
                added = [k for k in now if k not in items]
                gone = [k for k in items if k not in now]
                what = "a dict" if kind == "dict" else f"a {type(x).__name__} object"
                structural.append(f"{what} gains {added!r} / loses {gone!r}" if kind == "dict"
                                  else f"{what} gains attributes {added} / loses {gone}")
                continue
            replaced += [(x, k) for k in items if items[k] is not now[k]]
        return replaced, structural

    def restore(self) -> None:
        for x, kind, items in self.saved.values():
            if kind == "list":
                x[:] = items
            elif kind == "dict":
                x.clear()
                x.update(items)
            else:
                d = vars(x)
                d.clear()
                d.update(items)


def get(location):
    x, key = location
    return getattr(x, key) if _kind(x) == "object" else x[key]


def put(location, value) -> None:
    x, key = location
    if _kind(x) == "object":
        setattr(x, key, value)
    else:
        x[key] = value


def describe(location) -> str:
    x, key = location
    if _kind(x) == "object":
        return f"<{type(x).__name__} object>.{key}"
    return f"<{type(x).__name__}>[{key!r}]"


def check_structure(structural: list, where: str, what: str) -> None:
    if structural:
        raise Diagnostic(
            f"{where}: this {what} depends on a symbolic value, so its body is traced once "
            f"whatever happens at run time - but it changes the structure of a Python "
            f"container it does not own as a variable: {structural[0]}. Python would apply "
            f"that only when (or as often as) the code runs. Build the values as arrays "
            f"(np.where / a loop variable), keep the container's structure fixed and only "
            f"replace its items, or use a Python condition.")


def new_locations(found: list, carried: list) -> list:
    """The replaced locations not carried yet."""
    known = {(id(x), k) for x, k in carried}
    return [(x, k) for x, k in found if (id(x), k) not in known]
