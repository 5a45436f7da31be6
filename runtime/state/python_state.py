"""Python state a traced function reaches: guards, lifted places and write-back.

A traced function reads and writes Python state: attributes of `self` and of object
arguments, closure cells, the globals its code names, and the dicts, lists, tuples and
objects reachable from them. A graph runs without Python, so each trace records three
things about that state (`StatePlan`), and its Function uses them on every call:

- **Guards.** The facts the trace saw: the type of every object, the keys of every dict
  and the attribute names of every object, list and tuple lengths, numbers and strings
  by value, arrays by identity (small arrays also by contents). A call whose state no
  longer matches traces again, so `"v" in self.cache`, `hasattr`, `len(self.items)` and
  a changed hyperparameter are never silently stale.
- **Lifted places.** A place whose value changed between calls (a float, an array, a
  NumPy scalar; an int the function itself writes) or that the function writes a
  computed value into is read as a graph input by the next trace: its current value
  is passed on every call, so a momentum buffer or a learning-rate schedule does not
  retrace each call. Python numbers are lifted as weak inputs (NEP 50), and written
  back as the Python type they had.
- **Write-back.** What the trace changed in state (a new key, a rebound attribute, list
  appends, a global) is undone when the trace ends and done again after every call,
  with the graph's values in place of symbolic ones: the objects hold NumPy values
  after each call, as they do when the function runs as Python.

    before: F(p, g); F(p, g) -> the second call reads the first trace's cache["v"]
    after:  each call reads cache["v"] as an input and writes the new value back

Places are Python expressions over the call's roots (`args[0].__dict__['cache']['v']`,
`_g['W']`), compiled once per trace into a guard function and a write-back function.
Objects of this package (Functions, Variables) are not looked into: a Variable is the
explicit form of state. At most `state_walk.BUDGET` objects are guarded per trace.
"""
from __future__ import annotations

import warnings

import numpy as np

from runtime.core.errors import user_stacklevel
from runtime.core.tensor import Tensor
from runtime.state.append_log import AppendLog, AppendLogRead, append_logs_in
from runtime.state.state_kinds import contents_of, global_with_state, restore
from runtime.state.state_walk import BUDGET, StateWalk, code_names, state_roots
from runtime.state.views import resolve, same_array

_ARRAY_BYTES = 256 << 20  # arrays of state copied per trace to see in-place changes


def _liftable(value, may_be_int: bool) -> bool:
    if type(value) is np.ndarray:
        return value.dtype.kind in "biufc"
    if isinstance(value, np.generic):
        return value.dtype.kind in "biufc"
    return type(value) is float or type(value) is complex or (type(value) is int and may_be_int)


class StatePlan:
    """One trace's view of Python state: see the module docstring."""

    def __init__(self, fn, params: list, args, dynamic: dict, appended: set,
                 helper_globals: dict | None = None):
        roots, env = state_roots(fn, params, args)
        # the module globals earlier traces' helpers named (`guard_walk`): roots of the
        # walk too, so that one that keeps changing is read as an input
        self.helper_globals = {} if helper_globals is None else helper_globals
        if roots:
            walked = {expr for _, expr, _ in roots}
            for key, (scope, names) in self.helper_globals.items():
                if env.setdefault(key, scope) is not scope:
                    continue
                for name in sorted(names):
                    expr = f"{key}[{name!r}]"
                    if name in scope and expr not in walked and global_with_state(scope[name]):
                        roots.append((name, expr, scope[name]))
        self.walk = StateWalk(roots, env, static_names=code_names(fn)) if roots else None
        self.dynamic = dynamic      # the Function's learned places: expr -> may be int
        self.appended = appended    # the Function's learned lists the function appends to
        self.watched: list = []     # (expr, list, its AppendLog) during the trace
        self.unread: set[str] = set()  # watched lists the trace did not read
        self.lifted: list = []      # (label, expr, value before, placeholder)
        self.outputs: list = []     # graph values the write-back reads
        self.lines: list[str] = []  # the write-back's code
        self.written: list[tuple[str, str]] = []  # (label, expression) of places changed
        self.appends: list[str] = []  # lists the trace only appended to
        self.args = args
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        self.origin = f"{code.co_filename}:{code.co_firstlineno}" if code else "?"
        self.consts: list = []      # (label, Python value) the write-back stores
        self.term_list: list = []   # (label, expression, term) of every guard
        self.enter = _no_state      # args -> the lifted values, or None
        self.check = None           # args -> whether the guards hold (no lifted places)
        self.apply = None           # (args, leaves, ins, outs) -> None: the write-back
        self.guard = self.walk      # the walk the guard checks (`guard_walk`)

    @property
    def empty(self) -> bool:
        return self.walk is None or (not self.guard.terms and not self.lifted)

    # -- before the trace ---------------------------------------------------------
    def lift(self, graph) -> None:
        """Replace each learned dynamic place by a graph input (weak for Python numbers)."""
        w = self.walk
        if w is None:
            return
        for expr, may_be_int in self.dynamic.items():
            if expr not in w.places:
                continue
            label, value = w.places[expr]
            if not _liftable(value, may_be_int):
                continue
            python = type(value) in (int, float, complex)
            array = np.asarray(value)
            name = "state_" + "".join(c if c.isalnum() else "_" for c in label).strip("_")
            t = graph.add_input(array.shape, array.dtype, name[:40], weak=python)
            self.lifted.append((label, expr, value, t))
        for _, expr, _, t in self.lifted:
            self._set(expr, t)
        # arrays of state as they were: one the trace changes in place with Python values
        # (`self.count[0] += 1`) must be an input, or later calls would not change it
        lifted = {e for _, e, _, _ in self.lifted}
        budget = _ARRAY_BYTES
        self.arrays_before = []
        for expr, (_, value) in w.places.items():
            if type(value) is np.ndarray and expr not in lifted and value.nbytes <= budget \
                    and value.dtype.kind in "biufc":  # (what can be read as an input)
                budget -= value.nbytes
                self.arrays_before.append((expr, value, value.copy()))
        for expr in self.appended:
            if expr in w.list_places:
                original = w.list_places[expr]
                log = AppendLog(original, expr)
                self.watched.append((expr, original, log))
                w.known[id(log)] = expr
                self._set(expr, log)
        # the contents the trace starts from (with the placeholders in)
        self.start = [(c, contents_of(c[2], c[3])) for c in w.containers]
        self.root_start = [(label, expr, self._get(expr)) for label, expr, _ in w.roots]

    def _get(self, expr):
        return eval(expr, self.walk.env, {"args": self.args})  # noqa: S307 - our own code

    def _set(self, expr, value) -> None:
        exec(f"{expr} = _v", self.walk.env, {"args": self.args, "_v": value})  # noqa: S102

    # -- after the trace ----------------------------------------------------------
    def record_writes(self, arg_inputs: list, capture) -> None:
        """Write-back code for what the trace changed, from the start contents."""
        w = self.walk
        if w is None:
            return
        leaf_of = {id(p): k for k, p in enumerate(arg_inputs)}
        lifted_of = {id(t): j for j, (_, _, _, t) in enumerate(self.lifted)}
        refs: dict[str, str] = {}
        self._refs, self._leaf_of, self._lifted_of, self._capture = refs, leaf_of, lifted_of, capture
        self._arg_inputs = arg_inputs
        body: list[str] = []
        for (label, expr, kind, obj, _), before in self.start:
            if kind == "set":
                if set(obj) != set(before):
                    self.written.append((label, expr))
                    items = ", ".join(self._value(f"{label} (an element)", v, expr)
                                      for v in obj)
                    target = self._target(expr)
                    body.append(f"{target}.clear(); {target}.update([{items}])")
                continue
            if kind in ("list", "deque"):
                now = list(obj)
                if len(now) == len(before) and all(a is b for a, b in zip(now, before)):
                    continue
                target = self._target(expr)
                self.written.append((label, expr))
                if len(now) >= len(before) and all(a is b for a, b in zip(now, before)):
                    self.appends.append(expr)
                    items = ", ".join(self._value(f"{label}[{i}]", v, f"{expr}[{i}]")
                                      for i, v in enumerate(now[len(before):], len(before)))
                    body.append(f"{target}.extend([{items}])")
                else:
                    items = ", ".join(self._value(f"{label}[{i}]", v, f"{expr}[{i}]")
                                      for i, v in enumerate(now))
                    body.append(f"{target}[:] = [{items}]" if kind == "list" else
                                f"{target}.clear(); {target}.extend([{items}])")
                continue
            now = dict(contents_of(kind, obj))
            old = dict(before)
            dotted, of_class = kind != "dict", kind in ("class", "slots")
            for k in old:
                if k not in now:
                    place = f"{expr}.{k}" if of_class else f"{expr}[{w._key(k)}]"
                    self.written.append((_child_label(label, k, dotted), place))
                    body.append(f"delattr({self._target(expr)}, {k!r})" if of_class else
                                f"{self._target(expr)}.pop({w._key(k)}, None)")
            for k, v in now.items():
                if k in old and old[k] is v:
                    continue
                place = f"{expr}.{k}" if of_class else f"{expr}[{w._key(k)}]"
                self.written.append((_child_label(label, k, dotted), place))
                self._note_dynamic(place, v)
                value = self._value(_child_label(label, k, dotted), v, place)
                body.append(f"setattr({self._target(expr)}, {k!r}, {value})" if of_class else
                            f"{self._target(expr)}[{w._key(k)}] = {value}")
        for label, expr, start in self.root_start:
            now = self._get(expr)
            if now is start:
                continue
            self.written.append((label, expr))
            self._note_dynamic(expr, now)
            body.append(f"{expr} = {self._value(label, now, expr)}")
        for expr, original, log in self.watched:
            n = len(original)
            items = list(list.__iter__(log))  # the log refuses reads; its own are fine
            self.unread.add(expr)
            self.appends.append(expr)
            if len(items) > n:
                new = ", ".join(self._value(f"{expr}[{i}]", v, expr)
                                for i, v in enumerate(items[n:], n))
                body.append(f"{self._target(expr)}.extend([{new}])")
                self.written.append((expr, expr))
        resolve_first = [f"{name} = {e}" for e, name in refs.items()]
        self.lines = resolve_first + body

    def _note_dynamic(self, place: str, value) -> None:
        """A place the function writes a computed value into is read as an input by the
        next trace (an int too: a counter the function increments)."""
        if isinstance(resolve(value), Tensor):
            self.dynamic[place] = True

    def _target(self, expr: str) -> str:
        name = self._refs.get(expr)
        if name is None:
            name = self._refs[expr] = f"_t{len(self._refs)}"
        return name

    def _value(self, label: str, v, place: str) -> str:
        """A Python expression for the value `v` the trace left at `place`."""
        w = self.walk
        raw, v = v, resolve(v)
        if isinstance(raw, Tensor):  # an input written in place is still that array
            j = self._lifted_of.get(id(raw))
            if j is None:
                j = next((j for j, (_, _, _, t) in enumerate(self.lifted)
                          if same_array(t, raw)), None)
            if j is not None:
                return f"ins[{j}]"
            k = self._leaf_of.get(id(raw))
            if k is None:
                k = next((k for k, t in enumerate(self._arg_inputs) if same_array(t, raw)),
                         None)
            if k is not None:
                return f"leaves[{k}]"
        if isinstance(v, Tensor):
            self.outputs.append(self._capture(v))
            out = f"outs[{len(self.outputs) - 1}]"
            if v.weak:  # stands for a Python number: written back as one
                return {"b": f"bool({out})", "i": f"int({out})", "u": f"int({out})",
                        "f": f"float({out})", "c": f"complex({out})"}[v.dtype.kind]
            return out
        if id(v) in w.known:
            return self._target(w.known[id(v)])
        t = type(v)
        if t is list or t is tuple:
            items = [self._value(f"{label}[{i}]", x, place) for i, x in enumerate(v)]
            return f"[{', '.join(items)}]" if t is list else f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        if t is dict:
            items = [f"{w._key(k)}: {self._value(f'{label}[{k!r}]', x, place)}"
                     for k, x in v.items()]
            return "{" + ", ".join(items) + "}"
        self.consts.append((label, v))
        return w.const(v)

    def guard_walk(self, reads) -> StateWalk:
        """The walk the guard checks: from the same roots and the module globals the
        functions the trace ran name (a helper's `W`), through the attributes their
        code names only (read_names.py); the whole walk when nothing was recorded."""
        w = self.walk
        if reads is None or not reads.complete:
            return w
        roots, env = list(w.roots), dict(w.env)
        named = {(expr.partition("[")[0], label) for label, expr, _ in w.roots
                 if expr.startswith("_g")}
        known = self.helper_globals
        for scope, names in reads.globals_named():
            key = next((k for k, v in env.items() if k.startswith("_g") and v is scope),
                       None)
            if key is None:  # (named once per Function: the next trace walks it too)
                key = f"_gm{len(known)}"
                known[key] = (scope, set())
                env[key] = scope
            known.setdefault(key, (scope, set()))[1].update(names)
            for name in names:
                value = scope[name]
                if (key, name) not in named and global_with_state(value):
                    roots.append((name, f"{key}[{name!r}]", value))
        keep = frozenset(e for _, e, _, _ in self.lifted) | frozenset(self.unread)
        return StateWalk(roots, env, names=reads.names(), keep=keep)

    def compile(self, reads=None) -> None:
        """The guard (`enter(args)`: the lifted values, or None when the state changed)
        and the write-back (`apply(args, leaves, ins, outs)`); `reads`: what the trace
        ran (read_names.ReadNames), to guard only what it can have read."""
        if self.walk is None:
            return
        w = self.guard = self.guard_walk(reads)
        lifted = {e for _, e, _, _ in self.lifted}

        def dropped(expr: str, kind: str) -> bool:
            # a lifted place's value and an unread list's length are not guarded (and
            # nothing under an unread list is read), but the places leading to a lifted
            # one are reached, even under an unread list (a place lifted because it
            # changed before, such as the item of a list the function only appends to)
            if kind == "check" and (expr in lifted or expr in self.unread):
                return True
            if kind == "bind" and any(e == expr or e.startswith((expr + "[", expr + "."))
                                      for e in lifted):
                return False
            return any(expr.startswith(e + "[") for e in self.unread)
        self.term_list = [t for t in w.terms if not dropped(t[1], "check")]
        body = [code if kind == "bind" else f"if not ({code}): return @FAIL@"
                for expr, kind, code in w.lines if not dropped(expr, kind)]
        for label, where, kind, fn, _ in self.walk.containers:
            # a function the trace gave an attribute: the call that wrote it back traces
            # again (its count includes the compiler's entries, there by now)
            if kind == "function" and any(e.startswith(where + "[") for _, e in self.written):
                term = f"len({where}) == {len(vars(fn))}"
                self.term_list.append((label, where, term))
                body.append(f"if not ({term}): return @FAIL@")
        values = []
        for label, expr, value, _ in self.lifted:
            if type(value) is np.ndarray:
                dtype = w.const(value.dtype)  # (NumPy's own dtypes are one object each)
                term = (f"type({{e}}) is {w.const(np.ndarray)} and ({{e}}.dtype is {dtype} "
                        f"or {{e}}.dtype == {dtype}) and {{e}}.shape == {value.shape!r}")
            else:
                term = f"type({{e}}) is {w.const(type(value))}"
            self.term_list.append((label, expr, term.format(e=expr)))
            local = w.local_of[expr]
            body.append(f"if not ({term.format(e=local)}): return @FAIL@")
            values.append(local)

        def function(name: str, fail: str, success: str) -> str:
            lines = [line.replace("@FAIL@", fail) for line in body]
            return (f"def {name}(args):\n    try:\n"
                    + "".join(f"        {line}\n" for line in lines)
                    + f"    except Exception:\n        return {fail}\n    return {success}\n")
        self._guard_body, self._values = body, values
        source = (function("enter", "None", f"[{', '.join(values)}]")
                  + function("check", "False", "True"))
        if self.lines:
            source += ("def apply(args, leaves, ins, outs):\n" +
                       "".join(f"    {line}\n" for line in self.lines))
        scope = dict(w.env)
        exec(compile(source, "<state guards>", "exec"), scope)  # noqa: S102 - our own code
        self.enter = scope["enter"]
        self.apply = scope.get("apply")
        self.check = scope["check"] if not self.lifted and self.apply is None else never_holds

    def call_path_run(self, trace, keep_rest: bool, miss: object):
        """One function for the call path (`ConcreteFunction.stateful`): `(leaves, args)`
        -> the guards, the lifted values, the executor (`trace._fn`, read per call) and
        the write-back in one frame; `miss` when a guard does not hold. (The same steps
        as `enter`, `ConcreteFunction._run` and `apply`, without a call between them.)"""
        if self.walk is None:
            return None
        values = ", ".join(self._values)
        call = f"_cf._fn(*leaves{', ' + values if values else ''})"
        if keep_rest:
            uses_ins = any("ins[" in line for line in self.lines)
            # a container the write-back stores into is the one the guards just read
            # (only NumPy ran since): its local, instead of the path from the roots
            bound = {line.split(" = ", 1)[0] for line in self._guard_body
                     if not line.startswith("if ")}
            lines = []
            for line in self.lines:
                name, _, expr = line.partition(" = ")
                local = self.guard.local_of.get(expr)
                lines.append(f"{name} = {local}" if name.startswith("_t") and
                             name.isidentifier() and local in bound else line)
            run = ([f"out, outs = {call}"] + ([f"ins = [{values}]"] if uses_ins else [])
                   + lines + ["return out"])
        else:
            run = [f"return {call}"]
        lines = [line.replace("@FAIL@", "_MISS") for line in self._guard_body]
        source = ("def stateful(leaves, args):\n    try:\n"
                  + "".join(f"        {line}\n" for line in lines)
                  + "    except Exception:\n        return _MISS\n"
                  + "    _owner._calls += 1\n    try:\n"
                  + "".join(f"        {line}\n" for line in run)
                  + "    except Exception as _e:\n        _cf._failed(_e, args)\n"
                  + "        raise\n")
        scope = dict(self.guard.env, _cf=trace, _owner=trace._owner, _MISS=miss)
        exec(compile(source, "<state guards>", "exec"), scope)  # noqa: S102 - our own code
        return scope["stateful"]

    def release(self) -> None:
        """Drop what only the trace needed (the call's arguments, the walked objects):
        a cached trace must not keep `self` or an argument alive."""
        w = self.walk
        self.args = None
        self.consts = []
        self.start = self.root_start = self.watched = self.arrays_before = ()
        self._capture = self._leaf_of = self._lifted_of = self._refs = self._arg_inputs = None
        self.lifted = [(label, expr, None, t) for label, expr, _, t in self.lifted]
        for walk in {id(w): w, id(self.guard): self.guard}.values():
            if walk is not None:
                walk.roots, walk.containers, walk.places, walk.list_places, walk.known = \
                    [], [], {}, {}, {}

    def arrays_changed_in_place(self) -> list[str]:
        """The places of arrays the trace changed in place with Python values, put back as
        they were (the next trace reads them as inputs)."""
        changed = []
        for expr, array, before in getattr(self, "arrays_before", ()):
            if array.shape != before.shape or not np.array_equal(
                    np.ascontiguousarray(array).reshape(-1).view(np.uint8),
                    before.reshape(-1).view(np.uint8)):  # bitwise: -0.0 and NaNs too
                if array.shape == before.shape:
                    np.copyto(array, before)
                changed.append(expr)
        return changed

    def place_of(self, array) -> str | None:
        """The place holding `array`, or an array whose memory it may share (a view,
        `w = self.w[0]`, `G.reshape(-1)`), if the walk reached it."""
        for expr, (_, value) in self.walk.places.items() if self.walk else ():
            if value is array:
                return expr
        for expr, (_, value) in self.walk.places.items() if self.walk else ():
            if isinstance(value, np.ndarray) and np.may_share_memory(value, array):
                return expr
        return None

    def runs_python(self) -> bool:
        """Whether calls read places as inputs or write back (beyond checking guards)."""
        return bool(self.lifted) or self.apply is not None

    def places(self) -> list[str]:
        """The places calls read as inputs or write, for messages."""
        return list(dict.fromkeys([label for label, _, _, _ in self.lifted] +
                                  [label for label, _ in self.written]))

    def value_at(self, expr: str, args):
        return eval(expr, self.guard.env, {"args": args})  # noqa: S307 - our own code

    def failing(self, args) -> list[tuple[str, str]]:
        """(label, expression) of each guard that no longer holds for `args`."""
        out = []
        for label, expr, term in self.term_list:
            try:
                ok = eval(term, self.guard.env, {"args": args})  # noqa: S307
            except Exception:
                ok = False
            if not ok:
                out.append((label, expr))
        return out

    def undo(self) -> None:
        """Put the state back as it was before the trace (placeholders out, writes undone)."""
        w = self.walk
        if w is None:
            return
        for _, _, kind, obj, before in w.containers:
            restore(kind, obj, before)
        for _, expr, value in w.roots:
            try:
                if self._get(expr) is not value:
                    self._set(expr, value)
            except Exception:  # a global deleted by the trace
                self._set(expr, value)

    def warn_if_truncated(self, name: str) -> None:
        if self.walk is not None and self.walk.truncated:
            warnings.warn(f"{name}: the Python state this function reaches holds more than "
                          f"{BUDGET} objects; only the first {BUDGET} are checked before "
                          "each call, so a change deeper in it is not seen. Keep the state "
                          "the function reads small, or pass it as arguments.",
                          stacklevel=user_stacklevel())


def _child_label(label: str, key, dotted: bool) -> str:
    return f"{label}.{key}" if dotted else f"{label}[{key!r}]"


def _no_state(args) -> list:
    return []


def never_holds(args) -> bool:
    """The guard of a trace whose calls need `enter` (its lifted values) or write-back."""
    return False


def liftable_after_change(value, written: bool) -> bool:
    """Whether a place whose guard failed is read as an input by the next trace."""
    return _liftable(value, written)


__all__ = ["StatePlan", "never_holds", "AppendLogRead", "append_logs_in", "state_roots",
           "liftable_after_change"]
