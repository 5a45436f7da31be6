"""Why an error raised while tracing a branch of a symbolic `if` may surprise, added to
the error as a note (PEP 678) so its type - what user code catches - stays the same.

A symbolic condition is not known while tracing, so both branches are traced, also the
one the inputs would never take: `d["b"]` in a branch Python skips raises `KeyError`
here although the Python function raises nothing. The note names the user's `if` and
says how to make the code valid on both paths.
"""
from __future__ import annotations

from autograph.errors import Diagnostic

_MARK = "both branches are traced"


def traced_both_branches(error: BaseException) -> bool:
    """Whether `error` was raised in a branch only tracing took (it has the note)."""
    return any(_MARK in note for note in getattr(error, "__notes__", ()))


def note_branch_error(error: BaseException, side: str, where: str, what: str) -> None:
    """Add the note to `error`, raised while tracing the `side` ('true' / 'false') branch
    of the symbolic `what` at `where` ('file:line'). Only the innermost `if` adds one, and
    not to diagnostics, which already say where and why."""
    if isinstance(error, Diagnostic) or not isinstance(error, Exception):
        return
    if any(_MARK in note for note in getattr(error, "__notes__", ())):
        return
    note = (f"{where}: raised while tracing the {side} branch of this {what}. Its "
            f"condition is symbolic, so {_MARK}, also one these inputs may not take at "
            "run time. Make the code valid on both paths (e.g. `d.get(key)` instead of "
            "`d[key]`, a guard that is a Python value), or make the condition a Python "
            "value (a Python number or bool argument is one).")
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:  # Python 3.10: kept where 3.11 keeps it, though tracebacks do not print it
        error.__notes__ = [*getattr(error, "__notes__", ()), note]
