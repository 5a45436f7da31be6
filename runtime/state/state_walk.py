"""What a traced function's Python state is: its roots (`state_roots`: the object of a
bound method, object arguments, closure cells, the globals its code names) and a walk
of everything reachable from them (`StateWalk`), made before each trace.

The walk records, for `python_state.StatePlan`, each fact a trace may depend on as a
guard term (a Python expression over the roots: `type(_s) is Model and
_s.__dict__.keys() == {...}`, `_g['W'] is <array>`), each container with its contents
(to undo the trace's writes and to find them), and each leaf place (a number, a string,
an array) that a later trace may read as an input.

    roots:  self -> _s, a global W -> _g['W'], a closure cell -> _c0.cell_contents
    places: _s.__dict__['cache']['v'] (an array), _s.__dict__['lr'] (a float)

Classes defined in Python hold state too (`Model.lr` read through `self.lr`, a counter
`Counter.total += 1`): a class reached as a root, and each class in the MRO of an object
walked, is a container of its own data attributes (`_k3.lr`), guarded, undone and
written back like an object's `__dict__`; its methods and descriptors are not state.
"""
from __future__ import annotations

import collections
import math
import types

import numpy as np

from runtime.core.tensor import StateHandle, Tensor
from runtime.state.state_kinds import (
    _BY_VALUE, _DICTS, _own, class_items, contents_of, function_with_state, module_with_state,
    slot_items, slot_names, state_mro,
)

BUDGET = 2_000           # objects guarded per trace at most
_SMALL = 1_024            # arrays up to this many bytes are guarded by contents too
_SCALARS = (int, float, bool, str, bytes, complex, type(None))
# functions, classes and NumPy's own functions (their dispatchers carry a __dict__ of
# names and docs that no trace depends on): guarded by identity at the top only
_OPAQUE_TOP = (types.FunctionType, types.BuiltinFunctionType, type, type(np.sum), np.ufunc)
# names the compiler introduces (`ag__`, the tracing cell `ag__tracing`, call-site
# caches): what they hold is this package's own state, never the program's - the
# runtime's list of graphs being built written back after each call would make every
# later call look as if it ran while tracing
COMPILER_PREFIX = "ag__"
_CALLABLES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type)
_PLAIN_ARGS = (np.ndarray, np.generic, list, dict, tuple, str, bytes, int, float, bool,
               complex, type(None), Tensor, StateHandle)


def _literal(key) -> bool:
    """Whether `repr(key)` evaluates back to an equal key of the same type."""
    if type(key) in (str, int, bool, type(None)):
        return True
    return type(key) is tuple and all(_literal(k) for k in key)


def code_names(fn) -> frozenset:
    """Every name the code of `fn` (and of what it wraps) spells: globals and attributes."""
    names: set = set()
    for f in code_functions(as_function(fn) if not isinstance(fn, types.MethodType) else
                            fn.__func__):
        names |= _global_names(f.__code__)
    return frozenset(names)


def state_roots(fn, params: list, args) -> tuple[list, dict]:
    """(label, expression, object) for each root a call reaches, and the names the
    expressions use: `args` (the call's arguments, one per parameter), `_s` (the object
    of a bound method), `_cN` (closure cells) and `_g` (the function's globals)."""
    roots, env = [], {}
    fn = as_function(fn)
    if isinstance(fn, types.MethodType):
        env["_s"] = fn.__self__
        roots.append(("self", "_s", fn.__self__))
        fn = fn.__func__
    for i, (name, a) in enumerate(zip(params, args)):
        if not isinstance(a, _PLAIN_ARGS + _CALLABLES) and not _own(a):
            roots.append((name, f"args[{i}]", a))
    seen: set = set()  # objects already reached: a wrapped function adds only new ones
    for k, f in enumerate(code_functions(fn)):
        code, tag = f.__code__, "" if k == 0 else f"w{k}"
        for n, (name, cell) in enumerate(zip(code.co_freevars, f.__closure__ or ())):
            try:
                value = cell.cell_contents
            except ValueError:  # not bound yet
                continue
            if name.startswith(COMPILER_PREFIX) or k and id(value) in seen or \
                    isinstance(value, types.ModuleType) and not module_with_state(value) \
                    or _own(value):
                continue
            seen.add(id(value))
            env[f"_c{tag}{n}"] = cell
            roots.append((name, f"_c{tag}{n}.cell_contents", value))
        scope = getattr(f, "__globals__", None)
        if scope is not None:
            env[f"_g{tag}"] = scope
            for name in sorted(_global_names(code)):
                if name in scope and not name.startswith(COMPILER_PREFIX):
                    value = scope[name]
                    if (not isinstance(value, types.ModuleType) or module_with_state(value)) \
                            and not _own(value) and not (k and id(value) in seen):
                        seen.add(id(value))
                        roots.append((name, f"_g{tag}[{name!r}]", value))
    return roots, env


def as_function(fn):
    """`fn`, or for a callable object (a model whose `__call__` is Python code) its
    `__call__` bound to it: the object is then `self`, state like a method's."""
    if isinstance(fn, (types.FunctionType, types.MethodType)):
        return fn
    call = next((vars(c)["__call__"] for c in type(fn).__mro__ if "__call__" in vars(c)),
                None)
    return types.MethodType(call, fn) if isinstance(call, types.FunctionType) else fn


def code_functions(fn) -> list:
    """The Python functions whose closure cells and globals a call of `fn` reaches: fn
    and what its `__wrapped__` names (the original of a converted function, the function
    a `functools.wraps` wrapper calls - the wrapper's own globals matter too), those with
    code only."""
    out = []
    for f in (fn, getattr(fn, "__wrapped__", None)):
        if getattr(f, "__code__", None) is not None and all(f is not g for g in out):
            out.append(f)
    return out


def _global_names(code) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return names


class StateWalk:
    """Everything reachable from the roots, before the trace: guard facts, containers
    (with their contents, to undo and to diff) and the leaf places.

    Each node reached gets a local name (`v3`) bound from its parent's (`v3 =
    v1['cache']`); `lines` interleaves those bindings with the checks on them, in walk
    order, so the compiled guard reads each place once. `terms` holds the same checks
    as whole expressions over the roots, to name what changed when a guard fails."""

    def __init__(self, roots: list, env: dict, names: set | None = None,
                 keep: frozenset = frozenset(), static_names: frozenset = frozenset()):
        self.env = dict(env)
        # the names the traced code spells: which globals of a module are walked when
        # `names` is None (a module is never walked whole)
        self.static_names = static_names
        # attribute names the trace's code can have read (read_names.py); None: any.
        # The places in `keep` (read as inputs) are walked whatever their names.
        self.names, self.keep = names, keep
        self.terms: list[tuple[str, str, str]] = []   # (label, expression, term)
        self.lines: list[tuple[str, str, str]] = []   # (node expr, "bind"/"check", code)
        self.local_of: dict[str, str] = {}   # node expression -> its local name
        self.containers: list = []   # (label, expr, kind, obj, contents before)
        self.places: dict[str, tuple] = {}  # expr -> (label, value) of every leaf place
        self.roots: list = []        # (label, expr, value) of each root
        self.known: dict[int, str] = {}  # id(container) -> its expression
        self.list_places: dict[str, list] = {}  # expr -> the list there
        self.truncated = False
        budget = [BUDGET]
        for label, expr, obj in roots:
            self.roots.append((label, expr, obj))
            self._visit(label, expr, self._bind(expr, expr), obj, budget, top=True)

    def const(self, value) -> str:
        name = f"_k{len(self.env)}"
        self.env[name] = value
        return name

    def _bind(self, expr: str, code: str) -> str:
        local = self.local_of[expr] = f"v{len(self.local_of)}"
        self.lines.append((expr, "bind", f"{local} = {code}"))
        return local

    def _check(self, label: str, expr: str, local: str, term: str, whole: str = "") -> None:
        """`term` with `{e}` for the value: checked on the local, named on the expression
        (`whole`, when the check on the whole expression differs)."""
        self.lines.append((expr, "check", term.format(e=local)))
        self.terms.append((label, expr, (whole or term).format(e=expr)))

    def _visit(self, label, expr, local, obj, budget, top=False) -> None:
        t = type(obj)
        if isinstance(obj, (Tensor, StateHandle)) or _own(obj):
            return
        if t in _SCALARS or isinstance(obj, np.generic):
            self.places[expr] = (label, obj)
            if obj is None or t is bool:  # singletons: identity is type and value
                self._check(label, expr, local, f"{{e}} is {obj!r}")
                return
            self._check(label, expr, local, f"type({{e}}) is {self.const(t)} and "
                        + _same_value(obj, self.const))
            return
        if t is np.ndarray:
            self.places[expr] = (label, obj)
            term = f"{{e}} is {self.const(obj)}"
            if obj.nbytes <= _SMALL and obj.flags.writeable and not obj.dtype.hasobject:
                term += f" and {{e}}.tobytes() == {self.const(obj.tobytes())}"
            self._check(label, expr, local, term)
            return
        if isinstance(obj, (range, slice)):
            self._check(label, expr, local, f"type({{e}}) is {self.const(t)} and "
                        f"{{e}} == {self.const(obj)}")
            return
        if isinstance(obj, types.MethodType):  # a bound method kept in state: its
            # function, and the object it is bound to (whose state the method reads)
            self._check(label, expr, local, f"type({{e}}) is {self.const(t)} and "
                        f"{{e}}.__func__ is {self.const(obj.__func__)}")
            self._visit(f"{label}.__self__", f"{expr}.__self__",
                        self._bind(f"{expr}.__self__", f"{local}.__self__"), obj.__self__,
                        budget)
            return
        if t in _BY_VALUE:
            self._check(label, expr, local, f"type({{e}}) is {self.const(t)} and "
                        f"{{e}} == {self.const(bytes(obj) if t is bytearray else obj)}")
            return
        if isinstance(obj, types.ModuleType) and module_with_state(obj):
            self._check(label, expr, local, f"{{e}} is {self.const(obj)}")
            self._visit_module(label, expr, local, obj, budget)
            return
        if isinstance(obj, (types.ModuleType, types.CodeType)) or (
                isinstance(obj, _OPAQUE_TOP) and not (isinstance(obj, type) and state_mro(obj))):
            # a function, class or module anywhere in state is that one (calling
            # `self.act(x)` traced the function `self.act` was); a function of the
            # program also holds its attributes (`f.calls += 1`), walked as an object's
            self._check(label, expr, local, f"{{e}} is {self.const(obj)}")
            if function_with_state(obj):
                self._visit_function(label, expr, local, obj, budget)
            return
        if id(obj) in self.known:
            # reached before by another path: this path must still lead to it (an
            # attribute rebound to another dict would otherwise go unseen)
            first = self.known[id(obj)]
            other = self.local_of.get(first)
            if other is not None and other != local:
                self._check(label, expr, local, f"{{e}} is {other}", f"{{e}} is {first}")
            return
        if budget[0] <= 0:
            self.truncated = True
            if top and isinstance(obj, type):  # (a global naming a class)
                self._check(label, expr, local, f"{{e}} is {self.const(obj)}")
            return
        budget[0] -= 1
        self.known[id(obj)] = expr
        if t in _DICTS:
            self.containers.append((label, expr, "dict", obj, list(obj.items())))
            # every key is bound below: with the length, the key set is checked
            is_t = "type({e}) is dict" if t is dict else f"type({{e}}) is {self.const(t)}"
            if t is collections.defaultdict:  # (what a missing key reads)
                is_t += f" and {{e}}.default_factory is {self.const(obj.default_factory)}"
            self._check(label, expr, local, f"{is_t} and len({{e}}) == {len(obj)}",
                        f"{is_t} and {{e}}.keys() == {self.const(set(obj))}")
            children = [(f"[{self._key(k)}]", f"{label}[{k!r}]", v) for k, v in obj.items()]
            parent_expr, parent_local = expr, local
        elif t is collections.deque:
            self.containers.append((label, expr, "deque", obj, list(obj)))
            self._check(label, expr, local, f"type({{e}}) is {self.const(t)} and "
                        f"len({{e}}) == {len(obj)} and {{e}}.maxlen == {obj.maxlen!r}")
            children = [(f"[{i}]", f"{label}[{i}]", v) for i, v in enumerate(obj)]
            parent_expr, parent_local = expr, local
        elif t is set:  # (its elements are hashable: numbers, strings, tuples of them)
            self.containers.append((label, expr, "set", obj, list(obj)))
            self._check(label, expr, local, f"type({{e}}) is set and "
                        f"{{e}} == {self.const(frozenset(obj))}")
            return
        elif t is list:
            self.list_places[expr] = obj
            self.containers.append((label, expr, "list", obj, list(obj)))
            self._check(label, expr, local, f"type({{e}}) is list and len({{e}}) == {len(obj)}")
            children = [(f"[{i}]", f"{label}[{i}]", v) for i, v in enumerate(obj)]
            parent_expr, parent_local = expr, local
        elif t is tuple or (isinstance(obj, tuple) and hasattr(obj, "_fields")):
            self._check(label, expr, local, f"type({{e}}) is {self.const(t)} and "
                        f"len({{e}}) == {len(obj)}")
            children = [(f"[{i}]", f"{label}[{i}]", v) for i, v in enumerate(obj)]
            parent_expr, parent_local = expr, local
        elif isinstance(obj, type):  # (a state class: see the module docstring)
            items = class_items(obj)
            self.containers.append((label, expr, "class", obj, items))
            same = f"{{e}} is {self.const(obj)} and "
            self._check(label, expr, local, f"{same}len({{e}}.__dict__) == {len(vars(obj))}",
                        f"{same}{{e}}.__dict__.keys() == {self.const(set(vars(obj)))}")
            children = [(f".{k}", f"{label}.{k}", v) for k, v in items
                        if self._walked(k, f"{expr}.{k}")]
            parent_expr, parent_local = expr, local
        else:
            attrs = getattr(obj, "__dict__", None)
            if slot_names(t):  # (attributes held in slots: `.name` of the object itself)
                items = slot_items(obj)
                self.containers.append((label, expr, "slots", obj, items))
                self._check(label, expr, local, f"type({{e}}) is {self.const(t)}")
                for k, v in items:
                    if not self._walked(k, f"{expr}.{k}"):
                        continue
                    self._visit(f"{label}.{k}", f"{expr}.{k}",
                                self._bind(f"{expr}.{k}", f"{local}.{k}"), v, budget)
            if type(attrs) is not dict:
                if not slot_names(t):
                    self._check(label, expr, local, f"type({{e}}) is {self.const(t)}")
                return
            where = f"{expr}.__dict__"
            self.containers.append((label, where, "attrs", attrs, list(attrs.items())))
            self.known[id(attrs)] = where
            # the dict bound first (read once): a check kept in `compile` keeps this
            # bind (both are dropped only under an unread list)
            parent_expr, parent_local = where, self._bind(where, f"{local}.__dict__")
            self.lines.append((expr, "check", f"type({local}) is {self.const(t)} and "
                               f"len({parent_local}) == {len(attrs)}"))
            self.terms.append((label, expr, f"type({expr}) is {self.const(t)} and "
                               f"{expr}.__dict__.keys() == {self.const(set(attrs))}"))
            children = [(f"[{k!r}]", f"{label}.{k}", v) for k, v in attrs.items()
                        if type(k) is str and self._walked(k, f"{where}[{k!r}]")]
            if self.names is not None and len(children) < len(attrs):
                # not every key is bound: a name the trace found on the class (a
                # default, a method) must not be set on the object since
                on_class = set().union(*(vars(c) for c in t.__mro__))
                shadowing = frozenset((self.names & on_class) - attrs.keys())
                if shadowing:
                    self._check(label, where, parent_local,
                                f"{{e}}.keys().isdisjoint({self.const(shadowing)})")
        for step, child_label, v in children:
            child_expr = parent_expr + step
            self._visit(child_label, child_expr, self._bind(child_expr, parent_local + step),
                        v, budget)
        # an object's classes, a class's bases: the data their lookups may read
        bases = [] if t is dict or t is list or isinstance(obj, tuple) else \
            state_mro(obj)[1:] if isinstance(obj, type) else state_mro(t)
        for cls in bases:
            if id(cls) not in self.known:
                name = self._class_name(cls)
                self._visit(cls.__qualname__, name, self._bind(name, name), cls, budget)

    def _visit_function(self, label, expr, local, fn, budget) -> None:
        """A function of the program holds its attributes (`f.calls += 1`): a container,
        without this package's own entries (`__ag_...`, the compiler's caches). The
        attributes it holds are guarded by their values (and its attribute count when
        the trace wrote one: `StatePlan.compile`): most functions hold none and are not
        written, and their calls then cost no guard beyond the identity."""
        if id(fn) in self.known:
            return
        where = f"{expr}.__dict__"
        self.known[id(fn)] = expr
        items = contents_of("function", fn)
        self.containers.append((label, where, "function", fn, items))
        if not items:
            return
        parent_local = self._bind(where, f"{local}.__dict__")
        for k, v in items:
            if type(k) is str and self._walked(k, f"{where}[{k!r}]"):
                step = f"[{k!r}]"
                self._visit(f"{label}.{k}", where + step,
                            self._bind(where + step, parent_local + step), v, budget)

    def _visit_module(self, label, expr, local, module, budget) -> None:
        """A module of the program (`import config` ... `config.steps += 1`): a container
        of its globals, of which only those the code names are guarded - a module gains
        globals as it runs, which no trace depends on."""
        if id(module) in self.known:
            return
        where = f"{expr}.__dict__"
        attrs = vars(module)
        self.known[id(module)] = expr
        self.known[id(attrs)] = where
        self.containers.append((label, where, "attrs", attrs, list(attrs.items())))
        names = self.names if self.names is not None else self.static_names
        named = sorted(k for k in attrs if type(k) is str and not k.startswith("__") and (
            k in names or self._leads_to_kept(f"{where}[{k!r}]")))
        parent_local = self._bind(where, f"{local}.__dict__")
        absent = frozenset(names - attrs.keys())
        if absent:  # (a name read as missing, `getattr(config, "seed", 0)`, stays so)
            self._check(label, where, parent_local,
                        f"{{e}}.keys().isdisjoint({self.const(absent)})")
        for k in named:
            step = f"[{k!r}]"
            self._visit(f"{label}.{k}", where + step,
                        self._bind(where + step, parent_local + step), attrs[k], budget)

    def _class_name(self, cls) -> str:
        """The constant naming a class: the first made for it (so that a walk made on
        another's constants, as the guard's is, names its places alike)."""
        for k, v in self.env.items():
            if v is cls and k.startswith("_k"):
                return k
        return self.const(cls)

    def _walked(self, name: str, expr: str) -> bool:
        """Whether the attribute `name` (at `expr`) is walked: any when `names` is None;
        else one the trace's code names, a dunder, or one leading to a kept place."""
        if self.names is None or name in self.names or name.startswith("__"):
            return True
        return self._leads_to_kept(expr)

    def _leads_to_kept(self, expr: str) -> bool:
        return any(e == expr or e.startswith((expr + "[", expr + ".")) for e in self.keep)

    def _key(self, k) -> str:
        return repr(k) if _literal(k) else self.const(k)


def _same_value(value, const) -> str:
    """A term on `{e}`: the value is `value` (NaN is NaN; -0.0 is not 0.0)."""
    try:
        if value != value:
            return "{e} != {e}"
        if value == 0 and isinstance(value, (float, np.floating)):  # the sign, as a float
            return f"{{e}} == 0 and {const(math.copysign)}(1.0, {{e}}) == " \
                f"{math.copysign(1.0, value)!r}"
        if value == 0 and isinstance(value, (complex, np.complexfloating)):
            return f"{{e}} == 0 and repr({{e}}) == {const(repr(value))}"
    except Exception:  # a value without ==: compared by identity
        return f"{{e}} is {const(value)}"
    return f"{{e}} == {const(value)}"


__all__ = ["StateWalk", "state_roots", "code_names", "BUDGET", "as_function", "code_functions"]
