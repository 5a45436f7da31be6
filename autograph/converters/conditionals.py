"""`if` / `elif` / `else` -> `ag__.if_stmt` with branch functions.

    if n % 2 == 0:                def if_true(n):
        n = n // 2                    n = n // 2
    else:                 =>          return n
        n = 3 * n + 1             def if_false(n):
                                      n = 3 * n + 1
                                      return n
                                  n = ag__.if_stmt(n % 2 == 0, if_true, if_false, (n,), ('n',))

- outputs: the variables a branch modifies that are live after the `if`;
- state (parameters of both branches): the outputs that a branch may leave unchanged,
  plus variables a branch modifies after reading them;
- a branch with nothing to do is `None` (it returns the state unchanged);
- an `if` whose branches end in `return` (after the jump restructuring) becomes
  `return ag__.if_stmt(...)`, and its branch functions keep their `return`s.
`elif` is an `if` nested in the `else` branch and converts the same way.
"""
from __future__ import annotations

import gast

from autograph.converters import control_flow as cf
from autograph.converters import jumps
from autograph.errors import ConversionError
from autograph.pyct import templates


def convert(node, ctx, taken: frozenset) -> list:
    returns = jumps.contains(node, (gast.Return,), True)
    mod_b, mod_o = cf.modified(node.body, ctx), cf.modified(node.orelse, ctx)
    live_out = node.ag_live_out | ctx.always_live
    mod = mod_b | mod_o
    if returns:
        outputs = []
    else:
        outputs = [n for n in mod if n in live_out or cf.is_carried(n, ctx)]
    extras = {n for n in mod_b if n in node.ag_live_body or cf.is_carried(n, ctx)} | \
        {n for n in mod_o if n in node.ag_live_orelse or cf.is_carried(n, ctx)}
    in_state = {n for n in outputs if not (n in mod_b and n in mod_o)} | extras
    outputs = cf.ordered(outputs, ctx)
    state = [n for n in outputs if n in in_state] + \
        cf.ordered(extras - set(outputs), ctx)
    _check_jumps(node, ctx)

    local = cf.local_names(state + outputs, ctx)
    params = [local[n] for n in state]
    rets = None if returns else [local[n] for n in outputs]
    taken_here = taken
    functions: list = []
    branch_names = []
    for label, block in (("if_true", node.body), ("if_false", node.orelse)):
        if cf.is_empty(block):
            branch_names.append(None)
            continue
        fname = ctx.namer.scoped(label, taken_here)
        taken_here = taken_here | {fname}
        block = cf.rename_composites(block, local)
        functions.extend(cf.make_function(fname, params, block, rets, node, ctx, taken))
        branch_names.append(fname)

    first = [node.test] + [templates.name_node(b) if b else gast.Constant(value=None, kind=None)
                           for b in branch_names]
    call = templates.replace_expr("ag__.if_stmt()", origin=node)
    call.args = cf.call_args(state, [] if returns else outputs, node, ctx, first)
    if returns:
        stmt = templates.replace("return value", origin=node, value=call)
    elif outputs:
        targets = [templates.set_ctx(cf.state_target(n), gast.Store) for n in outputs]
        stmt = templates.replace("targets = value", origin=node, targets=targets, value=call)
    else:
        stmt = templates.replace("value", origin=node, value=call)
    return functions + stmt


def _check_jumps(node, ctx) -> None:
    for kind, word in ((gast.Break, "break"), (gast.Continue, "continue")):
        if jumps.contains(node, (kind,), False):
            raise ConversionError(
                f"`{word}` here could not be converted (it is inside a `try` or `with` "
                "block); set a flag there and break/continue after the block",
                ctx.filename, node.lineno)
