"""`while` and `for` -> `ag__.while_stmt` / `ag__.for_stmt` with a loop-body function.

    while n != 1:                 def loop_body(n, steps):
        n = f(n)                      n = f(n)
        steps += 1        =>          steps += 1
                                      return n, steps
                                  n, steps = ag__.while_stmt(lambda n, steps: n != 1,
                                                  loop_body, (n, steps), ('n', 'steps'))

    for x in xs:                  def loop_body(x, s):
        s += x            =>          s += x
                                      return s
                                  s = ag__.for_stmt(xs, loop_body, (s,), ('s',))

The loop variables are the variables the body modifies that are live at the loop's
head (read by a later iteration, by the test, or after the loop). The `for` target is
the body's first parameter (a tuple target is unpacked from `itr`). A break flag
(`break_statements.py`) becomes `extra_test=lambda ...: not break_`, and
`ag.set_loop_options(...)` keywords are passed on.
"""
from __future__ import annotations

from typing import Callable

import gast

from autograph.converters import state_passing as sp
from autograph.pyct import anno, templates
from autograph.pyct.activity import target_names


def _loop_vars(node, ctx, extra: set = frozenset()) -> list:
    mod = sp.modified(node.body, ctx, node) | extra
    head = anno.get(node, anno.LIVE_HEAD) | ctx.out.always_live
    return sp.ordered([n for n in mod if n in head or sp.is_carried(n, ctx)], ctx)


def _lambda(params: list, expr, node):
    lam = templates.replace_expr("lambda params: expr", origin=node, params=params, expr=expr)
    return lam


def _finish(call, loop_vars, node, ctx, opts: dict):
    for key, value in opts.items():
        call.keywords.append(gast.keyword(arg=key, value=value))
    return sp.assign(loop_vars, call, node, ctx)


def convert_while(node, ctx, taken: frozenset, convert_block: Callable,
                  first_test=None) -> list:
    """The `while` loop `node` as a loop-body function and an `ag__.while_stmt` call; its
    body is converted by `convert_block` (the control-flow pass). `first_test`: the
    test's value already evaluated for the first iteration (`dual_path.py`)."""
    loop_vars = _loop_vars(node, ctx)
    local = sp.local_names(loop_vars, ctx)
    params = [local[n] for n in loop_vars]
    fname = ctx.namer.scoped("loop_body", taken)
    test = sp.rename_composites(node.test, local)
    prologue, outs = sp.write_through(loop_vars, loop_vars, local, node,
                                    ctx.scope.declared)
    fn = sp.make_function(fname, params, node.body, outs, node, ctx, taken, convert_block,
                          prologue=prologue)
    call = templates.replace_expr("ag__.while_stmt()", origin=node)
    call.args = sp.call_args(loop_vars, loop_vars, node, ctx,
                             [_lambda(params, test, node), templates.name_node(fname)])
    opts = dict(anno.get(node, anno.LOOP_OPTIONS, {}))
    if first_test is not None:
        opts["first_test"] = first_test
    return fn + _finish(call, loop_vars, node, ctx, opts)


def convert_for(node, ctx, taken: frozenset, convert_block: Callable) -> list:
    """The `for` loop `node` as a loop-body function and an `ag__.for_stmt` call; its
    body is converted by `convert_block` (the control-flow pass)."""
    targets = target_names(node.target)
    carried_targets = {t for t in targets if t in anno.get(node, anno.LIVE_OUT)}
    loop_vars = _loop_vars(node, ctx, carried_targets)
    local = sp.local_names(loop_vars, ctx)
    params = [local[n] for n in loop_vars]
    body = node.body
    target = node.target
    prologue, outs = sp.write_through(loop_vars, loop_vars, local, node,
                                    ctx.scope.declared)
    if isinstance(target, gast.Name) and target.id not in loop_vars:
        item = target.id
    else:
        item = ctx.namer.new("itr")
        body = templates.replace("target = itr", origin=node, target=target, itr=item) + body
    fname = ctx.namer.scoped("loop_body", taken)
    fn = sp.make_function(fname, [item] + params, body, outs, node, ctx, taken,
                          convert_block, prologue=prologue)
    call = templates.replace_expr("ag__.for_stmt()", origin=node)
    call.args = sp.call_args(loop_vars, loop_vars, node, ctx,
                             [node.iter, templates.name_node(fname)])
    opts = dict(anno.get(node, anno.LOOP_OPTIONS, {}))
    extra = anno.get(node, anno.EXTRA_TEST, None)
    if extra is not None:
        extra = sp.rename_composites(extra, local)
        call.keywords.append(gast.keyword(arg="extra_test", value=_lambda(params, extra, node)))
    return fn + _finish(call, loop_vars, node, ctx, opts)
