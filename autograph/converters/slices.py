"""Subscript assignment -> a functional update the state-passing code can carry.

    x[i] = v          =>   x = ag__.setitem(x, i, v)
    x[i, 1:] += v     =>   x = ag__.setitem(x, (i, slice(1, None)), v, '+=')

`ag__.setitem` writes in place into Python containers and NumPy arrays (so aliasing is
the original's; an augmented assignment is the real `x[i] += v` there) and is
`runtime.index_update` on a Tensor, which cannot be mutated. The index is evaluated
once, as in Python (`v` is evaluated before `x[i]` is read, which only shows if
evaluating `v` changes `x[i]`). Only targets rooted at a variable (or `self.attr`) are
rewritten. A nested target updates each level, so a write into an array held in a
container lands in a graph too (the inner indices are read twice, so only when they
have no effects):

    d['m'][i] = v     =>   d = ag__.setitem(d, 'm', ag__.setitem(d['m'], i, v), nested=True)

Subscript loads of NumPy's index tricks become an operator call, since their
`__getitem__` converts every item to a concrete array:

    np.c_[a, x]       =>   ag__.index_trick(np.c_, (a, x))

and a subscript load with a computed index goes through `ag__.array_item`, which is the
plain subscript except for a NumPy array indexed with a symbolic value (`W[ids]`, `W`
a constant or an array of Python state): NumPy cannot take that index, the graph can.
A named object that is not a NumPy array (a list, a dict) is read inline:

    table[i, 0]       =>   table[i, 0] if table.__class__ is not ag__.ndarray
                               else ag__.array_item(table, (i, 0))
"""
from __future__ import annotations

import gast

from autograph.pyct import templates, transformer
from autograph.pyct.activity import qualified_name
from autograph.pyct.all_nodes import all_nodes


def _index_expr(index, ctx):
    """The subscript as a value: slices become slice(...) calls (`ag__.slice_(...)`
    where the function's `slice` is not the builtin)."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else gast.Constant(value=None, kind=None)
                 for p in (index.lower, index.upper, index.step)]
        if index.step is None:
            parts = parts[:2]
        builtin = "slice" not in ctx.scope.local and ctx.lookup("slice") is slice
        call = templates.replace_expr("slice()" if builtin else "ag__.slice_()",
                                      origin=index if hasattr(index, "lineno") else None)
        call.args = parts
        return call
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_index_expr(e, ctx) for e in index.elts], ctx=gast.Load())
    return index


def _target(target, ctx):
    """The subscript target if its base is a local variable or an attribute chain (or
    a subscript of one, `d['m'][i]`, whose inner indices have no effects)."""
    if not isinstance(target, gast.Subscript):
        return None
    root = target.value
    while isinstance(root, gast.Subscript) and not _has_effects(root.slice):
        root = root.value
    qn = qualified_name(root)
    if qn is None or ("." not in qn and qn not in ctx.scope.local
                      and qn not in ctx.scope.declared):
        # a global or closure container not declared `global` / `nonlocal`: mutate it in
        # place, as Python does (the name cannot be rebound)
        return None
    return target


def _assign(node, walk):
    if len(node.targets) != 1 or _target(node.targets[0], walk.ctx) is None:
        return node
    t = node.targets[0]
    if isinstance(t.value, gast.Subscript):  # `d['m'][i] = v`: update `d['m']` first
        return _nested(node, t, node.value, None, walk)
    if getattr(node, "_outer_store", False):  # of a nested target: only if a new value
        return templates.replace("base = ag__.setitem(base, index, value, nested=True)",
                                 origin=node, base=t.value, value=node.value,
                                 index=_index_expr(t.slice, walk.ctx))
    if _has_effects(node.value) and _has_effects(t.slice):
        # Python evaluates the value before the index (`a[randint()] = choice()`): keep it so
        value = walk.ctx.namer.new("value")
        return templates.replace("value = v\nbase = ag__.setitem(base, index, value)",
                                 origin=node, value=value, v=node.value, base=t.value,
                                 index=_index_expr(t.slice, walk.ctx))
    return templates.replace("base = ag__.setitem(base, index, value)", origin=node,
                             base=t.value, index=_index_expr(t.slice, walk.ctx), value=node.value)


def _nested(node, t, value, op, walk) -> list:
    """`base[i][j] (op)= v` as `base[i] = ag__.setitem(base[i], j, v(, op))`, itself
    rewritten the same way, its outer store made only when the inner update gave a new
    value (`nested=True`): a list inside a tuple is updated in place, as Python
    does, and `base.__setitem__` is not called again."""
    template = "base = ag__.setitem(base, index, value" + (", op)" if op is not None else ")")
    (outer,) = templates.replace(template, origin=node, base=t.value,
                                 index=_index_expr(t.slice, walk.ctx), value=value, op=op)
    outer._outer_store = True
    return _assign(outer, walk)


def _has_effects(node) -> bool:
    """Whether evaluating `node` may do something (a call, `:=`, `await`, `yield`)."""
    return any(isinstance(n, (gast.Call, gast.NamedExpr, gast.Await, gast.Yield,
                              gast.YieldFrom)) for n in all_nodes(node))


def _aug_assign(node, walk):
    t = _target(node.target, walk.ctx)
    if t is None:
        return node
    op = gast.Constant(value=_OPS[type(node.op)], kind=None)
    if isinstance(t.value, gast.Subscript):
        return _nested(node, t, node.value, op, walk)
    return templates.replace("base = ag__.setitem(base, index, value, op)", origin=node,
                             base=t.value, index=_index_expr(t.slice, walk.ctx), value=node.value,
                             op=op)


_OPS = {gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=",
        gast.FloorDiv: "//=", gast.Mod: "%=", gast.Pow: "**=", gast.MatMult: "@=",
        gast.LShift: "<<=", gast.RShift: ">>=", gast.BitAnd: "&=", gast.BitOr: "|=",
        gast.BitXor: "^="}


HANDLERS = {gast.Assign: _assign, gast.AugAssign: _aug_assign}

# attribute names of NumPy's concatenating index tricks (the operator checks the object)
_INDEX_TRICKS = frozenset({"c_", "r_"})


def _load(node, walk):
    v = node.value
    name = v.attr if isinstance(v, gast.Attribute) else v.id if isinstance(v, gast.Name) else None
    if not isinstance(node.ctx, gast.Load):
        return node
    if name not in _INDEX_TRICKS:
        if not _may_be_symbolic(node.slice):
            return node
        call = templates.replace_expr("ag__.array_item(obj, key)", origin=node, obj=v,
                                      key=_index_expr(templates.clone(node.slice), walk.ctx))
        if not isinstance(v, gast.Name):
            return call
        # dual path: anything but a NumPy array (a list, a dict, a str) is read inline
        return templates.replace_expr("load if obj.__class__ is not ag__.ndarray else call",
                                      origin=node, load=node, obj=v.id, call=call)
    return templates.replace_expr("ag__.index_trick(obj, key)", origin=node, obj=node.value,
                                  key=_index_expr(node.slice, walk.ctx))


def _may_be_symbolic(index) -> bool:
    """Whether an index reads a value (a name, call, ...), not only literal numbers."""
    return any(not isinstance(n, (gast.Constant, gast.Slice, gast.Tuple, gast.UnaryOp,
                                  gast.USub, gast.Load, gast.expr_context))
               for n in all_nodes(index))


LOADS = {gast.Subscript: _load}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
