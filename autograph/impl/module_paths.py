"""Fast paths of the code `autograph convert` writes (the module, not `autograph show`).

A converted module mostly runs on Python values, where no trace is being built and
`ag__.converted(f)` answers `f` itself (`operators/call.py`). The file it writes takes
that answer inline, for the two constructs that cost most per use, each exact:

    helper(x)        =>  (helper if not ag__.tracing_anywhere else ag__.converted(helper))(x)
    x = ag__.setitem(x, i, v)   =>   if x.__class__ is list or x.__class__ is dict:
                                         x[i] = v
                                     else:
                                         x = ag__.setitem(x, i, v)

A called name is read twice (reading a name has no effects); an attribute callee
(`obj.step(x)`) keeps `ag__.converted(obj.step)`, which reads it once. The subscript
store form is the one `ag.function` compiles (`converters/fast_paths.py`). While a
trace is being built on any thread every call asks `ag__.converted`, as before.
Each function then starts with `if not ag__.tracing_anywhere:` and the copy of its body
that runs on Python values, its statements and calls as written
(`converters/python_copy.py`).
`autograph show` and `ag.to_code` print the short form.
"""
from __future__ import annotations

import gast

from autograph.converters.fast_paths import compile_subscript_stores
from autograph.converters.python_copy import install, python_copy
from autograph.pyct import templates
from autograph.pyct.all_nodes import subtree_fields

_CALL = "(f if not ag__.tracing_anywhere else ag__.converted(f))"


def add_fast_paths(node, ctx) -> None:
    """Rewrite the routed calls of names and the subscript stores in `node` (a converted
    function) in place."""
    ops = ctx.out.ops_name
    cells: list = []  # the compiled code's tracing cell: here, `ag__.tracing_anywhere`
    if ctx.out.item_stores:  # (else there is no store: spare the walk)
        compile_subscript_stores(node, ctx, cells)
    if cells:
        _AnyTrace(set(cells), ops).visit(node)
    template = _CALL.replace("ag__", ops)
    for n in _calls(node):
        if _routes_a_name(n.func, ops):
            n.func = templates.replace_expr(template, origin=n.func, f=n.func.args[0].id)
    copy = python_copy(node, ctx, module=True)  # its statements as written, behind
    if copy is not None:                         # `if not ag__.tracing_anywhere:`
        install(node, copy)


def _calls(node) -> list:
    """Every `Call` node in `node`'s tree. (A walk over every function's whole converted
    tree: it skips the fields that never hold a call, which are most of its nodes.)"""
    out, stack = [], [node]
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        cls = n.__class__
        if cls is gast.Call:
            out.append(n)
        d = n.__dict__
        for field in subtree_fields(cls):
            v = d.get(field)
            if type(v) is list:
                for item in v:
                    if isinstance(item, gast.AST):
                        push(item)
            elif isinstance(v, gast.AST):
                push(v)
    return out


def _routes_a_name(func, ops: str) -> bool:
    """Whether `func` is `<ops>.converted(<name>)`."""
    return isinstance(func, gast.Call) and len(func.args) == 1 and not func.keywords and \
        isinstance(func.args[0], gast.Name) and isinstance(func.func, gast.Attribute) and \
        func.func.attr == "converted" and isinstance(func.func.value, gast.Name) and \
        func.func.value.id == ops


class _AnyTrace(gast.NodeTransformer):
    """Reads of the compiled code's tracing cell become `<ops>.tracing_anywhere` (the
    module has no cell: any trace being built, on any thread, takes the graph form)."""

    def __init__(self, names: set, ops: str):
        self.names, self.ops = names, ops

    def visit_Name(self, n):
        if n.id not in self.names:
            return n
        return templates.replace_expr(f"{self.ops}.tracing_anywhere", origin=n)
