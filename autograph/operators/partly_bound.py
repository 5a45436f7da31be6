"""Variables a symbolic `if` or loop binds on some paths only: carried, and read as Python
reads them.

Python raises UnboundLocalError where a variable is read on a path that never bound it;
a graph runs both branches' code paths in one program, so it carries such a variable as
`PartlyBound(value, bound)` (pyct/unbound.py): the value (zeros of its type where
unbound) and a symbolic bool saying whether the path taken bound it. A read (`ld`)
then becomes a check when the graph runs:

    for i in range(3):                 # y = PartlyBound(x[i] or 0.0, x[i] > 1 or ...)
        if x[i] > 1:
            y = x[i]
            break
    else:
        y = 5.0                         # bound on every path again (bound is True)
    return y                            # raises UnboundLocalError where Python would

Only values the graph can carry (arrays and numbers) are carried this way; a variable
holding another Python object on one path stays the clear error of conditionals.py.
`unbound_after_try` does the same after a graph `try` (exceptions.py), and
first_assigned.py after a symbolic loop that assigns a variable first.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import runtime
from autograph.errors import ConversionError, Diagnostic, caller_location
from autograph.pyct.unbound import PartlyBound, Undefined, unbound_error
from runtime.core.known_value import UNKNOWN, known_value
from runtime.core.tensor import Tensor
from runtime.state.effects import raise_

_CARRIED = (Tensor, np.ndarray, np.generic, bool, int, float, complex)


def is_partly_bound(value) -> bool:
    return type(value).__base__ is PartlyBound


def carriable(value) -> bool:
    """Whether a variable holding `value` on one path and unbound on another can be
    carried (an array or a number, or already carried so)."""
    return is_partly_bound(value) or isinstance(value, _CARRIED)


def as_partly_bound(value, name: str):
    """`value` (a branch's output for variable `name`) in the carried form: unbound
    (`Undefined`, whose value the other branch's type fills with zeros), bound, or as
    it is when already carried."""
    if is_partly_bound(value):
        return value
    cls = PartlyBound.of(name)
    if type(value) is Undefined:
        return cls(value, False)
    return cls(value, True)


def needs_carrying(a, b) -> bool:
    """Whether the outputs of one variable from two paths (`a`, `b`) differ in whether
    they are bound in a way the carried form resolves."""
    ua, ub = type(a) is Undefined, type(b) is Undefined
    if ua and ub:
        return False
    if ua or ub:
        return carriable(b if ua else a)
    return is_partly_bound(a) != is_partly_bound(b) and carriable(a) and carriable(b)


def keep_carried(before: tuple, after: tuple) -> tuple:
    """A loop body's new state (`after`) with each variable that entered it carried
    (`before`: PartlyBound) carried still: the body that assigns it binds it. The loop
    variables keep one structure, as a `while_loop` needs."""
    if not any(type(b).__base__ is PartlyBound for b in before):
        return after
    return tuple(as_partly_bound(a, type(b).name) if type(b).__base__ is PartlyBound else a
                 for b, a in zip(before, after))


def read(value: PartlyBound):
    """The variable's value, after raising UnboundLocalError where the path the graph
    took did not bind it (checked when the graph runs; decided now when known)."""
    bound = value.bound
    known = known_value(bound, Tensor) if isinstance(bound, Tensor) else bool(bound)
    if known is not UNKNOWN:
        if not known:
            raise unbound_error(value.name)
        return value.value
    name = value.name
    file, line = caller_location(3)  # (the user's line reading it: read <- ld <- there)

    def unbound():
        raise_(unbound_error(name), f"{file}:{line}")
        return ()

    runtime.cond(bound, lambda: (), unbound)
    return value.value


def refuse_declared(value: PartlyBound):
    """A `global` / `nonlocal` name bound on some paths only: the name lives outside the
    function, which the graph cannot leave unbound on one path."""
    file, line = caller_location(3)  # (refuse_declared <- defined <- the user's code)
    raise Diagnostic(
        f"{file}:{line}: '{value.name}' is declared `global` or `nonlocal` and a symbolic "
        "`if` or loop here binds it on some paths only; the graph cannot leave a name "
        f"outside the function unbound on one path. Give '{value.name}' a value before "
        "the `if` or loop.")


PartlyBound.reader = staticmethod(read)
PartlyBound.refuse_declared = staticmethod(refuse_declared)


def unbound_after_try(unbound: list, rebound: set, get_state: Callable, set_state: Callable,
                   names: tuple, where, path) -> None:
    """Each variable the `try` binds on some paths going on after it only (`unbound`,
    try_op.py's `_partly_bound`: {path: bound there}); on the body's path the `else`, or
    the handler a body's error raised while traced is handed to, may bind it too
    (`rebound`: the names they assign). An array or a number is carried as PartlyBound,
    bound where `path` (the path the graph took) is one that binds it: reading it raises
    Python's UnboundLocalError when the graph runs where Python would. Another object is
    unbound after the `try`, and reading it raises the ConversionError saying so at the
    `try`; unread, nothing happens."""
    if not unbound:
        return
    state = list(get_state())
    for name, bound in unbound:
        if name not in names:
            continue
        if -1 in bound and name in rebound:
            bound[-1] = True
        if all(bound.values()) or not any(bound.values()):
            continue  # (bound everywhere, or nowhere: Python's error on every path)
        k = names.index(name)
        if carriable(state[k]) and not is_partly_bound(state[k]):
            if not isinstance(path, runtime.Tensor):
                flag = bound.get(path, True)
            else:
                flag = None
                for p in (p for p, b in bound.items() if b):
                    flag = path == p if flag is None else np.logical_or(flag, path == p)
            state[k] = PartlyBound.of(name)(state[k], flag) if flag is not True else state[k]
            continue
        state[k] = Undefined(name, ConversionError(
            f"'{name}' is read after this `try`, which binds it on some paths only "
            "(not where a handler that does not assign it runs and the function goes "
            "on), and holds an object the graph cannot carry with whether it is bound. "
            f"Give '{name}' a value before the `try` or in every handler.", *where))
    set_state(tuple(state))
