"""`break` / `continue` (and `return`, already a flag and a `break` by then) inside a
`try` or `with` block of a loop body.

A loop body becomes a function, so its jumps become flags; a jump inside a `try` or
`with` cannot move the statements after the block into the block (they would run
inside the context or under the handlers), so the jump sets a flag, the rest of the
block is skipped (it moves into the non-jumping ends of the block's if-trees), and the
statements after the block run under `if not flag:`. The block itself ends normally,
so `finally` and `__exit__` run exactly where Python runs them:

    for x in xs:                       break_ = False
        try:                           for x in xs:           # (`not break_` stops it)
            if x < 0:                      continue_ = False
                break                      try:
            y = f(x)           =>              if x < 0:
        finally:                                   break_ = True
            log(x)                             else:
        use(y)                                     y = f(x)
                                           finally:
                                               log(x)
                                           if not (break_ or continue_):
                                               use(y)

A `try`'s `else:` runs under the same guard (a jump out of the body skips it in
Python). A jump inside `finally` (which would swallow an exception in flight) is a
ConversionError at its line.
"""
from __future__ import annotations

import gast

from autograph.converters import jumps
from autograph.errors import ConversionError
from autograph.pyct import anno, templates
from autograph.pyct.blocks import blocks, child_blocks
from autograph.pyct.naming import Namer

_LOOPS = (gast.For, gast.While)
_JUMPS = (gast.Break, gast.Continue)
_BLOCKS = (gast.Try, gast.With)


class Flags:
    """The flags of one loop: `break_` (created on first use; the loop's break flag) and
    `continue_` (reset at the start of each iteration)."""

    kinds = _JUMPS

    def __init__(self, namer: Namer):
        self.namer = namer
        self.break_: str | None = None
        self.continue_: str | None = None

    def of(self, jump) -> str:
        if isinstance(jump, gast.Break):
            if self.break_ is None:
                self.break_ = self.namer.new("break_")
            return self.break_
        if self.continue_ is None:
            self.continue_ = self.namer.new("continue_")
        return self.continue_

    def set_(self, jump) -> list:
        return templates.replace("flag = True", origin=jump, flag=self.of(jump))


class ReturnFlags:
    """`return` inside a `try` of a `with` block that returns on some paths only
    (`return_statements.py`): the return sets the value and `do_return`."""

    kinds = (gast.Return,)

    def __init__(self, do_return: str, retval: str):
        self.do_return, self.retval = do_return, retval

    def of(self, jump) -> str:  # noqa: ARG002 - one flag for every return
        return self.do_return

    def set_(self, jump) -> list:
        value = jump.value if jump.value is not None else gast.Constant(value=None, kind=None)
        return templates.replace("retval_ = value\ndo_return = True", origin=jump,
                                 retval_=self.retval, value=value, do_return=self.do_return)


def transform(body: list, flags, filename: str) -> list:
    """The block (a loop body, or a `with` block's with `ReturnFlags`) with the jumps
    inside its `try` / `with` blocks turned into flags (nothing changes when there are
    none). Then `flags.break_` is the loop's break flag; the caller initialises it
    before the loop."""
    if not any(_jumping_block(s, flags.kinds) for s in _own(body)):
        return body
    body = _block(body, flags, filename)
    if getattr(flags, "continue_", None) is not None:
        body = templates.replace("flag = False", origin=body[0], flag=flags.continue_) + body
    return body


def _own(block):
    """The statements of `block` (a list or a statement) whose jumps belong to the loop
    being converted: not inside nested loops - except their `else:` (a loop inside a
    `try` stays a Python loop, and a `break` in its `else:` leaves the outer loop)."""
    stack = list(block) if isinstance(block, list) else [block]
    while stack:
        s = stack.pop()
        yield s
        if isinstance(s, _LOOPS):
            stack.extend(s.orelse)
        else:
            for b in child_blocks(s):
                stack.extend(b)


def _jumps_of(s, kinds: tuple) -> list:
    return [j for j in _own(s) if isinstance(j, kinds)]


def _jumping_block(s, kinds: tuple) -> bool:
    """A `try` / `with` (or a Python loop's `else:`) holding jumps of the loop."""
    if isinstance(s, _LOOPS):
        return bool(_jumps_of(s.orelse, kinds))
    return isinstance(s, _BLOCKS) and bool(_jumps_of(s, kinds))


def _contains_jumping_block(s, kinds: tuple) -> bool:
    return any(_jumping_block(n, kinds) for n in _own(s))


def _block(stmts: list, flags: Flags, filename: str) -> list:
    """Rewrite `stmts`: the first statement holding a jumping `try` / `with` is rewritten,
    and the statements after it go under `if not <its flags>:`."""
    out: list = []
    for i, s in enumerate(stmts):
        if not _contains_jumping_block(s, flags.kinds):
            out.append(s)
            continue
        used: set = set()
        if _jumping_block(s, flags.kinds):
            _rewrite_jumping(s, flags, used, filename)
        else:  # an `if` / `match` / block around one: its blocks in turn
            for owner, field in blocks(s):
                setattr(owner, field, _block_collect(getattr(owner, field), flags, used,
                                                     filename))
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            out.extend(_guarded(_block(rest, flags, filename), used, s))
        return out
    return out


def _block_collect(stmts: list, flags: Flags, used: set, filename: str) -> list:
    """`_block`, recording the flags the rewritten statements may set in `used`."""
    for s in _own(stmts):
        if _jumping_block(s, flags.kinds):
            used.update(flags.of(j) for j in _jumps_of(s, flags.kinds))
    return _block(stmts, flags, filename)


def _rewrite_jumping(node, flags: Flags, used: set, filename: str) -> None:
    """A `try` / `with` whose blocks jump: each jump sets its flag and ends its if-tree."""
    if isinstance(node, gast.Try):
        for s in _jumps_of(node.finalbody, flags.kinds):
            word = "continue" if isinstance(s, gast.Continue) else "return" if \
                isinstance(s, gast.Return) or anno.get(s, anno.FLAG, None) else "break"
            raise ConversionError(
                f"`{word}` inside `finally` is not supported (it would discard an "
                "exception in flight): set a flag in the `finally` block and "
                f"{word} after the `try` statement", filename, s.lineno, s.col_offset)
        body_flags: set = set()
        node.body = _inner(node.body, flags, body_flags, filename)
        for h in node.handlers:
            h.body = _inner(h.body, flags, used, filename)
        used |= body_flags
        if node.orelse:  # a jump out of the body skips `else:`
            node.orelse = _guarded(_inner(node.orelse, flags, used, filename), body_flags,
                                   node)
    elif isinstance(node, _LOOPS):  # a Python loop in a `try`: its `else:` jumps
        node.orelse = _inner(node.orelse, flags, used, filename)
    else:
        node.body = _inner(node.body, flags, used, filename)


def _inner(stmts: list, flags: Flags, used: set, filename: str) -> list:
    """A block inside a jumping `try` / `with`: nested blocks first, then each jump
    ends an if-tree and becomes its flag assignment."""
    stmts = _block_collect(stmts, flags, used, filename)
    stmts = jumps.restructure(stmts, flags.kinds, False, filename)
    return _set_flags(stmts, flags, used)


def _set_flags(stmts: list, flags: Flags, used: set) -> list:
    out = []
    for s in stmts:
        if isinstance(s, flags.kinds):
            used.add(flags.of(s))
            out.extend(flags.set_(s))
            continue
        if isinstance(s, _LOOPS):
            s.orelse = _set_flags(s.orelse, flags, used)
        else:
            for owner, field in blocks(s):
                setattr(owner, field, jumps.pass_if_empty(
                    _set_flags(getattr(owner, field), flags, used), owner))
        out.append(s)
    return out


def _guarded(stmts: list, used: set, origin) -> list:
    if not used or not stmts:
        return stmts
    names = sorted(used)
    test = templates.name_node(names[0]) if len(names) == 1 else \
        gast.BoolOp(op=gast.Or(), values=[templates.name_node(n) for n in names])
    templates.copy_location(test, origin)
    return templates.replace("if not test:\n    body", origin=origin, test=test, body=stmts)
