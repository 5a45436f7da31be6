"""List mutation inside control flow -> values the state-passing code can carry.

    xs.append(v)        =>   xs = ag__.list_append(xs, v)
    y = xs.pop()        =>   xs, y = ag__.list_pop(xs)

Only inside `if` / `while` / `for` bodies, where the list must become a variable the
branch or loop takes and returns (and, in a symbolic loop, a `runtime.TensorList`).
On Python lists the operators call the list methods, so aliasing is unchanged.
"""
from __future__ import annotations

import gast

from autograph.pyct import templates, transformer
from autograph.pyct.activity import qualified_name


def _method_call(value, method: str, ctx):
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
            value.func.attr == method and not value.keywords:
        qn = qualified_name(value.func.value)
        if qn is not None and ("." in qn or qn in ctx.scope.local):
            return value
    return None


def _expr(node, walk):
    if not walk.control:
        return node
    call = _method_call(node.value, "append", walk.ctx)
    if call is not None and len(call.args) == 1:
        walk.ctx.out.list_names.add(qualified_name(call.func.value))
        return templates.replace("xs = ag__.list_append(xs, v)", origin=node,
                                 xs=call.func.value, v=call.args[0])
    call = _method_call(node.value, "pop", walk.ctx)
    if call is not None and len(call.args) <= 1:
        out = templates.replace("xs, _ = ag__.list_pop(xs)", origin=node, xs=call.func.value)
        out[0].value.args.extend(call.args)
        return out
    return node


def _assign(node, walk):
    call = _method_call(node.value, "pop", walk.ctx)
    if not walk.control or call is None or len(call.args) > 1 or len(node.targets) != 1:
        return node
    out = templates.replace("xs, y = ag__.list_pop(xs)", origin=node,
                            xs=call.func.value, y=node.targets[0])
    out[0].value.args.extend(call.args)
    return out


HANDLERS = {gast.Expr: _expr, gast.Assign: _assign}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
