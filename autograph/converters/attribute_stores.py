"""A subscript store into an attribute does not set the attribute (last, after control
flow, whose analysis needed the store to see the write).

    obj.d[k] = v     =>   obj.d = ag__.setitem(obj.d, k, v)      (slices.py, step 4)
                     =>   ag__.setitem_attr(obj, 'd', k, v)      (here)

Python only reads `obj.d` for `obj.d[k] = v`; assigning it back would run a property
setter or `__setattr__` (a counter, a frozen object's error). `ag__.setitem_attr` sets
the attribute only when the update is a new value (a graph value updated functionally).
"""
from __future__ import annotations

import gast

from autograph.pyct import templates
from autograph.pyct.all_nodes import all_nodes


def transform(node) -> None:
    """Rewrite, in place, every `o.a = ag__.setitem(o.a, ...)` in `node`'s tree."""
    for parent in all_nodes(node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(parent, field, None)
            if isinstance(body, list):
                body[:] = [_rewritten(s) for s in body]


def _rewritten(stmt):
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return stmt
    target, value = stmt.targets[0], stmt.value
    if not (isinstance(target, gast.Attribute) and isinstance(value, gast.Call)
            and isinstance(value.func, gast.Attribute) and value.func.attr == "setitem"
            and isinstance(value.func.value, gast.Name) and value.func.value.id == "ag__"
            and value.args and _same(value.args[0], target)):
        return stmt
    call = templates.replace_expr("ag__.setitem_attr(owner, name)", origin=stmt,
                                  owner=target.value,
                                  name=gast.Constant(value=target.attr, kind=None))
    call.args.extend(value.args[1:])
    out = gast.Expr(value=call)
    return gast.copy_location(out, stmt)


def _same(a, b) -> bool:
    """Whether two expressions are the same attribute chain (loads and stores alike)."""
    if isinstance(a, gast.Attribute) and isinstance(b, gast.Attribute):
        return a.attr == b.attr and _same(a.value, b.value)
    if isinstance(a, gast.Name) and isinstance(b, gast.Name):
        return a.id == b.id
    return False
