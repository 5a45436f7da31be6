"""Return statements: early returns anywhere, without changing Python semantics.

Outside loops, the jump restructuring (`jumps.py`) is enough: the code after an `if`
whose branch returns moves into the other branch, so every `return` ends an `if`-tree
and the conditional converter emits `return ag__.if_stmt(...)`:

    if x > 0:                      def if_true():
        return x                       return x
    return 0               =>      def if_false():
                                       return 0
                                   return ag__.if_stmt(x > 0, if_true, if_false)

A `return` inside a loop becomes a flag, a value and a `break` (the loop then stops on
the flag), and after the loop the function returns if the flag is set:

    for i in xs:                   do_return = False
        if p(i):                   retval_ = ag__.UNSET
            return i       =>      for i in xs:
    return -1                          if p(i):
                                           retval_ = i
                                           do_return = True
                                           break          # (then: the break converter)
                                   if do_return:
                                       return retval_
                                   return -1

After a nested loop the check is `if do_return: break` instead, so the enclosing loop
stops too. A `with` block that returns on some paths only gets the same flag and value
(the code after it cannot move into the block) and `if do_return: return retval_` after. `ag__.UNSET` marks "no value yet": symbolic branches and loops fill it in
with the type of the value that is returned.
"""
from __future__ import annotations

import gast

from autograph.converters import block_jumps, jumps
from autograph.pyct import anno, templates
from autograph.pyct.blocks import blocks, child_blocks
from autograph.pyct.naming import Namer

_LOOPS = (gast.For, gast.While)


def transform(fn_node, namer: Namer) -> None:
    """Returns inside loops -> flag, value and break (run before the break converter)."""
    flags: dict = {}
    fn_node.body = _block(fn_node.body, flags, namer, in_loop=False)


def restructure(fn_node, filename: str) -> None:
    """Make every return end an if-tree (run after the break converter)."""
    fn_node.body = jumps.restructure(fn_node.body, (gast.Return,), True, filename)


def _names(flags: dict, namer: Namer) -> tuple[str, str]:
    if not flags:
        flags["do_return"] = namer.new("do_return")
        flags["retval"] = namer.new("retval_")
    return flags["do_return"], flags["retval"]


def _block(stmts: list, flags: dict, namer: Namer, in_loop: bool) -> list:
    out: list = []
    for s in stmts:
        if isinstance(s, gast.Return) and in_loop:
            out.extend(_return_in_loop(s, flags, namer))
            continue
        # (a loop inside a `try` stays a Python loop, but its body may be inside a
        #  function (a loop body, a `with` block that returns): its returns break out
        #  of it too)
        if isinstance(s, _LOOPS) and jumps.contains(s, (gast.Return,), True):
            do_return, retval = _names(flags, namer)
            if not in_loop:
                out.extend(templates.replace(
                    "do_return = False\nretval_ = ag__.UNSET", origin=s,
                    do_return=do_return, retval_=retval))
            s.body = _block(s.body, flags, namer, in_loop=True)
            s.orelse = _block(s.orelse, flags, namer, in_loop)
            out.append(s)
            if in_loop:
                after = templates.replace("if do_return:\n    break", origin=s,
                                          do_return=do_return)
                anno.set_(after[0].body[0], anno.FLAG, do_return)
                anno.set_(after[0], anno.GENERATED, True)
            else:
                after = templates.replace("if do_return:\n    return retval_", origin=s,
                                          do_return=do_return, retval_=retval)
            for a in after:  # (its names too: a read may become `ag__.ld(do_return)`)
                templates.copy_location(a, s)
            out.extend(after)
            continue
        if isinstance(s, gast.With) and not in_loop and _sometimes_returns(s):
            out.extend(_return_in_with(s, flags, namer))
            continue
        if isinstance(s, (gast.If, gast.With, gast.Try, gast.Match)):
            for owner, field in blocks(s):
                setattr(owner, field, _block(getattr(owner, field), flags, namer, in_loop))
        out.append(s)
    return out


def _sometimes_returns(node) -> bool:
    return jumps.contains(node, (gast.Return,), True) and \
        not jumps.always_jumps(node.body, lambda s: isinstance(s, gast.Return))


def _return_in_with(node, flags: dict, namer: Namer) -> list:
    """A `with` block that returns on some paths only: the code after it cannot move into
    it (it would run inside the context), so its returns set the flag and value, and the
    function returns after the block if the flag is set."""
    do_return, retval = _names(flags, namer)
    init = templates.replace("do_return = False\nretval_ = ag__.UNSET", origin=node,
                             do_return=do_return, retval_=retval)
    node.body = _block(node.body, flags, namer, in_loop=False)
    # (a `try` inside: its returns set the flag, and what follows it runs `if not`)
    node.body = block_jumps.transform(node.body, block_jumps.ReturnFlags(do_return, retval),
                                      None)
    node.body = jumps.restructure(node.body, (gast.Return,), True, None)
    _returns_to_flag(node.body, do_return, retval)
    after = templates.replace("if do_return:\n    return retval_", origin=node,
                              do_return=do_return, retval_=retval)
    return init + [node] + after


def _returns_to_flag(block: list, do_return: str, retval: str) -> None:
    for s in block:
        for inner in child_blocks(s):
            _returns_to_flag(inner, do_return, retval)
    for k, s in enumerate(block):
        if isinstance(s, gast.Return):
            value = s.value if s.value is not None else gast.Constant(value=None, kind=None)
            block[k:k + 1] = templates.replace("retval_ = value\ndo_return = True", origin=s,
                                               retval_=retval, value=value,
                                               do_return=do_return)
            return


def _return_in_loop(node, flags: dict, namer: Namer) -> list:
    do_return, retval = _names(flags, namer)
    value = node.value if node.value is not None else gast.Constant(value=None, kind=None)
    stmts = templates.replace("retval_ = value\ndo_return = True\nbreak", origin=node,
                              retval_=retval, value=value, do_return=do_return)
    anno.set_(stmts[-1], anno.FLAG, do_return)
    return stmts
