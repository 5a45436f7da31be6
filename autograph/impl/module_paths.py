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
Each function (and each function nested in it) then starts with `if not
ag__.tracing_anywhere:` and the copy of its body that runs on Python values, its
statements and calls as written (`converters/python_copy.py`); its converted body
follows in a nested function, called with its parameters (`install_beside`), so that
the copy compiles as the original does - no closure cell, no free variable, no local
but that function's name:

    def f(x):                                def f(x):
        <converted body>          =>             if not ag__.tracing_anywhere:
                                                     <the body as written>
                                                 def f_converted(x):
                                                     <converted body>
                                                 return f_converted(x)
`autograph show` and `ag.to_code` print the short form. Outside traces a top-level
function or method does not even ask: `@ag__.autograph_artifact` gives it the same code
entered past the question, and swaps the code that asks in while a trace is being built
(`pyct/code_switch.py`).
"""
from __future__ import annotations

import gast

from autograph.converters.fast_paths import compile_subscript_stores
from autograph.converters.python_copy import python_copy
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
    calls, defs = _calls_and_defs(node, ctx.namer.generated)
    for n in calls:
        if _routes_a_name(n.func, ops):
            n.func = templates.replace_expr(template, origin=n.func, f=n.func.args[0].id)
    # (the user's nested functions too: each of them may run on Python values; a copy
    # shares its nested functions with the converted body, so each is changed once)
    for fn in [node] + defs:
        copy = python_copy(fn, ctx, module=True)  # its statements as written, behind
        if copy is not None:                       # `if not ag__.tracing_anywhere:`
            install_beside(fn, copy, ctx.namer.new(f"{fn.name.strip('_') or 'function'}_converted"))

_BESIDE = """\
if not tracing:
    plain
def converted(params):
    declarations
    traced
return converted(params)
"""


def install_beside(node, copy, name: str) -> None:
    """`node`'s body as `if not <tracing>: <copy>` followed by its converted body, in a
    nested function that `node` then returns the call of with its parameters. So the
    copy compiles as the original does: a variable the converted body's branch and loop
    functions read is a closure cell of the nested function, not of `node` (a cell is
    made at each call and read through it on the Python path too). The nested function
    takes the parameters with their kinds (positional-only, `*args`, keyword-only,
    `**kwargs`; defaults already applied by the call of `node`, annotations left out)
    and repeats `node`'s `global` / `nonlocal` declarations; its first parameter is
    `node`'s, so a zero-argument `super()` in it means what it means in `node`. `node`
    gains one local, the nested function's name, bound only when it runs (never on the
    Python path). (The converted body stands at the depth of the copy, not in an `else`:
    the text written is no deeper than the converted body alone.)"""
    head, plain, tracing = copy
    traced = [s for s in node.body if not any(s is h for h in head)]
    declarations = [s for s in head if isinstance(s, (gast.Global, gast.Nonlocal))]
    if not _leaves(plain):
        # (the copy must not run on into the converted body: a bare `return` is what
        # running off its end does)
        plain = plain + [gast.copy_location(gast.Return(value=None), node)]
    body = templates.replace(_BESIDE, origin=node, tracing=templates.replace_expr(
        tracing, origin=node), plain=plain, converted=name,
        declarations=declarations, traced=traced, params=[])
    inner, call = body[1], body[2].value
    inner.args = _forwarded(node.args)
    call.args, call.keywords = _arguments(node.args)
    node.body = head + body


def _leaves(stmts: list) -> bool:
    """Whether `stmts` surely end in a `return` or `raise` (every branch of a last `if`)."""
    last = stmts[-1] if stmts else None
    if isinstance(last, gast.If):
        return bool(last.orelse) and _leaves(last.body) and _leaves(last.orelse)
    return isinstance(last, (gast.Return, gast.Raise))


def _forwarded(args):
    """`args` with their kinds, without defaults or annotations."""
    def param(a):
        return None if a is None else templates.name_node(a.id, gast.Param)
    return gast.arguments(
        posonlyargs=[param(a) for a in args.posonlyargs], args=[param(a) for a in args.args],
        vararg=param(args.vararg), kwonlyargs=[param(a) for a in args.kwonlyargs],
        kw_defaults=[None] * len(args.kwonlyargs), kwarg=param(args.kwarg), defaults=[])


def _arguments(args) -> tuple:
    """(positional, keywords) of a call passing the parameters `args` on as they came."""
    name = templates.name_node
    positional = [name(a.id) for a in args.posonlyargs + args.args]
    if args.vararg is not None:
        positional.append(gast.Starred(value=name(args.vararg.id), ctx=gast.Load()))
    keywords = [gast.keyword(arg=a.id, value=name(a.id)) for a in args.kwonlyargs]
    if args.kwarg is not None:
        keywords.append(gast.keyword(arg=None, value=name(args.kwarg.id)))
    return positional, keywords


def _calls_and_defs(node, generated: set) -> tuple:
    """Every `Call` node in `node`'s tree, and every function definition in it that is
    not one of the generated ones (`generated`: their names), each once. (A walk over
    every function's whole converted tree: it skips the fields that never hold a call
    or a definition, which are most of its nodes.)"""
    calls, defs, seen = [], [], set()
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        cls = n.__class__
        if cls is gast.Call:
            calls.append(n)
        elif cls is gast.FunctionDef and n is not node and n.name not in generated:
            if id(n) in seen:
                continue
            seen.add(id(n))
            defs.append(n)
        d = n.__dict__
        for field in subtree_fields(cls):
            v = d.get(field)
            if type(v) is list:
                for item in v:
                    if isinstance(item, gast.AST):
                        push(item)
            elif isinstance(v, gast.AST):
                push(v)
    return calls, defs


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
