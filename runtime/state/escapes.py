"""The escape check: when a trace ends, no symbolic value of it is left in Python state.

A traced function that stores a value it computed in Python state it reaches
(`self.cache["v"] = v`, `G.append(y)`, `node.value = x * 2`) would leave a dead
symbolic Tensor there: later calls run the cached graph, which never stores it again,
so the object keeps a Tensor (or, read back by the next call's trace, a stale value).
Instead of that silent difference, the trace fails with an error naming the place,
the line that computed the value, and what to write instead.

What is searched: the bound object of a method (`self`), the arguments as the caller
passed them, the function's closure cells and the globals its code names, and what is
reachable from them through dicts, lists, tuples, sets and object attributes (up to
`_BUDGET` objects, so a huge object graph costs a bounded time once per trace, never per
call). The arguments are searched as the caller passed them: a list or dict argument the
function changes is traced as a copy, whose new contents the executor writes back into
the caller's after every call. Objects of this package (Functions, Variables, graphs)
are not looked into. Globals and closures of the functions it calls are not searched
(a limit: they are not known without running them).

    before: F(p, g) -> traced; self.cache["v"] holds Tensor(v4) ever after
    after:  ValueError: update: after tracing, self.cache['v'] holds a symbolic value ...
"""
from __future__ import annotations

import collections
import types
from typing import Any, Iterator

import numpy as np

from runtime.core.tensor import Tensor, _fmt_shape
from runtime.state.state_kinds import module_with_state, user_attributes
from runtime.state.state_walk import COMPILER_PREFIX, as_function, code_functions

_BUDGET = 20_000          # objects visited per trace at most
_SHOWN = 3                # places named in one error
_OPAQUE = (str, bytes, bytearray, int, float, complex, bool, type(None), np.ndarray,
           np.generic, type, types.BuiltinFunctionType, types.MethodType, types.CodeType,
           range, slice)
_OWN_PACKAGES = ("runtime.", "autograph.")


def roots_of(fn, params: list, args: list) -> list:
    """(name, object) pairs a call of `fn` with `args` reaches directly."""
    out = []
    fn = as_function(fn)
    if isinstance(fn, types.MethodType):
        out.append(("self", fn.__self__))
        fn = fn.__func__
    out += [(name, a) for name, a in zip(params, args)]
    for f in code_functions(fn):
        code = f.__code__
        for name, cell in zip(code.co_freevars, f.__closure__ or ()):
            if name.startswith(COMPILER_PREFIX):
                continue
            try:
                out.append((name, cell.cell_contents))
            except ValueError:  # an empty cell: the name is not bound yet
                pass
        scope = getattr(f, "__globals__", {})
        for name in sorted(_names(code)):
            if name in scope:
                out.append((name, scope[name]))
    return out


def _names(code) -> set:
    """Global names the code (and the code nested in it) reads or writes."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def _own(obj) -> bool:
    """An object of this package, not searched - but the attributes the program set on an
    `ag.function` object (`f.last = y` inside `f`) are (`user_attributes`)."""
    return type(obj).__module__.startswith(_OWN_PACKAGES) and \
        getattr(type(obj), "__ag_own_attributes__", None) is None


def _children(obj) -> Iterator[tuple[str, Any]]:
    """(path suffix, child) for what `obj` holds: a function's and a program module's
    attributes too (`f.last = y`, `config.last = y`), not a library module's."""
    t = type(obj)
    own = getattr(t, "__ag_own_attributes__", None)
    if own is not None:
        for k, v in user_attributes(obj).items():
            yield f".{k}", v
    elif t is types.ModuleType:
        if module_with_state(obj):
            for k, v in list(vars(obj).items()):
                if not isinstance(v, types.ModuleType) and not k.startswith("__"):
                    yield f".{k}", v
    elif t is dict or isinstance(obj, dict):
        for k, v in list(obj.items()):
            yield f"[{k!r}]", v
            if isinstance(k, Tensor):
                yield f" key {k!r}", k
    elif isinstance(obj, (list, tuple, collections.deque)):
        for i, v in enumerate(list(obj)):
            yield f"[{i}]", v
    elif isinstance(obj, (set, frozenset)):
        for v in list(obj):
            yield " (an element)", v
    else:
        attrs = getattr(obj, "__dict__", None)
        if isinstance(attrs, dict):
            for k, v in list(attrs.items()):
                yield f".{k}", v
        for cls in t.__mro__:
            for k in getattr(cls, "__slots__", ()):
                if isinstance(k, str) and k not in ("__dict__", "__weakref__"):
                    try:
                        yield f".{k}", object.__getattribute__(obj, k)
                    except AttributeError:
                        pass


def _of_trace(t: Tensor, graph) -> bool:
    g = t.graph
    while g is not None and g is not graph:
        g = g.parent
    return g is graph


def escaped(graph, roots: list) -> list:
    """(path, Tensor) for each symbolic value of `graph` reachable from `roots`."""
    found, seen, budget = [], set(), [_BUDGET]
    stack = [(name, obj) for name, obj in reversed(roots)]
    while stack and budget[0] > 0:
        path, obj = stack.pop()
        if isinstance(obj, Tensor):
            if _of_trace(obj, graph):
                found.append((path, obj))
            continue
        if isinstance(obj, _OPAQUE) or id(obj) in seen or _own(obj):
            continue
        seen.add(id(obj))
        budget[0] -= 1
        try:
            children = list(_children(obj))
        except Exception:  # a user object whose attributes cannot be listed: not searched
            continue
        stack.extend((path + suffix, child) for suffix, child in reversed(children))
    return found


def function_attributes(roots: list) -> list:
    """(name, object, its attributes) of each `ag.function` object among `roots`: the
    attributes the program set on it, which are not state calls write back."""
    return [(name, obj, user_attributes(obj)) for name, obj in roots
            if getattr(type(obj), "__ag_own_attributes__", None) is not None]


def attributes_set(before: list) -> list[str]:
    """The attributes of those objects that a trace set or deleted (put back as they were)."""
    out = []
    for name, obj, was in before:
        now = user_attributes(obj)
        for k in sorted(now.keys() | was.keys()):
            if now.get(k, _MISSING) is not was.get(k, _MISSING):
                out.append(f"{name}.{k}")
                if k in was:
                    setattr(obj, k, was[k])
                else:
                    delattr(obj, k)
    return out


_MISSING = object()


def attributes_set_error(name: str, places: list[str]) -> ValueError:
    return ValueError(
        f"{name}: while tracing, it set {', '.join(places)}: an attribute of an "
        "ag.function object. Such attributes are not Python state that every call "
        "writes back, so later calls, which run the graph, would not set it again. Keep "
        "the value on an object of yours, in a module global or on a plain Python "
        "function (each is written back after every call), or return it.")


def escape_error(name: str, found: list) -> ValueError:
    places = []
    for path, t in found[:_SHOWN]:
        origin = t.node.origin if t.node is not None else None
        where = f", computed at {origin}" if origin is not None else ""
        places.append(f"  {path}: {t.dtype}{_fmt_shape(t.static_shape)}{where}")
    more = f"\n  ... and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    return ValueError(
        f"{name}: after tracing, Python state holds symbolic values of the trace:\n"
        + "\n".join(places) + more + "\n"
        "The function stored values it computed in objects, containers or globals that "
        "outlive the call. The cached graph does not store them again on later calls, so "
        "those places would keep dead symbolic values (or stale ones) from now on. Return "
        "the values from the function and store them outside it, or keep the state in an "
        "ag.Variable created outside the function and update it with .assign(...).")
