"""`if` / `elif` / `else` -> `ag__.if_stmt` with branch functions.

    if n % 2 == 0:                def if_true(n):
        n = n // 2                    n = n // 2
    else:                 =>          return n
        n = 3 * n + 1             def if_false(n):
                                      n = 3 * n + 1
                                      return n
                                  n = ag__.if_stmt(n % 2 == 0, if_true, if_false, (n,), ('n',))

- outputs: the variables a branch modifies that are live after the `if`;
- state (parameters of both branches): the outputs that a branch may leave unchanged
  (a branch that always raises leaves nothing), plus variables a branch modifies after
  reading them;
- a branch with nothing to do is `None` (it returns the state unchanged);
- an `if` whose branches end in `return` (after the jump restructuring) ends the
  function: it becomes `return ag__.if_stmt(...)`, and its branch functions keep their
  `return`s. Nothing local is live after it, but state that outlives the function is:
  attributes, `global` and `nonlocal` names a branch modifies are its outputs, which
  every `return` of a branch returns after the value (the name 'return' stands for the
  value in `names`):

      if amount > self.balance:          def if_true(self_balance):
          return False                       return False, self_balance
      self.balance -= amount      =>     def if_false(self_balance):
      return True                            self_balance -= amount
                                             return True, self_balance
                                         retval_, self.balance = ag__.if_stmt(
                                             amount > self.balance, if_true, if_false,
                                             (self.balance,), ('return', 'self.balance'))
                                         return retval_
`elif` is an `if` nested in the `else` branch and converts the same way.
"""
from __future__ import annotations

from typing import Callable

import gast

from autograph.converters import state_passing as sp
from autograph.converters import jumps
from autograph.errors import ConversionError
from autograph.pyct import anno, templates


def convert(node, ctx, taken: frozenset, convert_block: Callable) -> list:
    """The `if` statement `node` as branch functions and an `ag__.if_stmt` call; its
    branches are converted by `convert_block` (the control-flow pass)."""
    returns = jumps.contains(node, (gast.Return,), True)
    mod_b, mod_o = sp.modified(node.body, ctx, node), sp.modified(node.orelse, ctx, node)
    mod = mod_b | mod_o
    # after an `if` that returns only state outliving the function is live
    live_out = set() if returns else anno.get(node, anno.LIVE_OUT) | ctx.out.always_live
    outputs = [n for n in mod if n in live_out or sp.is_carried(n, ctx)]
    live_b, live_o = anno.get(node, anno.LIVE_BODY), anno.get(node, anno.LIVE_ORELSE)
    extras = {n for n in mod_b if n in live_b or sp.is_carried(n, ctx)} | \
        {n for n in mod_o if n in live_o or sp.is_carried(n, ctx)}
    # a branch that always raises never gives outputs: it needs no state to pass through
    raises_b, raises_o = _always_raises(node.body), _always_raises(node.orelse)
    in_state = {n for n in outputs
                if not ((n in mod_b or raises_b) and (n in mod_o or raises_o))} | extras
    outputs = sp.ordered(outputs, ctx)
    state = [n for n in outputs if n in in_state] + \
        sp.ordered(extras - set(outputs), ctx)
    _check_jumps(node, ctx)

    local = sp.local_names(state + outputs, ctx)
    params = [local[n] for n in state]
    prologue, rets = sp.write_through(state, outputs, local, node,
                                     ctx.scope.declared)
    taken_here = taken
    functions: list = []
    branch_names = []
    for label, block in (("if_true", node.body), ("if_false", node.orelse)):
        if sp.is_empty(block):
            branch_names.append(None)
            continue
        fname = ctx.namer.scoped(label, taken_here)
        taken_here = taken_here | {fname}
        functions.extend(sp.make_function(fname, params, block, rets, node, ctx, taken,
                                          convert_block, returning=returns,
                                          prologue=prologue))
        branch_names.append(fname)

    first = [node.test] + [templates.name_node(b) if b else gast.Constant(value=None, kind=None)
                           for b in branch_names]
    call = templates.replace_expr("ag__.if_stmt()", origin=node)
    if returns and not outputs:
        call.args = sp.call_args(state, [], node, ctx, first)
        return functions + templates.replace("return value", origin=node, value=call)
    if returns:
        call.args = sp.call_args(state, ["return"] + outputs, node, ctx, first)
        retval = ctx.namer.new("retval_")
        return functions + sp.assign([retval] + outputs, call, node, ctx) + \
            templates.replace("return retval_", origin=node, retval_=retval)
    call.args = sp.call_args(state, outputs, node, ctx, first)
    return functions + sp.assign(outputs, call, node, ctx)


def _always_raises(block: list) -> bool:
    return jumps.always_jumps(block, lambda s: isinstance(s, gast.Raise))


def _check_jumps(node, ctx) -> None:
    for kind, word in ((gast.Break, "break"), (gast.Continue, "continue")):
        if jumps.contains(node, (kind,), False):
            raise ConversionError(
                f"`{word}` here could not be converted (it is inside a `try` or `with` "
                "block); set a flag there and break/continue after the block",
                ctx.info.filename, node.lineno)
