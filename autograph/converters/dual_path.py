"""Dual-path control flow: the original statement inline for Python values, the functional
form (`conditionals.py`, `loops.py`) only for symbolic ones.

Converted code mostly runs on Python values (`autograph convert`, `ag.to_graph`, and the
Python parts of every trace). There an `if` that builds two closures and calls
`ag__.if_stmt` costs ten times the `if` itself, so each `if`, `while` and `for` first asks
one cheap question of its already evaluated test or iterable:

    if n % 2 == 0:                cond = n % 2 == 0
        n = n // 2                if cond.__class__ is bool or not ag__.symbolic(cond):
    else:                 =>          if cond:
        n = 3 * n + 1                     n = n // 2
                                      else:
                                          n = 3 * n + 1
                                  else:
                                      def if_true(n): ...
                                      n = ag__.if_stmt(cond, if_true, if_false, (n,), ('n',))

    while n != 1:                 while (cond := n != 1).__class__ is bool or \\
        n = f(n)          =>              not ag__.symbolic(cond):
                                      if not cond:
                                          break
                                      n = f(n)
                                  else:   # the test turned symbolic: hand over from here
                                      def loop_body(n): ...
                                      n = ag__.while_stmt(..., first_test=cond)

    for x in xs:                  iterable = xs
        s += x            =>      if ag__.python_iterable(iterable, False):
                                      for x in (iterable, iterable := None)[0]:
                                          s += x
                                  else:
                                      def loop_body(x, s): ...
                                      s = ag__.for_stmt(iterable, loop_body, (s,), ('s',))

The test (iterable) is evaluated once, by the statement, and handed to whichever path
runs. A bool is recognised without a call; anything else asks `ag__.symbolic`, the
operators' own test (`operators/conditionals.py`). A `while` whose test turns symbolic in
iteration k leaves the inline loop through its `else` and hands its current state to
`while_stmt`, as the functional loop itself did. A `for` runs inline outside a trace and,
inside one, over an iterable that is neither symbolic nor a range that may roll, when
it has no break / return flag that might turn symbolic mid-way
(`operators/loops.python_iterable`).

Nested blocks of the inline path are dual-path again; those inside the functional
form are functional only (as before), so the code grows linearly with nesting depth,
not exponentially. Loops with `ag.set_loop_options(...)` stay functional (their limits
apply to Python loops too).
"""
from __future__ import annotations

from typing import Callable

import gast

from autograph.converters import conditionals, loops
from autograph.converters.logical_expressions import functional_only
from autograph.pyct import anno, templates

_PLAIN_TEST = "cond.__class__ is bool or not ag__.symbolic(cond)"


def convert_if(node, ctx, taken: frozenset, dual_block: Callable,
               functional_block: Callable) -> list:
    """`node` as `cond = test; if <cond is Python>: <node inline> else: <functional>`."""
    inline = templates.clone(node)
    # a name is tested as it is (reading it again is harmless), anything else once
    named = isinstance(node.test, gast.Name)
    cond = node.test.id if named else ctx.namer.new("cond")
    node.test = templates.name_node(cond)
    functional = _functional(conditionals.convert(node, ctx, taken, functional_block))
    # (a name tested keeps its node: its location is the test's, `fast_tests` reads it)
    test, inline.test = inline.test, inline.test if named else templates.name_node(cond)
    inline.body = dual_block(inline.body, ctx, taken)
    inline.orelse = dual_block(inline.orelse, ctx, taken)
    evaluate = [] if named else templates.replace("cond = test", origin=inline, cond=cond,
                                                  test=test)
    for stmt in evaluate:  # (generated: the compiled form tests `test` in its place)
        anno.set_(stmt, anno.DUAL, True)
    return evaluate + templates.replace(f"if {_PLAIN_TEST}:\n    inline\nelse:\n    functional",
                                        origin=inline, cond=cond, inline=[inline],
                                        functional=functional)


def convert_while(node, ctx, taken: frozenset, dual_block: Callable,
                  functional_block: Callable) -> list:
    """`node` as an inline `while` whose `else` hands over to `while_stmt`."""
    if anno.get(node, anno.LOOP_OPTIONS, None) or node.orelse:
        return loops.convert_while(node, ctx, taken, functional_block)
    cond = ctx.namer.new("cond")
    inline = templates.clone(node)
    functional = _functional(loops.convert_while(node, ctx, taken, functional_block,
                                                 first_test=templates.name_node(cond)))
    body = templates.replace("if not cond:\n    break", origin=inline, cond=cond) + \
        dual_block(inline.body, ctx, taken)
    test = templates.replace_expr("(cond := test).__class__ is bool or "
                                  "not ag__.symbolic(cond)", origin=inline, cond=cond,
                                  test=inline.test)
    loop = gast.copy_location(gast.While(test=test, body=body, orelse=functional), inline)
    anno.set_(loop, anno.MUST_IN, anno.get(inline, anno.MUST_IN, frozenset()))
    return [loop]


def convert_for(node, ctx, taken: frozenset, dual_block: Callable,
                functional_block: Callable) -> list:
    """`node` as `iterable = iter; if <iterable is Python>: <for inline> else: <for_stmt>`."""
    if anno.get(node, anno.LOOP_OPTIONS, None) or node.orelse:
        return loops.convert_for(node, ctx, taken, functional_block)
    extra = anno.get(node, anno.EXTRA_TEST, None)
    iterable = ctx.namer.new("iterable")
    inline = templates.clone(node)
    inline_extra = templates.clone(extra) if extra is not None else None
    node.iter = templates.name_node(iterable)
    functional = _functional(loops.convert_for(node, ctx, taken, functional_block))
    body = dual_block(inline.body, ctx, taken)
    if inline_extra is not None:
        body = body + templates.replace("if stop:\n    break", origin=inline,
                                        stop=_stop(inline_extra))
    # the inline loop takes the iterable from the temporary and empties it, so the frame
    # holds it no longer than Python's `for` does (its stack): after the loop, or when
    # `iter()` or the body raises, a generator or coroutine is freed as in Python
    release = templates.replace_expr("(iterable, iterable := None)[0]", origin=inline,
                                     iterable=iterable)
    source, inline.iter, inline.body = inline.iter, release, body
    flagged = gast.Constant(value=extra is not None, kind=None)
    return templates.replace(
        "iterable = source\nif ag__.python_iterable(iterable, flagged):\n    inline\n"
        "else:\n    functional", origin=inline, iterable=iterable, source=source,
        flagged=flagged, inline=[inline], functional=functional)


def _functional(stmts: list) -> list:
    """The functional form with the functional side of each dual expression in it."""
    return [functional_only(s) for s in stmts]


def _stop(extra):
    """When the inline loop stops: `flag` for the extra test `ag__.not_(flag)` (inline,
    the flag is a Python bool), else `not extra`."""
    if isinstance(extra, gast.Call) and isinstance(extra.func, gast.Attribute) and \
            extra.func.attr == "not_" and len(extra.args) == 1 and \
            isinstance(extra.args[0], gast.Name):
        return extra.args[0]
    return gast.UnaryOp(op=gast.Not(), operand=extra)
