"""`locals()`, `vars()` and `dir()` without arguments: the user's variables only.

Converted code has names of its own (`ag__`, `if_true`, `loop_body`, flags), and a
`locals()` inside a branch or loop body would only see that generated function's
variables. The call becomes a dict of getters, one per variable of the user's function
(its parameters and locals, and the enclosing variables it reads), each a lambda that
reads the variable where the call stands - so lexical scoping finds its current value,
whether it lives in the user's function or is the state of a generated function:

    print(locals())  =>  print(ag__.with_locals(locals, {'x': lambda: x, 'y': lambda: y})())

`ag__.locals_` leaves out the variables that are not bound yet, as `locals()` does.
`eval(source)` and `exec(source)` (no namespaces given) see the same variables, as in
Python. The called name is looked up when the call runs (`ag__.with_locals` gets it):
a global that shadows the builtin (also one `from X import *` binds) is called as is.
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates
from autograph.pyct.activity import declared

_CALLS = ("locals", "vars", "dir")
_EVALS = ("eval", "exec")


def user_variables(fn_node, ctx, local: set, free_reads: set) -> list:
    """The variables `locals()` shows in the user's function: parameters, then locals
    and the free variables it reads, in order of appearance."""
    glob, nonloc = declared(fn_node) if isinstance(fn_node, gast.FunctionDef) else (set(), set())
    names = (set(local) | nonloc | set(free_reads)) - glob - {"ag__"}
    args = fn_node.args
    params = [a.id for a in args.posonlyargs + args.args + [args.vararg] + args.kwonlyargs +
              [args.kwarg] if a is not None]
    params = [n for n in params if n in names]
    rest = sorted(names - set(params), key=lambda n: (ctx.first_seen(n), n))
    return params + rest


def transform(fn_node, ctx, local: set, free_reads: set) -> None:
    """Rewrite the argument-less `locals()` / `vars()` / `dir()` calls of the function
    (not of nested functions: they are converted on their own; nor of class bodies and
    lambdas, whose namespaces are their own)."""
    names = None
    stack = [fn_node]
    while stack:
        n = stack.pop()
        for field, value in gast.iter_fields(n):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if not isinstance(item, gast.AST):
                    continue
                if isinstance(item, gast.Call) and _is_introspection(item, ctx, local):
                    if names is None:
                        names = user_variables(fn_node, ctx, local, free_reads)
                    new = _table_call(item, names)
                    if isinstance(value, list):
                        value[k] = new
                    else:
                        setattr(n, field, new)
                elif not (isinstance(item, (gast.FunctionDef, gast.AsyncFunctionDef,
                                            gast.ClassDef, gast.Lambda))
                          and item is not fn_node):
                    # (a class body's or lambda's `locals()` is its own namespace)
                    stack.append(item)


def _is_introspection(node, ctx, local: set) -> bool:
    f = node.func
    if not isinstance(f, gast.Name) or f.id in local:
        return False
    if f.id in _EVALS:  # only the source: Python's eval / exec use the function's locals
        return len(node.args) == 1 and not node.keywords and \
            not isinstance(node.args[0], gast.Starred)
    return f.id in _CALLS and not node.args and not node.keywords


def _table_call(node, names: list):
    keys, getters = [], []
    for name in names:
        keys.append(gast.Constant(value=name, kind=None))
        getter = templates.replace_expr("lambda: name", origin=node, name=name)
        anno.set_(getter, anno.GETTER, True)  # not a user closure (`closures.captured_names`)
        getters.append(getter)
    table = gast.Dict(keys=keys, values=getters)
    node.func = templates.replace_expr("ag__.with_locals(fn, table)", origin=node.func,
                                       fn=node.func, table=table)
    return node
