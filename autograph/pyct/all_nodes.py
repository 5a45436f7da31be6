"""`all_nodes(node)`: every node of a tree, breadth-first, as `ast.walk` / `gast.walk` yield
them, at a third of the cost: the fields are read from the node's `__dict__` directly
instead of through `ast.iter_child_nodes` (two generators and a `getattr` per field).
The converters walk every function's tree many times, which made `ast.walk` one of
the larger costs of a conversion.

`subtree_fields(cls)`: the fields of a node class that may hold more than a leaf node
(not a name's `ctx`, not an operator), for walks that look for expressions or
statements: those leaves are most of a tree's nodes."""
from __future__ import annotations

import ast
from collections import deque
from typing import Iterator

_AST = ast.AST  # (gast.AST is a subclass)


def all_nodes(node) -> Iterator:
    """`node` and all its descendants (gast or ast), in `ast.walk`'s order. The children
    of a node are read before the node is yielded, as `ast.walk` does."""
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        d = node.__dict__
        for field in node._fields:
            v = d.get(field)
            if type(v) is list:
                for item in v:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(v, _AST):
                push(v)
        yield node


def child_nodes(node) -> list:
    """The direct children of `node`, in `ast.iter_child_nodes`' order (a list)."""
    out = []
    d = node.__dict__
    for field in node._fields:
        v = d.get(field)
        if type(v) is list:
            out.extend([item for item in v if isinstance(item, _AST)])
        elif isinstance(v, _AST):
            out.append(v)
    return out


# fields whose node is always a childless leaf: a name's context (Load / Store / Del /
# Param), an operator (`op` of BinOp / UnaryOp / BoolOp / AugAssign, `ops` of Compare)
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
_SUBTREE_FIELDS: dict = {}


def subtree_fields(cls) -> tuple:
    """The fields of node class `cls` that may hold an expression or a statement."""
    fields = _SUBTREE_FIELDS.get(cls)
    if fields is None:
        fields = _SUBTREE_FIELDS[cls] = tuple(f for f in cls._fields
                                              if f not in _LEAF_FIELDS)
    return fields
