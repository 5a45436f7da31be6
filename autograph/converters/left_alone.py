"""Definitions AutoGraph leaves as Python: generators, `async def` (coroutines and
async generators).

Their bodies run lazily or under an event loop, one step per `next` / `await`, which a
graph traced once cannot follow; so a nested one is left exactly as written (as a
top-level one is never converted), and the function around it is still converted. Each
left-alone definition is noted: `to_code` shows a comment above it, `autograph convert`
reports it as `file:line:col: note: ...`.

A generator *object* advanced by a symbolic loop (`next(g)` in a loop whose condition
is symbolic) would advance once while tracing, not once per iteration: that is the
error `operators.py_builtins.next_` raises.
"""
from __future__ import annotations

from typing import NamedTuple

import gast

from autograph.pyct import anno
from autograph.pyct.blocks import statements
from autograph.pyct.all_nodes import child_nodes

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


class Note(NamedTuple):
    """A definition left as Python: where (1-based line, 0-based column) and why."""
    lineno: int
    col: int
    name: str
    reason: str

    def text(self) -> str:
        return f"`{self.name}` is {self.reason}: left as Python (AutoGraph does not convert it)"


def reason(node) -> str | None:
    """Why a function definition must stay Python (None when it can be converted)."""
    yields = _own_yield(node)
    if isinstance(node, gast.AsyncFunctionDef):
        return "an async generator" if yields else "an async def (a coroutine)"
    if isinstance(node, gast.FunctionDef) and yields:
        return "a generator"
    return None


def _own_yield(node) -> bool:
    """`yield` / `yield from` in the function's own body (not in nested scopes)."""
    stack = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Yield, gast.YieldFrom)):
            return True
        if isinstance(n, _SCOPES):
            continue
        stack.extend(child_nodes(n))
    return False


def mark_nested(fn_node) -> list[Note]:
    """Mark the generators and async defs nested in `fn_node` (at any depth of its
    blocks, not inside other nested defs) as done - every later walk skips them - with
    a note for `to_code`; return the notes."""
    notes = []
    for s in statements(fn_node.body):
        if not isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)) or \
                anno.get(s, anno.DONE, False):
            continue
        why = reason(s)
        if why is None:
            continue
        note = Note(s.lineno, s.col_offset, s.name, why)
        anno.set_(s, anno.DONE, True)
        anno.set_(s, anno.NOTE, note.text())
        notes.append(note)
    return notes
