"""A fast ast -> gast translation (gast's own is generic: a dict of keyword arguments and
a `getattr` per field of every node, which made it a fifth of a conversion's time).

The node classes that gast translates specially on this Python version (parameters
become `Name` nodes, `except ... as e` names, definitions gaining `type_params`, ...)
keep gast's own methods; every other node is copied field by field into the gast class
of the same name. The result is the same tree `gast.ast_to_gast` builds (a test
compares them on the project's and the standard library's sources).

The translation also tells which node classes the tree holds (`source_kinds`), for free:
its dispatch table is built per translation, one entry per class met.
"""
from __future__ import annotations

import ast

import gast
from gast.ast3 import Ast3ToGAst

_LEAVES = frozenset({int, str, type(None), bool, float, bytes, complex})
# the classes of gast's translator (not `ast.NodeVisitor`'s own `visit_Constant`)
_GAST_CLASSES = [k for k in Ast3ToGAst.__mro__ if k.__module__.startswith("gast")]


class _Translator(Ast3ToGAst):
    def __init__(self):
        self._by_type: dict = {}
        self._copiers: dict = {}

    def _visit(self, node):
        t = type(node)
        if t is list:
            return [self._visit(n) for n in node]
        if t in _LEAVES or not isinstance(node, ast.AST):
            return node
        return self.visit(node)

    def visit(self, node):
        t = type(node)
        method = self._by_type.get(t)
        if method is None:
            method = self._by_type[t] = self._method(t)
        return method(node)

    def _method(self, t):
        name = "visit_" + t.__name__
        if any(name in vars(k) for k in _GAST_CLASSES):
            return getattr(self, name)
        return self._copier(t)

    def _copier(self, t):
        """The field-by-field copy of a node of class `t` (gast's `generic_visit`)."""
        copier = self._copiers.get(t)
        if copier is None:
            copier = self._copiers[t] = self._make_copier(t)
        return copier

    def _make_copier(self, t):
        target = getattr(gast, t.__name__, None)
        if target is None:  # a node gast does not have (as gast's own translation)
            return lambda node: None
        fields, attributes = t._fields, t._attributes
        visit = self._visit

        def copy(node):
            new = target.__new__(target)
            d, nd = node.__dict__, new.__dict__
            for f in fields:
                if f in d:
                    v = d[f]
                    nd[f] = v if type(v) in _LEAVES else visit(v)
            for a in attributes:
                if a in d:
                    nd[a] = d[a]
            return new
        return copy

    def generic_visit(self, node):  # (what gast's special methods fall back on)
        return self._copier(type(node))(node)


def ast_to_gast(node, kinds: list | None = None):
    """The gast tree of an `ast` tree (what `gast.ast_to_gast` returns). With `kinds` (a
    list), the names of the `ast` node classes found in the tree are appended to it."""
    translator = _Translator()
    tree = translator.visit(node)
    if kinds is not None:
        kinds.extend(t.__name__ for t in translator._by_type)
    return tree
