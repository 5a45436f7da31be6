"""Whether a NumPy array that converted code writes functionally is seen by anything else.

Converted code turns `a[i] = v` into `a = ag__.setitem(a, i, v)`. A symbolic `v` (or a
write inside a symbolic `if`, where both branches are traced) cannot go into the NumPy
array's memory, so the written name is rebound to an updated copy. That is exact only
when nothing else sees that memory: no alias (`b = a`), no container (`[a]`), no object
(`self.w` read into `w`), no view (`r = a[0]`) and no base array (`a = c[1:]`).
Reference counts prove it, measured (`_calibrate*`) rather than assumed for the
interpreter. `setitem` raises `StateArrayWrite` otherwise; the trace turns that into a
retrace when the array is Python state (it then becomes a graph input whose aliases the
graph tracks), and shows it to the user when not.

Inside an `if` or a loop, the operators themselves hold the arrays their bodies may
write, so the verdicts for those are taken where `if_stmt` / `for_stmt` / `while_stmt`
receive their state (`enter_state`). A symbolic loop replaces such an array by a loop
variable, so a shared one is made to refuse writes in the body (`refuse_in_loop`).

    a = CONST * 1.0; a[0] = x[0]           # exact: `a` alone holds the array
    a = CONST * 1.0; b = a; a[0] = x[0]    # refused: `b` would not see the write
"""
from __future__ import annotations

import functools
import sys
import threading

import numpy as np

from runtime.core.errors import StateArrayWrite, where
from runtime.core.registry import trace_holders
from runtime.state import views


def _refs_seen(target, refs: int) -> int:
    return refs


def _refs_of_a_named_target(target, index, value, op=None) -> int:
    return _refs_seen(target, sys.getrefcount(target))  # the call form `setitem` uses


def _calibrate() -> int:
    """What `setitem` passes for an array one variable alone holds (the variable, the
    parameter, the pending call's argument and `getrefcount`'s own: 4 on CPython 3.11)."""
    held = np.empty(0)
    return _refs_of_a_named_target(held, 0, 0)


_NAMED = _calibrate()


def check(target: np.ndarray, refs: int) -> None:
    """Raise `StateArrayWrite` unless `target`, given `refs` = `sys.getrefcount(target)`
    as `setitem` computes it, is seen by the written name alone (or is the temporary
    `a[0]` of `a[0][1] = v`, whose parent `a` alone holds it and writes it back)."""
    if _STATES.frames:
        verdict = shared_in_state(target)
        if verdict is not None:
            if verdict:
                _refuse(target)
            return
    refs -= trace_holders(target)  # the trace's snapshots of what it read
    shared = refs > _NAMED
    temporary = refs < _NAMED
    x = target
    while not shared and x.base is not None:
        if not isinstance(x.base, np.ndarray):
            shared = True  # memory of a buffer (bytes, mmap) other code may read
            break
        # held by x's base pointer and `getrefcount`'s argument; the parent `a` of the
        # temporary `a[0]` also by its name and as the pending argument of the outer
        # `a = ag__.setitem(a, 0, ag__.setitem(a[0], 1, v), nested=True)`
        shared = sys.getrefcount(x.base) - trace_holders(x.base) > \
            (4 if temporary and x is target else 2)
        x = x.base
    if shared:
        _refuse(target)


def _refuse(target) -> None:
    raise StateArrayWrite(
        f"A value computed in the graph is written into a NumPy array{where()} "
        "that another name, view, container or object also holds (`b = a`, `r = a[0]`, "
        "`[a]`, `self.w`), and that the graph did not make: only the written name would "
        "see the write. Make the array inside the function with np.array(...), "
        "np.copy(...), .copy() or np.zeros(...) (the graph then tracks its aliases and "
        "views), compute a new value (`a = a + v`), or keep state in an ag.Variable.",
        target)


# -- state of `if` statements and loops ---------------------------------------------------
class _Frames(threading.local):
    def __init__(self):
        self.frames: list[dict] = []


_STATES = _Frames()


def _counts(state) -> list:
    return [sys.getrefcount(v) - trace_holders(v) if type(v) is np.ndarray else 0
            for v in state]


def _probe(cond, body, orelse, state=(), names=None) -> list:
    return _counts(state)  # the call form `if_stmt` uses


def _calibrate_state() -> int:
    """What `_counts` sees for an array one variable alone holds, passed in the state
    tuple converted code builds for `if_stmt` (and, alike, the loops)."""
    held = np.empty(0)
    return _probe(True, None, None, (held,), ("held",))[0]


_IN_STATE = _calibrate_state()


def enter_state(state) -> None:
    """Called by `if_stmt`, `for_stmt` and `while_stmt` while tracing, with the state
    tuple they received and before anything else holds its values: decide for each NumPy
    array in it (not decided by an enclosing statement) whether it is shared."""
    frame = {}
    for v, refs in zip(state, _counts(state)):
        if refs and shared_in_state(v) is None:
            frame[id(v)] = refs > _IN_STATE or v.base is not None
    _STATES.frames.append(frame)


def leave_state() -> None:
    _STATES.frames.pop()


def shared_in_state(target) -> bool | None:
    """Whether an array of an enclosing statement's state is shared (None: not one)."""
    key = id(target)
    for frame in _STATES.frames:
        if key in frame:
            return frame[key]
    return None


def refuse_in_loop(body, state, names, offset: int, where: str):
    """`body` of a symbolic loop, made to refuse writes into the loop variables that
    stand for shared NumPy arrays (the loop replaces them by graph values, which the
    other holders would not see)."""
    shared = [k for k, v in enumerate(state) if type(v) is np.ndarray and shared_in_state(v)]
    if not shared:
        return body

    def run(*args):
        for k in shared:
            views.refuse_writes(args[offset + k], functools.partial(
                StateArrayWrite,
                f"The symbolic loop at {where} writes in place into `{names[k]}`, a NumPy "
                "array that another name, view, container or object also holds (`b = a`, "
                "`[a]`, `self.w`) and that the graph did not make: the loop carries it as "
                "a graph value, which the other holders would not see. Make the array "
                "inside the function with np.array(...), .copy() or np.zeros(...), or "
                "assign a new value in the loop (`a = a + v`).", state[k]))
        return body(*args)
    return run
