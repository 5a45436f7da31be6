"""A fast post-order rewriter that runs several converters in one walk.

Each converter module exposes `HANDLERS = {node type: handler}`; a handler gets the
node (whose children were already rewritten) and the `Walk` state, and returns the
node, a replacement node, or a list of statements. The pipeline merges the handlers of
converters that do not depend on each other into one walk (see `impl/conversion.py`),
which keeps conversion well under a millisecond per function.

The walk does not enter nested functions that were already converted (`ag_done`), and
counts how many `if` / `while` / `for` statements enclose the current node.
"""
from __future__ import annotations

import gast

from autograph.pyct import anno

_CONTROL = (gast.If, gast.While, gast.For)


def is_ag_call(node) -> bool:
    """Whether `node` calls an `ag__` operator (`ag__.if_stmt(...)`)."""
    f = node.func if isinstance(node, gast.Call) else None
    return isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and \
        f.value.id == "ag__"


class Walk:
    """State of one rewrite: the conversion context and the enclosing control flow."""

    def __init__(self, ctx, handlers: dict):
        self.ctx = ctx
        self.handlers = handlers
        self.control = 0

    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            r = self.node(s)
            if type(r) is list:
                out.extend(r)
            else:
                out.append(r)
        return out

    def node(self, node):
        t = type(node)
        if (t is gast.FunctionDef or t is gast.AsyncFunctionDef) and \
                anno.get(node, anno.DONE, False) or t is gast.ClassDef:
            # a class statement runs as written: its body is the class's namespace, and
            # its methods are converted on their own when converted code calls them
            return node
        control = t in _CONTROL
        if control:
            self.control += 1
        d = node.__dict__
        for field in node._fields:
            v = d.get(field)
            if type(v) is list:
                if v and not isinstance(v[0], str):
                    new: list = []
                    for item in v:
                        r = self.node(item) if isinstance(item, gast.AST) else item
                        if type(r) is list:
                            new.extend(r)
                        else:
                            new.append(r)
                    d[field] = new
            elif isinstance(v, gast.AST):
                r = self.node(v)
                d[field] = r
        if control:
            self.control -= 1
        h = self.handlers.get(t)
        if h is None:
            return node
        return h(node, self)


def merge(*handler_maps: dict) -> dict:
    """One handler per node type, trying the converters' handlers in order."""
    by_type: dict = {}
    for m in handler_maps:
        for t, h in m.items():
            by_type.setdefault(t, []).append(h)
    out = {}
    for t, hs in by_type.items():
        if len(hs) == 1:
            out[t] = hs[0]
        else:
            def chained(node, walk, hs=tuple(hs)):
                for h in hs:
                    r = h(node, walk)
                    if r is not node:
                        return r
                return node
            out[t] = chained
    return out


def apply(fn_node, ctx, handlers: dict) -> None:
    """Rewrite the body of a function node with `handlers`."""
    fn_node.body = Walk(ctx, handlers).block(fn_node.body)
