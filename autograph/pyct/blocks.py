"""The statement lists inside compound statements, in one place for every walker.

`if` / `for` / `while` (body, orelse), `with` (body), `try` (body, handlers, orelse,
finalbody) and `match` (the body of each case) hold statement lists; the converters and
the analysis walk and rewrite them through `blocks` / `statements` instead of each
listing the fields. `match` is Python's multi-way branch: `exhaustive` tells whether
one of its cases always matches (otherwise "no case matched" is one more path).
"""
from __future__ import annotations

from typing import Iterator

import gast

# nested scopes, by class name: the helpers work on `ast` trees too (`impl/static.py`)
_SCOPES = frozenset({"FunctionDef", "AsyncFunctionDef", "ClassDef", "Lambda"})
_ORDER = ("body", "cases", "handlers", "orelse", "finalbody")
_FIELDS: dict = {}  # node class -> its block fields, in source order


def _fields(cls) -> tuple:
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = () if cls.__name__ in _SCOPES else \
            tuple(f for f in _ORDER if f in cls._fields)
        _FIELDS[cls] = fields
    return fields


def blocks(stmt) -> list[tuple]:
    """(owner, field) of every statement list directly inside the statement `stmt`, in
    source order: `getattr(owner, field)` reads one, `setattr` replaces it."""
    out = []
    for f in _fields(type(stmt)):
        v = getattr(stmt, f)
        if f in ("cases", "handlers"):
            out += [(c, "body") for c in v]
        elif v and isinstance(v, list):
            out.append((stmt, f))
    return out


def child_blocks(stmt) -> list[list]:
    """The statement lists directly inside `stmt` (none for a nested def or class)."""
    fields = _fields(type(stmt))
    if not fields:
        return []
    return [getattr(owner, field) for owner, field in blocks(stmt)]


def statements(block, stop: tuple = ()) -> Iterator:
    """Every statement of `block` (a statement or a list), nested blocks included, but not
    inside nested scopes (their `def` / `class` statement itself is yielded) nor inside
    statements of the types `stop` (yielded, not entered)."""
    stack = list(block) if isinstance(block, list) else [block]
    while stack:
        s = stack.pop()
        yield s
        if not isinstance(s, stop):
            for b in child_blocks(s):
                stack.extend(b)


def is_irrefutable(pattern) -> bool:
    """Whether a `case` pattern matches every subject (`_`, a bare capture name)."""
    if isinstance(pattern, gast.MatchAs):
        return pattern.pattern is None or is_irrefutable(pattern.pattern)
    if isinstance(pattern, gast.MatchOr):
        return any(is_irrefutable(p) for p in pattern.patterns)
    return False


def exhaustive(match) -> bool:
    """Whether some case of a `match` always runs (its last case is `case _:` or a
    capture, without a guard)."""
    last = match.cases[-1] if match.cases else None
    return last is not None and last.guard is None and is_irrefutable(last.pattern)
