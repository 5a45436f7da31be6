"""Values and reads that stand for unbound variables, and what `locals()` / `vars()` /
`dir()` / `eval` / `exec` see in converted code. Plain Python (no runtime, no NumPy): the
operators re-export them, and the lean `ag__` (`lean_namespace.py`) offers the same
objects, so the Python copies of converted functions use them without loading anything.

- `Undefined(name)`: the value of a variable that is not (yet) defined where generated
  code must still pass it around (e.g. a variable first assigned inside a branch).
- `UNSET`: the value of `retval_` before a `return` inside a loop ran.
- `PartlyBound`: a variable a symbolic `if` / loop binds on some paths only, as the
  graph carries it: its value (zeros where unbound) and whether it is bound, a symbolic
  bool. Reading it (`ld`) checks that when the graph runs (operators/partly_bound.py).
- `ld(v)`: a read of a variable that may be undefined; raises UnboundLocalError like
  Python would. `ld_attr(obj, 'a.b')`: an attribute read as `Undefined` when missing.
- `ld_declared`, `defined`: a `global` / `nonlocal` name carried as state.
- `with_locals`, `locals_`, `dir_`: the user's variables as Python shows them.
"""
from __future__ import annotations

import builtins
import sys
from collections.abc import Callable  # (not `typing`: ~3 ms a converted module would pay)


class Undefined:
    """A variable that has no value on some path (or an attribute that does not exist yet:
    then using it raises the AttributeError that reading it raised)."""

    # as the initial value of a symbolic loop's variable (first assigned inside), the
    # runtime gives it the type the body gives it, and requires the body to give one
    graph_placeholder = True
    graph_placeholder_needs_value = True

    __slots__ = ("name", "error")

    def __init__(self, name: str, error: Exception | None = None):
        self.name = name
        self.error = error

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"

    def _raise(self, *args):
        if self.error is not None:
            raise self.error.with_traceback(None)
        raise unbound_error(self.name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        self._raise()

    def __bool__(self):
        self._raise()


# Using an undefined value in an operation raises what using the variable would have.
for _op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift",
            "rshift", "and", "xor", "or"):
    setattr(Undefined, f"__{_op}__", Undefined._raise)
    setattr(Undefined, f"__r{_op}__", Undefined._raise)
    setattr(Undefined, f"__i{_op}__", Undefined._raise)
for _op in ("lt", "le", "gt", "ge", "neg", "pos", "abs", "invert", "getitem", "setitem",
            "call", "iter", "len", "int", "float", "index", "array"):
    setattr(Undefined, f"__{_op}__", Undefined._raise)
del _op


class _Unset:
    # runtime.cond / runtime.while_loop give it the type of the other branch's value /
    # of the value the loop body gives it
    graph_placeholder = True

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self):
        return "UNSET"


UNSET = _Unset()


def unbound_error(name: str) -> UnboundLocalError:
    """Python's error for reading the local variable `name` while it is unbound."""
    if sys.version_info >= (3, 11):
        e = UnboundLocalError(
            f"cannot access local variable '{name}' where it is not associated with a value")
    else:
        e = UnboundLocalError(f"local variable '{name}' referenced before assignment")
    e.name = name  # (as Python sets it; loops.py names the variable in its diagnostic)
    return e


class PartlyBound(tuple):
    """(value, bound): a variable that a symbolic `if` or loop binds on some paths only.
    `bound` is a symbolic bool (or a Python one); `value` holds zeros of the variable's
    type where it is unbound. The graph carries it as a structure of those two leaves (a
    named tuple to the runtime's walkers); the variable's name is its class's (`of`), so
    the structure both branches give is the same only for the same variable.

    Reading it goes through `ld`, which raises Python's UnboundLocalError when the graph
    runs a path that left it unbound (`reader`, set by operators/partly_bound.py). Any
    other use (a closure reading the variable) is a clear TypeError, never a tuple."""

    __slots__ = ()
    _fields = ("value", "bound")
    name = ""
    reader: Callable | None = None  # (runtime side: operators/partly_bound.py)
    refuse_declared: Callable | None = None
    _named: dict = {}

    def __new__(cls, value, bound):
        return tuple.__new__(cls, (value, bound))

    @classmethod
    def of(cls, name: str) -> type:
        """The PartlyBound class of variable `name` (one per name)."""
        t = cls._named.get(name)
        if t is None:
            t = cls._named[name] = type(f"PartlyBound_{name}", (cls,), {
                "__slots__": (), "name": name})
        return t

    @property
    def value(self):
        return tuple.__getitem__(self, 0)

    @property
    def bound(self):
        return tuple.__getitem__(self, 1)

    def __repr__(self) -> str:
        return f"PartlyBound({self.name!r}, {self.value!r}, bound={self.bound!r})"

    def _misused(self, *args):
        caller = sys._getframe(1)  # (the user's line: the operator called this slot)
        raise TypeError(
            f"{caller.f_code.co_filename}:{caller.f_lineno}: "
            f"'{self.name}' is bound on some paths of a symbolic `if` or loop only, and is "
            "read here where autograph cannot check which path the graph took (e.g. in a "
            f"nested function or lambda). Give '{self.name}' a value before that `if` or "
            "loop.")


for _op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift",
            "rshift", "and", "xor", "or"):
    setattr(PartlyBound, f"__{_op}__", PartlyBound._misused)
    setattr(PartlyBound, f"__r{_op}__", PartlyBound._misused)
for _op in ("lt", "le", "gt", "ge", "neg", "pos", "abs", "invert", "getitem", "call",
            "int", "float", "index", "array", "bool"):
    setattr(PartlyBound, f"__{_op}__", PartlyBound._misused)
del _op


def ld(value):
    """A read of a possibly undefined variable."""
    t = type(value)
    if t is Undefined:
        value._raise()  # (UnboundLocalError, or the error it carries: exceptions.py)
    if t.__base__ is PartlyBound:
        return PartlyBound.reader(value)
    return value


def is_undefined(value) -> bool:
    return type(value) is Undefined


def ld_attr(obj, path: str):
    """`obj.<path>`, or `Undefined` when an attribute on the way is missing."""
    value = obj
    for attr in path.split("."):
        try:
            value = getattr(value, attr)
        except AttributeError as e:
            return Undefined(path, e)
    return value


def ld_declared(getter: Callable, name: str):
    """The value of a name the function declares `global` / `nonlocal`, passed into a
    branch or loop as state: `Undefined` (not a NameError) while it is unbound - the
    original only creates it on the paths that assign it."""
    try:
        return getter()
    except NameError:
        return Undefined(name)


def defined(value) -> bool:
    """Whether a state value is a value (not `Undefined`): generated code deletes a
    `global` / `nonlocal` name it would otherwise bind to `Undefined`. A declared name
    a symbolic `if` / loop binds on some paths only cannot be left unbound outside the
    function on one path: `PartlyBound.refuse_declared` raises the error saying so."""
    t = type(value)
    if t.__base__ is PartlyBound:
        PartlyBound.refuse_declared(value)
    return t is not Undefined


def locals_(getters: dict) -> dict:
    """What `locals()` / `vars()` give in the user's function: `getters` maps each of its
    variables to a function reading it; unbound ones (and ones generated code marks as
    not defined yet) are left out."""
    out = {}
    for name, get in getters.items():
        try:
            value = get()
        except NameError:  # (UnboundLocalError too) not assigned yet
            continue
        if not isinstance(value, Undefined):
            out[name] = value
    return out


def with_locals(fn: Callable, getters: dict) -> Callable:
    """What an argument-less `locals()` / `vars()` / `dir()`, and `eval(source)` /
    `exec(source)`, call in converted code, `fn` being what the name means when the call
    runs: Python's builtin on the user's variables (`getters`, see `locals_`; the
    caller's globals for eval / exec); any other `fn` (a global of that name) as is."""
    if fn is builtins.locals or fn is builtins.vars:
        return lambda: locals_(getters)
    if fn is builtins.dir:
        return lambda: dir_(getters)
    if fn is builtins.eval or fn is builtins.exec:
        namespaces = (sys._getframe(1).f_globals, locals_(getters))
        return lambda source: fn(source, *namespaces)
    return fn


def dir_(getters: dict) -> list:
    """What `dir()` gives in the user's function: the sorted names of its variables."""
    return sorted(locals_(getters))
