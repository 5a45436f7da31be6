"""`if_stmt` and `if_exp`: Python `if` on Python values, `runtime.cond` on symbolic ones.

Generated code calls

    x, y = ag__.if_stmt(cond, if_true, if_false, (x, y), ('x', 'y'))
    return ag__.if_stmt(cond, if_true, if_false)        # both branches return

Branch functions take the state (the variables a branch may leave unchanged or reads
before writing) and return the outputs (`names`: one value bare, several as a tuple).
A missing branch (None) returns its state unchanged. Without `names` the `if` ends the
function and its value is what the branch returns; an `if` that ends the function and
also updates state outliving it (`self.balance`, a global) has 'return' first in `names`:
its branches return `(value, outputs...)`.

On a symbolic condition both branches are traced into a `cond` node. Diagnostics name
the variable and the user's line: a variable defined in only one branch, or a branch
that returns a value while the other falls through. `UNSET` (a `return` value not set
yet) takes the type of the value the other branch gives it.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from autograph.errors import Diagnostic, caller_location
from autograph.operators.branch_notes import note_branch_error
from autograph.operators.variables import UNSET, is_undefined


def is_symbolic(x) -> bool:
    from runtime import Tensor

    return isinstance(x, Tensor)


def pack(values: tuple, names):
    """Outputs as generated code expects them: None, one bare value or a tuple."""
    if names is None:
        return values[0] if values else None
    if len(names) == 1:
        return values[0]
    return tuple(values) if names else None


def unpack(out, names) -> tuple:
    if names is None or len(names) == 1:
        return (out,)
    if not names:
        return ()
    return tuple(out)


RETURN = "return"   # in `names`: the value the function returns (never a variable name)


def _returns(names) -> bool:
    return bool(names) and names[0] == RETURN


def _identity(state: tuple, names):
    """What a missing branch gives: the state unchanged (and no return value)."""
    if names is None:
        return None
    if _returns(names):
        return pack((None,) + state[:len(names) - 1], names)
    return pack(state[:len(names)], names)


def _labels(names) -> list:
    if names is None:
        return [_RETURN_LABEL]
    return [_RETURN_LABEL if n == RETURN and k == 0 else n for k, n in enumerate(names)]


_RETURN_LABEL = "the return value"


def if_stmt(cond, body: Callable | None, orelse: Callable | None, state: Sequence = (),
            names: Sequence[str] | None = None):
    """`if cond: body else: orelse`, passing `state` in and returning the outputs."""
    if is_symbolic(cond):
        return _symbolic_if(cond, body, orelse, tuple(state), names, caller_location())
    if cond:
        return body(*state) if body is not None else _identity(tuple(state), names)
    return orelse(*state) if orelse is not None else _identity(tuple(state), names)


def if_exp(cond, if_true: Callable, if_false: Callable):
    """`if_true() if cond else if_false()`, lazily; a `cond` node when symbolic."""
    if is_symbolic(cond):
        return _symbolic_if(cond, lambda: if_true(), lambda: if_false(), (), None,
                            caller_location(), what="conditional expression")
    return if_true() if cond else if_false()


# -- symbolic -----------------------------------------------------------------------------
def _symbolic_if(cond, body, orelse, state, names, loc, what="`if`"):
    import runtime

    where = f"{loc[0]}:{loc[1]}"
    record: dict = {}
    hints: dict = {}
    labels = _labels(names)
    for attempt in range(2):
        record.clear()
        true_fn = _branch(body, "true", state, names, labels, record, hints, where, what)
        false_fn = _branch(orelse, "false", state, names, labels, record, hints, where, what)
        try:
            out = runtime.cond(cond, true_fn, false_fn, state,
                               names=labels if names else None)
        except (ValueError, TypeError) as e:
            if isinstance(e, Diagnostic) or attempt or not _learn(record, hints):
                raise
            continue
        if names is None:
            return out[0]
        return pack(out, names)
    raise AssertionError("unreachable")


def _branch(fn, side, state, names, labels, record, hints, where, what):
    def run(*args):
        try:
            out = fn(*args) if fn is not None else _identity(args, names)
        except Exception as e:
            note_branch_error(e, side, where, what)
            raise
        outs = list(unpack(out, names))
        record[side] = tuple(outs)
        if side == "false":
            _check(record["true"], outs, labels, where, what)
            for k, v in enumerate(outs):
                other = record["true"][k]
                if v is UNSET and other is not UNSET:
                    outs[k] = zeros_like(other)
                elif is_undefined(v) and is_undefined(other):
                    outs[k] = other
        for k, v in enumerate(outs):
            if v is UNSET and k in hints:
                outs[k] = hints[k]
        return tuple(outs)
    return run


def _check(a: tuple, b: list, labels, where, what):
    for label, x, y in zip(labels, a, b):
        if is_undefined(x) != is_undefined(y):
            side, other = ("true", "false") if is_undefined(y) else ("false", "true")
            raise Diagnostic(
                f"{where}: '{label}' is defined in the {side} branch of this {what} but not "
                f"in the {other} branch, and is used after it. The condition is symbolic, "
                f"so both branches must define it: give '{label}' a value before the "
                f"{what} or in the {other} branch too.")
        if label == _RETURN_LABEL and (x is None) != (y is None):
            side = "true" if x is not None else "false"
            other = "false" if side == "true" else "true"
            raise Diagnostic(
                f"{where}: the {side} branch of this symbolic {what} returns a value but the "
                f"{other} branch falls through without one (it would return None). Add a "
                f"`return` with a value of the same type at the end of the {other} branch.")


def _learn(record: dict, hints: dict) -> bool:
    """After a failed attempt: UNSET outputs take the type of the other branch's value."""
    a, b = record.get("true"), record.get("false")
    if a is None or b is None:
        return False
    learned = False
    for k, (x, y) in enumerate(zip(a, b)):
        if x is UNSET and y is not UNSET:
            hints[k] = zeros_like(y)
            learned = True
    return learned


def zeros_like(value):
    """A stand-in value with the structure, dtype and (known) shape of `value`."""
    from runtime import Tensor

    if isinstance(value, tuple):
        return tuple(zeros_like(v) for v in value)
    if isinstance(value, list):
        return [zeros_like(v) for v in value]
    if isinstance(value, dict):
        return {k: zeros_like(v) for k, v in value.items()}
    if isinstance(value, Tensor):
        return np.zeros(tuple(0 if d is None else d for d in value.shape), value.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.zeros_like(value)
    if isinstance(value, (bool, int, float, complex)):
        return type(value)(0)
    return value
