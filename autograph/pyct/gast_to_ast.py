"""A fast gast -> ast translation (gast's own is generic and dominates `to_code` time).

Both trees have the same node classes by name; only the fields differ in a few places
(gast parameters are `Name` nodes, an `except ... as e` name is a `Name`, and gast
nodes carry extra fields the `ast` class does not have), which are handled here.
"""
from __future__ import annotations

import ast

import gast

_ATTRS = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_CLASSES: dict = {}  # gast class -> (ast class, the names to copy: fields, then locations)
_AST = gast.AST
_LEAVES = frozenset({int, str, type(None), bool, float})  # (the most common field values)
_ABSENT = object()  # a field the node does not have


def _cls(t) -> tuple:
    entry = _CLASSES.get(t)
    if entry is None:
        cls = getattr(ast, t.__name__)
        entry = _CLASSES[t] = (cls, tuple(cls._fields) + _ATTRS)
    return entry


def _arg(name):
    if name is None:
        return None
    new = ast.arg(arg=name.id, annotation=convert(name.annotation),
                  type_comment=getattr(name, "type_comment", None))
    d = name.__dict__
    for a in _ATTRS:
        if a in d:
            setattr(new, a, d[a])
    return new


def convert(node):
    """The `ast` tree of a gast tree (a node, a list, or a leaf value)."""
    if type(node) is list:
        return [convert(n) for n in node]
    if not isinstance(node, _AST):
        return node
    t = type(node)
    if t is gast.arguments:
        return ast.arguments(
            posonlyargs=[_arg(a) for a in node.posonlyargs], args=[_arg(a) for a in node.args],
            vararg=_arg(node.vararg), kwonlyargs=[_arg(a) for a in node.kwonlyargs],
            kw_defaults=convert(node.kw_defaults), kwarg=_arg(node.kwarg),
            defaults=convert(node.defaults))
    entry = _CLASSES.get(t)
    cls, names = entry if entry is not None else _cls(t)
    new = cls.__new__(cls)
    d = node.__dict__
    nd = new.__dict__
    for f in names:
        v = d.get(f, _ABSENT)
        vt = type(v)
        if vt in _LEAVES:
            nd[f] = v
        elif vt is list:
            nd[f] = [convert(n) if type(n) not in _LEAVES else n for n in v]
        elif v is not _ABSENT:
            nd[f] = convert(v)
    if t is gast.ExceptHandler and isinstance(node.name, gast.Name):
        nd["name"] = node.name.id
    return new
