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

Classes are containers of their data attributes (`type(self).total += n`, `M.rate = r`
in a branch), as the Python-state walk sees them (runtime/state/state_kinds.py): the
classes of the objects reached and the classes the block names as globals. So are the
functions of the program (`helper.calls += 1`) and the standard library's containers the
walk knows (`container_kind`: dict subclasses such as `Counter`, a `deque`, whose items
are carried, and a `set`, whose every change is one of structure).
"""
from __future__ import annotations

import types

import numpy as np

from autograph.errors import Diagnostic
from runtime.core.tracing import building as tracing_anywhere
from runtime.state.state_kinds import (
    class_items, container_kind, slot_items, slot_names, state_class, state_mro, user_attributes,
)

_LIMIT = 20000  # containers and elements walked per snapshot (beyond: not watched)
_OPAQUE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           type, np.ndarray, np.generic, str, bytes, int, float, complex, bool, type(None))
_SKIP_MODULES = ("runtime", "autograph", "numpy", "builtins")
# containers whose items are attributes
_ATTRIBUTES = ("object", "class", "slots", "function")
_SEQUENCES = ("list", "deque")


def _kind(x) -> str | None:
    t = type(x)
    if t is list:
        # (not the runtime's list of graphs being built, which converted functions hold
        # in a closure cell to read at each call: tracing a block changes it)
        return "list" if x is not tracing_anywhere else None
    kind = container_kind(x)
    if kind is not None:
        return kind
    if isinstance(x, type):
        return "class" if state_class(x) and state_mro(x) else None
    if isinstance(x, _OPAQUE) or t.__module__.split(".")[0] in _SKIP_MODULES:
        return None
    if not hasattr(x, "__dict__"):
        return "slots" if slot_names(t) else None
    return "object"


def _items(x, kind):
    if kind in _SEQUENCES:
        return list(x)
    if kind == "dict":
        return dict(x)
    if kind == "set":  # (its elements as keys: any change is one of structure)
        return dict.fromkeys(x, True)
    if kind == "function":
        return user_attributes(x)
    if kind == "slots":
        return dict(slot_items(x))
    return dict(class_items(x)) if kind == "class" else dict(vars(x))


def roots_of(*fns, values=(), outer: list | None = None) -> list:
    """What a block can reach: `values`, and the closure cells (and keyword defaults, which
    the running code binds a block's reads to: `converters/bound_reads.py`) of `fns` and
    of the functions found there (`add(x)` of a nested `add` that updates a container of
    the enclosing function). Not module globals: a global container outlives the trace, and
    updating it is a Python side effect that runs while tracing (the documented rule for
    `print` and for appending to an outer list), not a value to carry. `outer`: a list
    that gets the module-level lists and dicts the functions name, whose replaced items
    are carried (`GLOBAL[0] = v`) but whose changes of structure stay trace-time effects."""
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
        if outer is not None:
            names = getattr(fn, "__globals__", {})
            outer.extend(v for v in (names.get(n) for n in code.co_names)
                         if type(v) is list or _kind(v) in ("dict", "class", "deque", "set",
                                                            "function"))
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

    def __init__(self, roots, names=(), outer=()):
        self.saved: dict[int, tuple] = {}   # id -> (container, kind, items)
        self.outer: set = set()  # ids of containers reached only from `outer` (roots_of)
        # attributes the generated code carries itself (`self.count` in `names`)
        self.own = {n.rsplit(".", 1)[1] for n in names or () if "." in n}
        budget = _LIMIT
        for group, is_outer in ((roots, False), (outer, True)):
            stack = list(group)
            while stack and budget > 0:
                x = stack.pop()
                kind = _kind(x)
                if kind is None or id(x) in self.saved:
                    continue
                items = _items(x, kind)
                self.saved[id(x)] = (x, kind, items)
                if is_outer:
                    self.outer.add(id(x))
                values = items if kind in _SEQUENCES else list(items.values())
                budget -= 1 + len(values)
                stack.extend(values)
                if kind == "object":  # the data its classes hold (`type(self).n`)
                    stack.extend(state_mro(type(x)))
                elif kind == "class":
                    stack.extend(state_mro(x)[1:])

    def rebase(self) -> None:
        """Compare later changes with the items the containers hold now (a branch's
        placeholders put into them: `share`); `restore` still puts the saved ones back."""
        self.base = {k: _items(x, kind) for k, (x, kind, _) in self.saved.items()}

    def __bool__(self) -> bool:
        return bool(self.saved)

    def changes(self, whole: bool = False) -> tuple[list, list]:
        """(replaced locations `(container, key)`, descriptions of structural changes).
        `whole`: a list or dict whose structure changed is the location `(it, WHOLE)`
        (its items as one value), not a structural change."""
        replaced, structural = [], []
        base = getattr(self, "base", None)
        for key, (x, kind, items) in self.saved.items():
            if base is not None:
                items = base[key]
            now = _items(x, kind)
            if key in self.outer and _reshaped(kind, items, now):
                continue  # (a trace-time effect on module state, as outside the `if`)
            if kind in _ATTRIBUTES and self.own:
                items = {k: v for k, v in items.items() if k not in self.own}
                now = {k: v for k, v in now.items() if k not in self.own}
            if whole and (type(x) is list and len(now) != len(items) or
                          type(x) is dict and now.keys() != items.keys()):
                replaced.append((x, WHOLE))
                continue
            if kind in _SEQUENCES:
                if len(now) != len(items):
                    structural.append(f"a {kind} changes length ({len(items)} -> {len(now)} "
                                      "items: append / pop / insert / del)")
                    continue
                replaced += [(x, k) for k, (a, b) in enumerate(zip(items, now)) if a is not b]
                continue
            if list(now) != list(items):
                added = [k for k in now if k not in items]
                gone = [k for k in items if k not in now]
                what = f"a {type(x).__name__}" if kind in ("dict", "set") else \
                    f"the class {x.__name__}" if kind == "class" else \
                    f"the function {x.__name__}" if kind == "function" else \
                    f"a {type(x).__name__} object"  # (or its slots)
                structural.append(f"{what} gains {added!r} / loses {gone!r}"
                                  if kind in ("dict", "set") else
                                  f"{what} gains attributes {added} / loses {gone}")
                continue
            replaced += [(x, k) for k in items if items[k] is not now[k]]
        return replaced, structural

    def restore(self) -> None:
        for key, (x, kind, items) in self.saved.items():
            if key in self.outer and _reshaped(kind, items, _items(x, kind)):
                continue
            if kind in _SEQUENCES:
                x.clear()
                x.extend(items)
            elif kind == "dict":
                x.clear()
                for k, v in items.items():  # (item by item: a Counter's update adds)
                    x[k] = v
            elif kind == "set":
                x.clear()
                x.update(items)
            elif kind in ("class", "slots", "function"):
                _restore_attributes(x, kind, items)
            else:
                d = vars(x)
                d.clear()
                d.update(items)


def _restore_attributes(x, kind: str, items: dict) -> None:
    now = _items(x, kind)
    for k in [k for k in now if k not in items]:
        delattr(x, k)
    for k, v in items.items():
        if now.get(k, _MISSING) is not v:
            setattr(x, k, v)


_MISSING = object()


def _reshaped(kind: str, before, now) -> bool:
    return len(before) != len(now) if kind == "list" else before.keys() != now.keys()


def share(orig, new, snapshot: Snapshot):
    """`orig` holding the leaves of `new` (a copy of its structure, as runtime.cond hands
    a branch its state): written into `orig`'s lists and dicts in place - only into
    those `snapshot` puts back as they were afterwards."""
    t = type(orig)
    if t is not type(new) or id(orig) not in snapshot.saved:
        return new
    if t is list and len(orig) == len(new):
        for i, v in enumerate(new):
            v = share(orig[i], v, snapshot)
            if v is not orig[i]:
                orig[i] = v
        return orig
    if t is dict and orig.keys() == new.keys():
        for k, v in new.items():
            v = share(orig[k], v, snapshot)
            if v is not orig[k]:
                orig[k] = v
        return orig
    return new


def holds_container(x) -> bool:
    """Whether `x` is a list or dict, or a tuple holding one."""
    t = type(x)
    return t is list or t is dict or (t is tuple and any(holds_container(v) for v in x))


def detached(x):
    """`x` with a copy of every list / dict (and tuple holding one) in it, so that putting
    the containers back as they were (`Snapshot.restore`) leaves its items alone."""
    t = type(x)
    if t is list:
        return [detached(v) for v in x]
    if t is dict:
        return {k: detached(v) for k, v in x.items()}
    if t is tuple and holds_container(x):
        return tuple(detached(v) for v in x)
    return x


WHOLE = object()  # the key of a location that is a whole list or dict (`Snapshot.changes`)


def get(location):
    x, key = location
    if key is WHOLE:
        return detached(x)
    return getattr(x, key) if _kind(x) in _ATTRIBUTES else x[key]


def put(location, value) -> None:
    x, key = location
    if key is WHOLE:
        if type(x) is list:
            x[:] = value
        else:
            x.clear()
            x.update(value)
    elif _kind(x) in _ATTRIBUTES:
        setattr(x, key, value)
    else:
        x[key] = value


def describe(location) -> str:
    x, key = location
    if key is WHOLE:
        return f"the items of a {type(x).__name__}"
    if _kind(x) in ("class", "function"):
        return f"{x.__name__}.{key}"
    if _kind(x) in _ATTRIBUTES:
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


def check_same_structure(locations: list, first: list, second: list, where: str,
                         what: str) -> None:
    """The whole lists / dicts among `locations` (values `first` after one path, `second`
    after the other) must have one structure after both: the graph holds one."""
    for (x, key), a, b in zip(locations, first, second):
        if key is WHOLE and (len(a) != len(b) if type(x) is list else a.keys() != b.keys()):
            size = (lambda v: f"{len(v)} items") if type(x) is list else \
                (lambda v: f"keys {list(v)}")
            raise Diagnostic(
                f"{where}: this {what} depends on a symbolic value, so its two paths are "
                f"traced into one graph - but they leave a Python {type(x).__name__} with a "
                f"different structure ({size(a)} after the true branch, {size(b)} after "
                f"the false branch): which one Python gives is known only when the graph "
                f"runs. Make the same change on both paths (append / add the key in the "
                f"other branch too), build the values as arrays (np.where), or use a "
                f"Python condition.")


def new_locations(found: list, carried: list) -> list:
    """The replaced locations not carried yet."""
    known = {(id(x), k) for x, k in carried}
    return [(x, k) for x, k in found if (id(x), k) not in known]
