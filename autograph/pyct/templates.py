"""Code templates: generate gast from Python source with placeholder names.

    templates.replace('''
        def name(params):
            body
            return outputs
    ''', origin=node, name='if_true', params=['x'], body=stmts, outputs=['x'])

A placeholder is any identifier that appears as a keyword of `replace`. What it is
replaced by depends on the value and where the placeholder stands:

- a `str`: the identifier is renamed (variables, function names, parameters);
- a gast expression: the expression is inserted (with the placeholder's Load/Store ctx);
- a list of `str` or of expressions: as a parameter, one parameter per entry; as a
  statement (`body`), the statements are spliced in; as an expression, a tuple of them
  (a single entry stays bare unless the placeholder is written `(outputs,)` - see
  `as_tuple`) and an empty list gives `()`;
- `None` (as an expression): the constant None.

Parsed templates are cached; each use builds its copy and replaces the placeholders in
one pass (much cheaper than `copy.deepcopy` and a second walk). Nodes that come from the template get the location of `origin`, so the
generated code maps back to the user's line; inserted user nodes keep their own.
"""
from __future__ import annotations

import textwrap
from typing import Any

import gast
from autograph.pyct.all_nodes import all_nodes

_CACHE: dict[str, list] = {}


_AST = gast.AST
_LEAVES = frozenset({int, str, type(None), bool, float})  # (the most common field values)


def clone(node: Any) -> Any:
    """A copy of a gast tree (lists and nodes copied, leaves shared)."""
    if type(node) is list:
        return [_clone_node(n) if isinstance(n, _AST) else clone(n) for n in node]
    return _clone_node(node) if isinstance(node, _AST) else node


def _clone_node(node):
    # (one call per node: the leaves - locations, names - are told by their type first,
    # since cloning is a good part of a conversion's time)
    cls = node.__class__
    new = cls.__new__(cls)
    d = new.__dict__
    for k, v in node.__dict__.items():
        t = type(v)
        if t in _LEAVES:
            d[k] = v
        elif t is list:
            d[k] = [_clone_node(n) if isinstance(n, _AST) else clone(n) for n in v]
        elif isinstance(v, _AST):
            d[k] = _clone_node(v)
        else:
            d[k] = v
    return new


def _parsed(template: str) -> list:
    body = _CACHE.get(template)
    if body is None:
        body = gast.parse(textwrap.dedent(template)).body
        _CACHE[template] = body
    return body


def set_ctx(node, ctx_type):
    """Give a (copied, if needed) target expression the context `ctx_type`."""
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        if not isinstance(node.ctx, ctx_type):
            node = clone(node) if isinstance(node, gast.Name) else node
            node.ctx = ctx_type()
        if isinstance(node, gast.Starred):
            node.value = set_ctx(node.value, ctx_type)
    elif isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx_type()
        node.elts = [set_ctx(e, ctx_type) for e in node.elts]
    return node


def name_node(name: str, ctx_type=gast.Load) -> gast.Name:
    return gast.Name(id=name, ctx=ctx_type(), annotation=None, type_comment=None)


def tuple_node(elts: list, ctx_type=gast.Load) -> gast.Tuple:
    return gast.Tuple(elts=elts, ctx=ctx_type())


def _as_expr(value, ctx_type):
    if isinstance(value, str):
        return name_node(value, ctx_type)
    if value is None:
        return gast.Constant(value=None, kind=None)
    if isinstance(value, list):
        elts = [_as_expr(v, ctx_type) for v in value]
        return elts[0] if len(elts) == 1 else tuple_node(elts, ctx_type)
    return set_ctx(value, ctx_type)


class _Replacer:
    def __init__(self, subs: dict, origin):
        self.subs = subs
        self.used: set = set()
        self.loc = None
        if origin is not None and getattr(origin, "lineno", None) is not None:
            self.loc = _start_of(origin)  # (an origin with no location gives none)

    def fresh(self, value):
        """A value to insert; nodes inserted twice are copied the second time."""
        if isinstance(value, (gast.AST, list)):
            key = id(value)
            if key in self.used:
                return clone(value)
            self.used.add(key)
        return value

    def build(self, node):
        """A copy of the cached template node `node` with its placeholders replaced, in one
        pass (the template itself is never changed)."""
        t = type(node)
        subs = self.subs
        if t is gast.Name and node.id in subs:
            value = self.fresh(subs[node.id])
            if type(node.ctx) is gast.Param:
                return [name_node(v, gast.Param) if isinstance(v, str) else v
                        for v in (value if isinstance(value, list) else [value])]
            return _as_expr(value, type(node.ctx))
        if t is gast.Expr and type(node.value) is gast.Name and node.value.id in subs:
            value = self.fresh(subs[node.value.id])
            if isinstance(value, list) and (not value or isinstance(value[0], gast.stmt)):
                return list(value)
        new = t.__new__(t)
        d = new.__dict__
        source = node.__dict__
        d.update(source)
        for field in t._fields:
            value = source.get(field)
            if type(value) is list:
                out = []
                for item in value:
                    if isinstance(item, _AST):
                        item = self.build(item)
                        if type(item) is list:
                            out.extend(item)
                            continue
                    out.append(item)
                d[field] = out
            elif isinstance(value, _AST):
                value = self.build(value)
                if type(value) is list:  # a parameter list standing alone
                    value = tuple_node(value)
                d[field] = value
        if self.loc is not None and "lineno" in t._attributes:
            d.update(self.loc)
        if t is gast.FunctionDef and new.name in subs:
            new.name = subs[new.name]
        return new


def replace(template: str, origin=None, **subs) -> list:
    """Statements of `template` with placeholders replaced (see the module docstring)."""
    replacer = _Replacer(subs, origin)
    out = []
    for stmt in _parsed(template):
        new = replacer.build(stmt)
        if type(new) is list:
            out.extend(new)
        else:
            out.append(new)
    return out


def replace_expr(template: str, origin=None, **subs):
    """The expression of a one-expression `template`, placeholders replaced."""
    (stmt,) = replace(template, origin, **subs)
    return stmt.value


def _start_of(origin) -> dict:
    # Generated code sits at the start of the statement it replaces (an empty column
    # range): CPython reports a method call at its *end* line otherwise, which for
    # `ag__.if_stmt(...)` standing for a whole `if` block would be the block's last line.
    line, col = getattr(origin, "lineno", None), getattr(origin, "col_offset", None)
    return {"lineno": line, "col_offset": col, "end_lineno": line, "end_col_offset": col}


def copy_location(new, origin):
    """Give `new` (and its location-less descendants) the location of `origin`."""
    loc = _start_of(origin)
    if loc["lineno"] is None:
        return new
    for n in all_nodes(new):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            n.__dict__.update(loc)
    return new
