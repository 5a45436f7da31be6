"""`and`, `or`, `not` and chained comparisons -> lazy `ag__.and_` / `or_` / `not_`.

    if x > 0 and not done:        =>   if ag__.and_(x > 0, lambda: ag__.not_(done)):
    lo < x <= hi                  =>   ag__.and_(lo < x, lambda: x <= hi)

The first operand is evaluated directly, the others inside lambdas, so Python's short
circuit is kept (and becomes a `cond` when the first operand is symbolic). Splitting a
chained comparison repeats its middle operands, so it is only split when those are
names, attributes or constants (evaluating them twice is harmless); otherwise

    lo < xs[i] <= hi              =>   ag__.compare_chain(lo, '<', lambda: xs[i], '<=', lambda: hi)

evaluates each operand once (the comparisons still short-circuit).

Where only the truth of an `and` / `or` matters (the test of an `if`, `while` or
conditional expression, the operand of `not`), an operand that is not already a bool
(`not ...`, another `and` / `or` there) is wrapped in `ag__.truth`, so `while n and x > 0`
with an int `n` does not ask both sides of a `cond` to share a dtype, nor `x < 10 and flag`
with a shape-[1] `x` both sides to share a shape:

    if n or x > 0:                =>   if ag__.or_(ag__.truth(n), lambda: ag__.truth(x > 0)):
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates, transformer

_SIMPLE = (gast.Name, gast.Constant, gast.Attribute)


def _binds_names(nodes) -> bool:
    """An operand holding `:=` binds in the enclosing scope; inside a lambda it would bind
    in the lambda instead, so such an `and` / `or` stays Python's."""
    return any(isinstance(n, gast.NamedExpr) for v in nodes for n in gast.walk(v))


def _bool_op(node, walk):
    if _binds_names(node.values[1:]):
        return node
    fn = "and_" if isinstance(node.op, gast.And) else "or_"
    call = templates.replace_expr(f"ag__.{fn}(first)", origin=node, first=node.values[0])
    call.args.extend(templates.replace_expr("lambda: value", origin=v, value=v)
                     for v in node.values[1:])
    anno.set_(call, anno.BOOL_OP, True)
    return call


def _unary_op(node, walk):
    if isinstance(node.op, gast.Not):
        return templates.replace_expr("ag__.not_(value)", origin=node,
                                      value=as_test(node.operand))
    return node


def _is_bool(node) -> bool:
    """A Python bool or a 0-d bool already (a comparison of arrays is an array of bools)."""
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool)
    return isinstance(node, gast.Call) and transformer.is_ag_call(node) and \
        node.func.attr in ("not_", "truth")


def as_test(node):
    """A converted expression whose truth alone matters: the operands of its (converted)
    `and` / `or`, recursively, as truth values."""
    if not anno.get(node, anno.BOOL_OP, False):
        return node
    for k, arg in enumerate(node.args):
        inner = arg.body if isinstance(arg, gast.Lambda) else arg
        inner = as_test(inner)
        if not _is_bool(inner) and not anno.get(inner, anno.BOOL_OP, False):
            inner = templates.replace_expr("ag__.truth(value)", origin=inner, value=inner)
        if isinstance(arg, gast.Lambda):
            arg.body = inner
        else:
            node.args[k] = inner
    return node


def _test(node, walk):
    node.test = as_test(node.test)
    return node


_OPS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
        gast.NotEq: "!=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
        gast.NotIn: "not in"}


def _compare(node, walk):
    if len(node.ops) < 2 or _binds_names(node.comparators):
        return node
    if not all(isinstance(c, _SIMPLE) for c in node.comparators[:-1]):
        call = templates.replace_expr("ag__.compare_chain(first)", origin=node, first=node.left)
        for op, right in zip(node.ops, node.comparators):
            call.args.append(gast.Constant(value=_OPS[type(op)], kind=None))
            call.args.append(templates.replace_expr("lambda: value", origin=right, value=right))
        return call
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


HANDLERS = {gast.BoolOp: _bool_op, gast.UnaryOp: _unary_op, gast.Compare: _compare,
            gast.If: _test, gast.While: _test}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
