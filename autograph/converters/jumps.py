"""Restructuring blocks so that `return` / `break` / `continue` only end blocks.

Shared by the return, break and continue converters. The one rewrite: when a branch
of an `if` always jumps, the statements after the `if` can only run through the other
branch, so they move there:

    if x < 0:                    if x < 0:
        continue          =>         continue
    y = f(x)                     else:
                                     y = f(x)

When neither branch always jumps but one sometimes does, the rest is copied into both
(it then moves on to the branches' inner fall-through ends). Applied recursively, every
jump ends up as the last statement of an `if`-tree, so a `continue` there can be dropped,
a `break` becomes a flag assignment, and an `if` whose branches end in `return` becomes
`return ag__.if_stmt(...)` - no extra flags or guards for the common cases. A `match`
is a branch per case (plus "no case matched"): the rest moves into the cases that
fall through, and into an added `case _:`.
"""
from __future__ import annotations

from typing import Callable

import gast

from autograph.pyct.blocks import exhaustive, statements
from autograph.pyct.templates import clone

_LOOPS = (gast.For, gast.While, gast.AsyncFor)


def contains(node, kinds: tuple, enter_loops: bool) -> bool:
    """Whether `node` (a statement or list) has a statement of `kinds` that belongs to
    the current function (and, with enter_loops=False, to the current loop)."""
    stop = () if enter_loops else _LOOPS
    return any(isinstance(n, kinds) for n in statements(node, stop))


def always_jumps(block: list, is_jump: Callable) -> bool:
    if not block:
        return False
    last = block[-1]
    if is_jump(last):
        return True
    if isinstance(last, gast.If):
        return always_jumps(last.body, is_jump) and always_jumps(last.orelse, is_jump)
    if isinstance(last, gast.With):
        return always_jumps(last.body, is_jump)
    if isinstance(last, gast.Match):
        return exhaustive(last) and all(always_jumps(c.body, is_jump) for c in last.cases)
    return False


def restructure(stmts: list, kinds: tuple, enter_loops: bool, filename: str) -> list:
    """Move the statements after a (sometimes) jumping `if` into its non-jumping ends."""
    def is_jump(s):
        return isinstance(s, kinds)

    def has_jump(s):
        return contains(s, kinds, enter_loops)

    def ends(s):
        return isinstance(s, kinds) or isinstance(s, gast.Raise)

    out: list = []
    for i, s in enumerate(stmts):
        rest = stmts[i + 1:]
        if is_jump(s):
            out.append(s)
            return out
        if isinstance(s, gast.If) and has_jump(s):
            s.body = restructure(s.body, kinds, enter_loops, filename)
            s.orelse = restructure(s.orelse, kinds, enter_loops, filename)
            if rest:
                # a branch that always raises does not fall through either: the rest
                # must not be copied after its `raise` (dead code the analysis skips)
                bj, ej = always_jumps(s.body, ends), always_jumps(s.orelse, ends)
                if bj and not ej:
                    s.orelse = restructure(s.orelse + rest, kinds, enter_loops, filename)
                elif ej and not bj:
                    s.body = restructure(s.body + rest, kinds, enter_loops, filename)
                elif not bj and not ej:
                    s.body = restructure(s.body + clone(rest), kinds, enter_loops, filename)
                    s.orelse = restructure(s.orelse + rest, kinds, enter_loops, filename)
            out.append(s)
            return out
        if isinstance(s, gast.Match) and has_jump(s):
            out.append(_restructure_match(s, rest, is_jump, lambda b: restructure(
                b, kinds, enter_loops, filename)))
            return out
        if isinstance(s, gast.With) and has_jump(s):
            # the rest cannot move into a `with` block (it would run inside the context);
            # a jump inside a `with` or `try` stays a Python jump (converters reject it
            # where it would cross a generated function)
            s.body = restructure(s.body, kinds, enter_loops, filename)
        out.append(s)
    return out


def _restructure_match(node, rest: list, is_jump: Callable, again: Callable):
    """A `match` is an `if` with a branch per case (and one more, "no case matched",
    unless the last case always matches): the rest moves into every case that does not
    always jump, and into a `case _:` added for the no-match path."""
    for c in node.cases:
        c.body = again(c.body)
    if not rest:
        return node
    open_cases = [c for c in node.cases if not always_jumps(c.body, is_jump)]
    if not exhaustive(node):
        wildcard = gast.match_case(pattern=gast.MatchAs(pattern=None, name=None), guard=None,
                                   body=[])
        gast.copy_location(wildcard.pattern, node)
        node.cases.append(wildcard)
        open_cases.append(wildcard)
    for k, c in enumerate(open_cases):
        c.body = again(c.body + (rest if k == len(open_cases) - 1 else clone(rest)))
    return node


def pass_if_empty(block: list, origin) -> list:
    if block:
        return block
    node = gast.Pass()
    gast.copy_location(node, origin)
    return [node]
