"""Closures keep Python's late binding: one cell per variable, shared by every closure.

In Python, a nested `def` or `lambda` reads the *variable* of the enclosing function,
not its value when the closure was made: all the lambdas made in

    for i in range(3):
        fs.append(lambda v: v + i)

see the final `i`. Generated branch and loop-body functions take their state as
parameters, so a closure made inside one would capture that function's own parameter
(a fresh cell per iteration) - early binding. For every local variable a nested scope
reads (or declares `nonlocal`), each generated function that binds it instead declares
it `nonlocal`, so that all writes go to the single variable of the user's function:

    def loop_body(i_1, fs):           # the state still comes in and goes out as values
        nonlocal i                    # (what the operators and the graph path rely on)
        i = i_1
        fs = ag__.list_append(fs, lambda v: v + i)
        return fs

Where the user's function itself would not bind such a variable outside generated
functions, a bare annotation `i: 'cell'` (which assigns and evaluates nothing) makes
it a local of the function, so the `nonlocal` declarations have a variable to refer to.
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates
from autograph.pyct.activity import _scope_free_reads, bound_names, declared
from autograph.pyct.blocks import statements
from autograph.pyct.all_nodes import all_nodes, child_nodes

_FUNCTION_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def captured_names(fn_node, local: set) -> set:
    """Locals of the function that a nested function, lambda or class refers to (reads,
    or declares `nonlocal`). Comprehensions run at once, so only the closures inside
    them count."""
    out: set = set()
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if anno.get(n, anno.GETTER, False):
            continue  # `locals()`'s getters only read, where the call stands
        if isinstance(n, _FUNCTION_SCOPES):
            out |= _scope_free_reads(n)
            for inner in all_nodes(n):
                if isinstance(inner, gast.Nonlocal):
                    out.update(inner.names)
            continue
        stack.extend(child_nodes(n))
    return out & set(local)


def share_cells(fn_node, captured: set, generated: set, namer,
                global_names: set = frozenset()) -> None:
    """Make the generated functions inside `fn_node` (by name: `generated`) write the
    captured variables of the user's function instead of locals of their own (its
    `global_names` through `global` declarations, the others through `nonlocal`)."""
    if not captured:
        return
    found = False
    glob, nonloc = declared(fn_node)
    for n in statements(fn_node.body):
        if isinstance(n, gast.FunctionDef) and n.name in generated:
            found = _share(n, captured, generated, namer, global_names, glob | nonloc) or found
    if not found:
        return
    outer = bound_names(fn_node)  # (`statements` does not enter the generated functions)
    missing = sorted(captured - outer - glob - nonloc)
    if missing:
        decls = [templates.replace(f"{name}: 'cell'", origin=fn_node)[0] for name in missing]
        body = fn_node.body
        at = 1 if body and isinstance(body[0], gast.Expr) and \
            isinstance(body[0].value, gast.Constant) and isinstance(body[0].value.value, str) \
            else 0
        fn_node.body = body[:at] + decls + body[at:]


def _share(fn, captured: set, generated: set, namer, global_names: set,
           declared_names: set) -> bool:
    """Declare the captured names `fn` binds `nonlocal` / `global` (renaming such
    parameters and assigning them on entry); recurses into the generated functions
    nested in it."""
    inner = False
    for n in statements(fn.body):
        if isinstance(n, gast.FunctionDef) and n.name in generated:
            inner = _share(n, captured, generated, namer, global_names,
                           declared_names) or inner
    names = sorted(bound_names(fn) & captured)
    if not names:
        return inner
    entry = []
    for arg in fn.args.args:
        if arg.id in captured:
            fresh = namer.new(arg.id)
            entry.append((arg.id, fresh))
            arg.id = fresh
    _drop_annotations(fn, set(names))
    decls = []
    for kind, group in ((gast.Global, [n for n in names if n in global_names]),
                        (gast.Nonlocal, [n for n in names if n not in global_names])):
        if group:
            decls.append(templates.copy_location(kind(names=group), fn))
    assigns = []
    for name, fresh in entry:
        assigns += templates.replace("name = fresh", origin=fn, name=name, fresh=fresh)
        if name in declared_names:  # it may come in `Undefined` (`state_passing.state_value`)
            assigns += templates.replace("if not ag__.defined(name):\n    del name",
                                         origin=fn, name=name)
    fn.body = decls + assigns + fn.body
    return True


def unannotate_declared(node) -> None:
    """`x: T = v` -> `x = v` in every function of `node` that declares `x` `nonlocal` /
    `global` (the converters write such declarations into generated functions, e.g. a
    graph `try` body; an annotated name there is a SyntaxError)."""
    for fn in all_nodes(node):
        if isinstance(fn, gast.FunctionDef):
            names = {name for s in statements(fn.body)
                     if isinstance(s, (gast.Nonlocal, gast.Global)) for name in s.names}
            if names:
                _drop_annotations(fn, names)


def _drop_annotations(fn, names: set) -> None:
    """`x: T = v` -> `x = v` (a bare `x: T` goes) for the names `fn` will declare nonlocal:
    Python forbids annotating a nonlocal name, and the annotation of a local variable is
    never evaluated, so nothing else changes."""
    def rewrite(block: list) -> list:
        out = []
        for n in block:
            if isinstance(n, gast.AnnAssign) and isinstance(n.target, gast.Name) and \
                    n.target.id in names:
                if n.value is None:
                    continue
                n = templates.copy_location(
                    gast.Assign(targets=[n.target], value=n.value, type_comment=None), n)
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                part = getattr(n, field, None)
                if isinstance(part, list) and not isinstance(n, (gast.FunctionDef,
                                                                 gast.ClassDef)):
                    setattr(n, field, rewrite(part))
            out.append(n)
        return out if out or not block else [gast.copy_location(gast.Pass(), block[0])]

    fn.body = rewrite(fn.body)

