"""Variables first assigned inside a symbolic loop (`Undefined` when it starts).

    while i < n:                 the loop learns `last`'s type from its body; after it
        last = x[i]       =>     `last` is PartlyBound(value, ran): a read after a loop
        i += 1                   that ran zero times raises UnboundLocalError there, as
    print(last)                  in Python

- `first_assigned_errors`: the runtime's errors about such a variable, in the user's
  terms (a `Diagnostic` naming it and the fix);
- a read of such a variable on a path the graph takes only when a symbolic condition
  holds, before the body assigns it (`t = t + w` under `if i > 0`, `w = x` after it): in
  a trace of the body where it is unbound it is replayed as Python's error
  (`note_first_assigned_read`), and the body's value for it is carried as PartlyBound
  from there on (`carry_read_first`), so the next traces read it through the check of
  whether an earlier iteration bound it, never as the zeros the loop starts it with;
- `first_assigned_after`: the loop's outputs, each such variable carried with whether
  the loop ran where the function running the loop holds it, else checked at the loop.
"""
from __future__ import annotations

import contextlib
import sys
import threading

import runtime
from autograph.errors import Diagnostic
from autograph.operators.partly_bound import as_partly_bound, carriable, is_partly_bound
from autograph.pyct.registry import CONVERTED_CODES
from autograph.pyct.unbound import PartlyBound, is_undefined, unbound_error
from runtime.control_flow.learn_types import UntypedLoopVariable
from runtime.state.effects import raise_


class _FirstAssigned(threading.local):
    """Per symbolic loop being traced on this thread (loops.py pushes and pops; per
    thread: two functions may be traced at once): the names it assigns first, and those
    of them its body read before assigning (`note_first_assigned_read`)."""

    def __init__(self):
        self.names: list = []
        self.read_first: list = []


FIRST_ASSIGNED_IN_LOOPS = _FirstAssigned()


def note_first_assigned_read(e: BaseException) -> None:
    """Record a read of a variable that a symbolic loop being traced assigns first, which
    raised (`e`, Python's error: the variable is unbound in this trace of the body). It
    is replayed when the graph runs, where the path reaching it is taken; the loop
    carries the variable as PartlyBound from this trace on (`carry_read_first`), so a
    later trace with a value of its type reads it through the check of whether an
    earlier iteration bound it, never as the zeros the loop starts it with."""
    name = getattr(e, "name", None)
    if not isinstance(e, NameError) or not name:
        return
    for names, read_first in zip(reversed(FIRST_ASSIGNED_IN_LOOPS.names),
                                 reversed(FIRST_ASSIGNED_IN_LOOPS.read_first)):
        if name in names:
            read_first.add(name)
            return


def carry_read_first(names, out: tuple) -> tuple:
    """A loop body's new state (`out`, the variables `names`), each variable first
    assigned in the loop that the body read before assigning carried as PartlyBound
    (bound where the body assigns it); one the body gives a value the graph cannot carry
    so is refused as a read before assigning (UnboundLocalError, which the loop turns
    into its Diagnostic). One the body leaves unbound on every path stays unbound (not
    carried: each read of it raises, as in Python)."""
    state = FIRST_ASSIGNED_IN_LOOPS
    read_first = state.read_first[-1] if state.read_first else None
    if not read_first:
        return out
    out = list(out)
    for k, name in enumerate(names):
        if name in read_first and not is_undefined(out[k]):
            if not carriable(out[k]):
                raise unbound_error(name)
            out[k] = as_partly_bound(out[k], name)
    return tuple(out)


@contextlib.contextmanager
def first_assigned_errors(first: list, where: str):
    """The runtime's errors about a variable first assigned inside the loop (`first`),
    in the user's terms: the body reads it before assigning it, assigns it on some paths
    only, or gives it a value that is not an array or a number."""
    FIRST_ASSIGNED_IN_LOOPS.names.append(frozenset(first))
    FIRST_ASSIGNED_IN_LOOPS.read_first.append(set())
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
        FIRST_ASSIGNED_IN_LOOPS.read_first.pop()


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
