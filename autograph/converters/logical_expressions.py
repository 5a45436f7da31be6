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
from autograph.pyct.all_nodes import all_nodes

_SIMPLE = (gast.Name, gast.Constant, gast.Attribute)


def _binds_names(nodes) -> bool:
    """An operand holding `:=` binds in the enclosing scope; inside a lambda it would bind
    in the lambda instead, so such an `and` / `or` stays Python's."""
    return any(isinstance(n, gast.NamedExpr) and not anno.get(n, anno.DUAL, False)
               for v in nodes for n in all_nodes(v))


def _bool_op(node, walk):
    if _binds_names(node.values[1:]):
        return node
    return _dual_bool_op(node.op, [functional_only(templates.clone(v))
                                   for v in node.values], node.values, node, walk.ctx.namer,
                         rebound_in(node.values[1:], walk.ctx))


def rebound_in(operands: list, ctx) -> tuple:
    """The variables a call in the lazily evaluated `operands` may rebind through a nested
    def's `nonlocal` (`nonlocal_writes.py`): on a symbolic test the operator refuses
    them (both operands are traced; an expression cannot carry a variable)."""
    info = ctx.scope.rebound_by_calls
    return tuple(sorted(info.by(list(operands)))) if info is not None else ()


def rebinds_keyword(names: tuple) -> gast.keyword:
    return gast.keyword(arg="rebinds", value=templates.tuple_node(
        [gast.Constant(value=n, kind=None) for n in names]))


def _functional_bool_op(op, values: list, origin, rebinds: tuple = ()):
    fn = "and_" if isinstance(op, gast.And) else "or_"
    call = templates.replace_expr(f"ag__.{fn}(first)", origin=origin, first=values[0])
    call.args.extend(templates.replace_expr("lambda: value", origin=v, value=v)
                     for v in values[1:])
    if rebinds:
        call.keywords.append(rebinds_keyword(rebinds))
    anno.set_(call, anno.BOOL_OP, True)
    return call


def _dual_bool_op(op, functional: list, inline: list, origin, namer, rebinds: tuple = ()):
    """`a and b and c` as `x and <b and c, dual> if (x := a) is a bool else
    ag__.and_(x, lambda: b, lambda: c)`."""
    def python(x):
        rest = inline[1] if len(inline) == 2 else \
            _dual_bool_op(op, functional[1:], inline[1:], origin, namer, rebinds)
        return gast.BoolOp(op=op, values=[x, rest])
    return dual(inline[0], python,
                lambda x: _functional_bool_op(op, [x] + functional[1:], origin, rebinds),
                origin, namer)


def _unary_op(node, walk):
    if isinstance(node.op, gast.Not):
        return dual(as_test(node.operand), lambda x: gast.UnaryOp(op=gast.Not(), operand=x),
                    lambda x: templates.replace_expr("ag__.not_(value)", origin=node,
                                                     value=x),
                    node, walk.ctx.namer)
    return node


def dual(first, python, functional, origin, namer):
    """`python(x) if x.__class__ is bool or not ag__.symbolic(x) else functional(x)`, `x`
    the value of `first` (evaluated once: `(x := first)` unless it is a name): a Python
    operand takes Python's operator inline, a symbolic one the operator of `ag__`
    (dual-path code: `dual_path.py`, the same test). The node keeps its functional form alone,
    `functional(first)`, for `functional_only`."""
    if isinstance(first, gast.Name):
        x, test = first.id, "first.__class__ is bool or not ag__.symbolic(first)"
    else:
        x, test = namer.new("bool_"), "(x := first).__class__ is bool or not ag__.symbolic(x)"
    pure = templates.clone(functional(functional_only(templates.clone(first))))
    templates.copy_location(pure, origin)
    node = templates.replace_expr(f"inline if {test} else functional", origin=origin,
                                  x=x, first=first, inline=python(templates.name_node(x)),
                                  functional=functional(templates.name_node(x)))
    templates.copy_location(node, origin)
    anno.set_(node, anno.DUAL, pure)
    named = _named(node)
    if named is not None:
        anno.set_(named, anno.DUAL, True)  # (not the user's `:=`)
    return node


def _named(node):
    """The `(x := first)` of a dual expression, or None (its first operand is a name)."""
    check = node.test.values[0]  # `<x>.__class__ is bool`
    value = check.left.value
    return value if isinstance(value, gast.NamedExpr) else None


def _is_dual(node) -> bool:
    return isinstance(node, gast.IfExp) and anno.get(node, anno.DUAL, None) is not None


def functional_only(node, binding: bool = False):
    """`node` with each dual expression in it replaced by its functional form (for a
    functional side - the graph's path reads as it did before dual paths); with
    `binding`, only those that bind a name with `:=` (a comprehension's iterable, where
    `:=` is not allowed)."""
    if _is_dual(node) and (not binding or _named(node) is not None):
        return anno.get(node, anno.DUAL)
    if isinstance(node, gast.FunctionDef) and anno.get(node, anno.DONE, False):
        return node  # a nested function of the user's, converted on its own
    for field in node._fields:
        v = getattr(node, field, None)
        if isinstance(v, list):
            setattr(node, field, [functional_only(x, binding) if isinstance(x, gast.AST)
                                  else x for x in v])
        elif isinstance(v, gast.AST):
            setattr(node, field, functional_only(v, binding))
    return node


def _comprehension(node, walk):
    node.iter = functional_only(node.iter, binding=True)
    return node


def _is_bool(node) -> bool:
    """A Python bool or a 0-d bool already (a comparison of arrays is an array of bools)."""
    if _is_dual(node):
        return _is_bool(anno.get(node, anno.DUAL))
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool)
    return isinstance(node, gast.Call) and transformer.is_ag_call(node) and \
        node.func.attr in ("not_", "truth")


def as_test(node):
    """A converted expression whose truth alone matters: the operands of its (converted)
    `and` / `or`, recursively, as truth values (on the functional side of a dual one:
    on its Python side they are Python values, whose truth Python takes)."""
    if _is_dual(node):
        named = _named(node)
        if named is not None:
            named.value = as_test(named.value)
        if isinstance(node.body, gast.BoolOp):  # its later operands' functional sides
            node.body.values[1:] = [as_test(v) if _is_dual(v) else v
                                    for v in node.body.values[1:]]
        node.orelse = as_test(node.orelse)
        anno.set_(node, anno.DUAL, as_test(anno.get(node, anno.DUAL)))
        return node
    if not anno.get(node, anno.BOOL_OP, False):
        return node
    for k, arg in enumerate(node.args):
        inner = arg.body if isinstance(arg, gast.Lambda) else arg
        inner = as_test(inner)
        if not _is_bool(inner) and not anno.get(inner, anno.BOOL_OP, False) and \
                not _is_dual(inner):
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
    return _dual_bool_op(gast.And(), [templates.clone(p) for p in parts], parts, node,
                         walk.ctx.namer)


HANDLERS = {gast.BoolOp: _bool_op, gast.UnaryOp: _unary_op, gast.Compare: _compare,
            gast.If: _test, gast.While: _test, gast.comprehension: _comprehension}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
