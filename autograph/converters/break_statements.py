"""`break`, `continue` and loop `else`: flags and restructured bodies.

Each loop body is first restructured (`jumps.py`) so every jump ends an `if`-tree.
Then a `continue` there is simply dropped (the iteration ends anyway), and a `break`
sets a flag that the loop tests before each iteration:

    while n > 1:                     break_ = False
        if n == 7:                   while not break_ and n > 1:
            break            =>          if n == 7:
        n -= 1                               break_ = True
                                         else:
                                             n -= 1

For `for` loops the test is kept on the node (`ag_extra_test`) and becomes the
`extra_test` of `ag__.for_stmt`. A loop whose breaks all come from `return` (see
`return_statements.py`) uses `do_return` as its flag. A loop `else:` runs when the loop
ends without a break: it moves after the loop, as `if not break_:` when there are
breaks. Jumps inside a `try` or `with` block set flags first (`block_jumps.py`). Loops
are processed innermost first.
"""
from __future__ import annotations

import gast

from autograph.converters import block_jumps, jumps
from autograph.pyct import anno, templates
from autograph.pyct.blocks import blocks, statements
from autograph.pyct.naming import Namer

_LOOPS = (gast.For, gast.While)
_JUMPS = (gast.Break, gast.Continue)


def transform(fn_node, namer: Namer, filename: str) -> None:
    """Convert the loops in a function's body."""
    fn_node.body = _block(fn_node.body, namer, filename)


def _block(stmts: list, namer: Namer, filename: str) -> list:
    out = []
    for s in stmts:
        if anno.get(s, anno.PYTHON_ONLY, False):
            out.append(s)  # loops in `try` blocks stay Python
            continue
        for owner, field in blocks(s):  # inner loops first (nested scopes have none)
            setattr(owner, field, _block(getattr(owner, field), namer, filename))
        if isinstance(s, _LOOPS):
            out.extend(_loop(s, namer, filename))
        else:
            out.append(s)
    return out


def _loop(node, namer: Namer, filename: str) -> list:
    before: list = []
    block_flags = block_jumps.Flags(namer)  # jumps inside `try` / `with` blocks
    node.body = block_jumps.transform(node.body, block_flags, filename)
    node.body = jumps.restructure(node.body, _JUMPS, False, filename)
    breaks = _breaks(node.body)
    flag = None
    if breaks or block_flags.break_:
        kinds = {anno.get(b, anno.FLAG, None) for b in breaks}
        if block_flags.break_:
            flag = block_flags.break_
            before = templates.replace("flag = False", origin=node, flag=flag)
        elif len(kinds) == 1 and None not in kinds:
            flag = kinds.pop()
        else:
            flag = namer.new("break_")
            before = templates.replace("flag = False", origin=node, flag=flag)
        if isinstance(node, gast.While):
            test = templates.replace_expr("not flag", origin=node, flag=flag)
            node.test = gast.BoolOp(op=gast.And(), values=[test, node.test])
            gast.copy_location(node.test, node)
        else:  # not seen by the expression converters: written converted
            anno.set_(node, anno.EXTRA_TEST,
                      templates.replace_expr("ag__.not_(flag)", origin=node, flag=flag))
    node.body = jumps.pass_if_empty(_strip(node.body, flag, filename), node)
    after = node.orelse
    node.orelse = []
    if after and flag is not None:
        after = templates.replace("if not flag:\n    orelse", origin=node, flag=flag,
                                  orelse=after)
    return before + [node] + after


def _breaks(block: list) -> list:
    return [s for s in statements(block, _LOOPS) if isinstance(s, gast.Break)]


def _strip(block: list, flag, filename: str) -> list:
    """Drop the (tail) `continue`s; turn each `break` into `flag = True`."""
    out = []
    for s in block:
        if isinstance(s, gast.Continue):
            continue
        if isinstance(s, gast.Break):
            if anno.get(s, anno.FLAG, None) != flag:
                out.extend(templates.replace("flag = True", origin=s, flag=flag))
            continue
        if isinstance(s, gast.If):
            s.body = jumps.pass_if_empty(_strip(s.body, flag, filename), s)
            s.orelse = _strip(s.orelse, flag, filename)
            if anno.get(s, anno.GENERATED, False) and _is_pass(s.body) and not s.orelse:
                continue  # `if do_return: break` where the break is the flag itself
        elif isinstance(s, gast.Match):
            for c in s.cases:
                c.body = jumps.pass_if_empty(_strip(c.body, flag, filename), c.pattern)
        out.append(s)  # (`try` / `with` blocks hold no jumps: `block_jumps.py`)
    return out


def _is_pass(block: list) -> bool:
    return all(isinstance(s, gast.Pass) for s in block)
