"""`unparse_gast(node)`: the source text of a gast tree, exactly as `ast.unparse` writes
the `ast` tree `gast_to_ast.convert` makes of it, without making that tree.

Copying the converted tree into `ast` nodes cost more than writing it out. The writer
here is `ast`'s own (`ast._Unparser`): its methods are used as they are, except that
the node classes they test with `isinstance` (`Constant`, `Expr`, `Name`, ...) are
read as "the `ast` or the gast class of that name", and the two places where the
trees differ are written for gast: parameters are `Name` nodes (with their
annotation), and an `except ... as e` name is a `Name`. The visit method of each node
class is looked up once per class instead of by name for every node. A test compares
the text with `ast.unparse(gast_to_ast.convert(tree))` on the project's and the
standard library's sources.
"""
from __future__ import annotations

import ast
import types

import gast


def _rebound(fn, namespace: dict):
    """`fn` (a function of the `ast` module) reading its globals from `namespace`."""
    new = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                             fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    return new


def _both(name: str):
    """The `ast` class of that name, or it and the gast one (`isinstance` takes a tuple)."""
    cls, other = getattr(ast, name), getattr(gast, name, None)
    return cls if other is None or other is cls else (cls, other)


_NAMESPACE = dict(vars(ast))
_NAMESPACE.update({name: _both(name) for name, value in vars(ast).items()
                   if isinstance(value, type) and issubclass(value, ast.AST)})
_METHODS = {name: _rebound(value, _NAMESPACE) for name, value in vars(ast._Unparser).items()
            if isinstance(value, types.FunctionType) and value.__globals__ is vars(ast)}


_OPTIONAL: dict = {}  # gast class -> ((field, default), ...) of the `ast` class's defaults


def _optional_fields(cls) -> tuple:
    """The optional fields of the `ast` class of that name (`type_comment`, `returns`,
    `kind`, ...: the class holds their default), which a gast node may lack."""
    target = getattr(ast, cls.__name__, None)
    if target is None:
        return ()
    return tuple((f, getattr(target, f)) for f in target._fields
                 if hasattr(target, f) and not hasattr(cls, f))


class _GastUnparser(ast._Unparser):
    _visitors: dict = {}  # node class -> its visit function

    locals().update(_METHODS)

    def traverse(self, node):
        if isinstance(node, list):
            for item in node:
                self.traverse(item)
            return
        cls = node.__class__
        method = self._visitors.get(cls)
        if method is None:
            method = self._visitors[cls] = getattr(
                type(self), "visit_" + cls.__name__, ast.NodeVisitor.generic_visit)
            _OPTIONAL[cls] = _optional_fields(cls)
        optional = _OPTIONAL[cls]
        if optional:  # what the `ast` class would read as its class-level default
            d = node.__dict__
            for field, default in optional:
                if field not in d:
                    d[field] = default
        method(self, node)

    def visit_Name(self, node):
        self.write(node.id)
        if type(node.ctx) is gast.Param and node.annotation is not None:
            self.write(": ")  # (a parameter: `ast.arg` in the `ast` tree)
            self.traverse(node.annotation)

    def visit_ExceptHandler(self, node):
        if isinstance(node.name, gast.Name):
            node = gast.ExceptHandler(type=node.type, name=node.name.id, body=node.body)
        _METHODS["visit_ExceptHandler"](self, node)

    def visit_arguments(self, node):
        # as `ast._Unparser.visit_arguments`, with parameters written by `visit_Name`
        first = True
        all_args = node.posonlyargs + node.args
        defaults = [None] * (len(all_args) - len(node.defaults)) + node.defaults
        for index, (a, d) in enumerate(zip(all_args, defaults), 1):
            if first:
                first = False
            else:
                self.write(", ")
            self.traverse(a)
            if d:
                self.write("=")
                self.traverse(d)
            if index == len(node.posonlyargs):
                self.write(", /")
        if node.vararg or node.kwonlyargs:
            if first:
                first = False
            else:
                self.write(", ")
            self.write("*")
            if node.vararg:
                self.traverse(node.vararg)
        if node.kwonlyargs:
            for a, d in zip(node.kwonlyargs, node.kw_defaults):
                self.write(", ")
                self.traverse(a)
                if d:
                    self.write("=")
                    self.traverse(d)
        if node.kwarg:
            if not first:
                self.write(", ")
            self.write("**")
            self.traverse(node.kwarg)


def unparse_gast(node) -> str:
    """The source text of a gast node, as `ast.unparse` of its `ast` form."""
    return _GastUnparser().visit(node)
