"""`and`, `or`, `not` and chained comparisons -> lazy `ag__.and_` / `or_` / `not_`.

    if x > 0 and not done:        =>   if ag__.and_(x > 0, lambda: ag__.not_(done)):
    lo < x <= hi                  =>   ag__.and_(lo < x, lambda: x <= hi)

The first operand is evaluated directly, the others inside lambdas, so Python's short
circuit is kept (and becomes a `cond` when the first operand is symbolic). A chained
comparison repeats its middle operands, so it is only split when those are names,
attributes or constants (evaluating them twice is harmless); otherwise it stays as is.
"""
from __future__ import annotations

import gast

from autograph.pyct import templates, transformer

_SIMPLE = (gast.Name, gast.Constant, gast.Attribute)


def _bool_op(node, walk):
    fn = "and_" if isinstance(node.op, gast.And) else "or_"
    call = templates.replace_expr(f"ag__.{fn}(first)", origin=node, first=node.values[0])
    call.args.extend(templates.replace_expr("lambda: value", origin=v, value=v)
                     for v in node.values[1:])
    return call


def _unary_op(node, walk):
    if isinstance(node.op, gast.Not):
        return templates.replace_expr("ag__.not_(value)", origin=node, value=node.operand)
    return node


def _compare(node, walk):
    if len(node.ops) < 2 or not all(isinstance(c, _SIMPLE) for c in node.comparators[:-1]):
        return node
    parts, left = [], node.left
    for op, right in zip(node.ops, node.comparators):
        part = gast.Compare(left=left, ops=[op], comparators=[right])
        gast.copy_location(part, node)
        parts.append(part)
        left = templates.clone(right)
    call = templates.replace_expr("ag__.and_(first)", origin=node, first=parts[0])
    call.args.extend(templates.replace_expr("lambda: value", origin=p, value=p)
                     for p in parts[1:])
    return call


HANDLERS = {gast.BoolOp: _bool_op, gast.UnaryOp: _unary_op, gast.Compare: _compare}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
