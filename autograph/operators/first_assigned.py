"""Variables first assigned inside a symbolic loop (`Undefined` when it starts).

    while i < n:                 the loop learns `last`'s type from its body; after it
        last = x[i]       =>     `last` is PartlyBound(value, ran): a read after a loop
        i += 1                   that ran zero times raises UnboundLocalError there, as
    print(last)                  in Python

- `first_assigned_errors`: the runtime's errors about such a variable, in the user's
  terms (a `Diagnostic` naming it and the fix), and the names a read of which is not
  replayed while the loop's body is traced (`first_assigned_read`: the body is traced
  again with zeros for them, so a read raised in the first trace would be lost);
- `first_assigned_after`: the loop's outputs, each such variable carried with whether
  the loop ran where the function running the loop holds it, else checked at the loop.
"""
from __future__ import annotations

import contextlib
import sys
import threading

import runtime
from autograph.errors import Diagnostic
from autograph.operators.partly_bound import carriable, is_partly_bound
from autograph.pyct.registry import CONVERTED_CODES
from autograph.pyct.unbound import PartlyBound, is_undefined, unbound_error
from runtime.control_flow.learn_types import UntypedLoopVariable
from runtime.state.effects import raise_


class _FirstAssigned(threading.local):
    """The names each symbolic loop being traced on this thread assigns first (loops.py
    pushes and pops; per thread: two functions may be traced at once)."""

    def __init__(self):
        self.names: list = []


FIRST_ASSIGNED_IN_LOOPS = _FirstAssigned()


def first_assigned_read(e: BaseException) -> bool:
    """Whether `e` is the error of reading a variable that a symbolic loop being traced
    assigns first: unbound on this first trace of its body only (the next holds a value
    of its type), so the read cannot be replayed when the graph runs; the loop refuses
    it (loops.py `_first_assigned_errors`)."""
    return isinstance(e, NameError) and any(getattr(e, "name", None) in names
                                            for names in FIRST_ASSIGNED_IN_LOOPS.names)


@contextlib.contextmanager
def first_assigned_errors(first: list, where: str):
    """The runtime's errors about a variable first assigned inside the loop (`first`),
    in the user's terms: the body reads it before assigning it, assigns it on some paths
    only, or gives it a value that is not an array or a number."""
    FIRST_ASSIGNED_IN_LOOPS.names.append(frozenset(first))
    try:
        yield
    except (UntypedLoopVariable, UnboundLocalError, Diagnostic) as e:
        name = getattr(e, "label", None) or getattr(e, "name", None)
        if name not in first:
            raise
        raise Diagnostic(
            f"{where}: '{name}' is first assigned inside this symbolic loop and used "
            f"after it (or in a later iteration), but the loop body reads it before "
            f"assigning it, does not assign it on every path, or gives it a value that is not "
            f"an array or a number. A symbolic loop "
            f"needs its variables defined before it: give '{name}' an initial value "
            f"before the loop, with the dtype and shape it has inside.") from None
    finally:
        FIRST_ASSIGNED_IN_LOOPS.names.pop()


def first_assigned_after(count, out: list, names, first: list, where: str) -> list:
    """The loop's outputs, each variable first assigned inside it (`first`) unbound where
    the loop ran zero times (`count`: the iterations run): an array or a number is
    carried as PartlyBound (reading it after the loop raises UnboundLocalError there, as
    in Python; a loop that only reads it in a later iteration raises nothing); for
    another value the graph raises that error when the loop ran zero times."""
    unchecked = []
    own = _enclosing_locals()
    for k, name in enumerate(names):
        if name not in first:
            continue
        if is_partly_bound(out[k]) or is_undefined(out[k]):
            # (already carried: a body binding it on some paths only; or unbound still:
            # no path of the body assigns it, and a read after the loop raises, as in Python)
            continue
        if carriable(out[k]) and name in own:
            out[k] = PartlyBound.of(name)(out[k], count > 0)
        else:
            unchecked.append(name)
    if unchecked:
        _check_ran(count, unchecked, where)
    return out


def _enclosing_locals() -> frozenset:
    """The variables the converted function running this loop statement holds itself
    (not those a function the compiler generated shares with the function around it as
    `nonlocal`, which it unbinds when they come back unbound: `ag__.defined`, which
    refuses a PartlyBound)."""
    frame = sys._getframe(2)
    while frame is not None and CONVERTED_CODES.get(id(frame.f_code)) is not frame.f_code:
        frame = frame.f_back
    if frame is None:
        return frozenset()
    return frozenset(frame.f_code.co_varnames + frame.f_code.co_cellvars)


def _check_ran(count, first: list, where: str) -> None:
    """Raise, when the graph runs, Python's UnboundLocalError for the first variable
    that only a loop's body assigns, if that loop ran zero times."""
    name = first[0]
    note = (f"{where}: the symbolic loop here ran zero times, and '{name}' is first "
            f"assigned inside it; give '{name}' a value before the loop")

    def unbound():
        raise_(unbound_error(name), note)
        return ()

    runtime.cond(count == 0, unbound, lambda: ())
