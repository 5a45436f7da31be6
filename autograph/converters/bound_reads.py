"""Variables the branch and loop-body functions read, bound when they are made, in the
code a converted function is compiled to run (`impl/api.py`; `ag.to_code` shows the
closures as the converters write them).

A variable of the user's function that a generated function reads freely makes it a
closure cell of the whole function: every call then allocates the cell (for `fib(n)`,
a fifth of the call), and the Python path reads it through the cell. The functional form
runs its functions at once, while the user's function waits in `ag__.if_stmt` /
`while_stmt` / `for_stmt`, so they read the value the variable has when they are made:
it is passed as a keyword-only default instead,

    def if_false():                          def if_false(*, n=n):
        return fib(n - 1) + fib(n - 2)   =>      return fib(n - 1) + fib(n - 2)
    return ag__.if_stmt(...)                 try:
                                                 return ag__.if_stmt(...)
                                             finally:
                                                 del if_false

Only where that is exact: functions defined right before the operator call that runs
them; variables local to the user's function (not global / nonlocal), surely bound
there (the dataflow analysis' `MUST_IN` of the statement the functional form stands for,
no read through `ag__.ld`, never deleted), never bound anywhere inside the
function (a parameter or an assignment of a nested one), and that no closure can rebind
meanwhile (none of the user's captures them, no generated code declares them nonlocal).
"""
from __future__ import annotations

import gast

from autograph.pyct import anno

_RUNS = frozenset({"if_stmt", "while_stmt", "for_stmt"})
_SKIP = (gast.Global, gast.Nonlocal, gast.Import, gast.ImportFrom)  # (binding otherwise)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def bind_reads(node, ctx) -> None:
    """Bind the free reads of the generated functions in `node` (the converted function),
    in place."""
    fn = ctx.info.fn
    if not isinstance(node, gast.FunctionDef) or fn is None or \
            not hasattr(fn, "__code__"):
        return
    local = _locals(node)
    if local is None:
        return
    local -= set(fn.__code__.co_cellvars) | _never_safe(node, ctx.out.ops_name)
    if local:
        _blocks(node.body, local, ctx.namer.generated, ctx.out.ops_name)


def _blocks(stmts: list, local: set, generated: set, ops: str, surely=frozenset()) -> None:
    """Walk the statement lists of the user's function's own scope. `surely`: the locals
    surely bound where the functional forms met here are made (the dataflow analysis'
    `MUST_IN` of the statement they stand for)."""
    bound: list = []  # the defs given defaults, before the statement that runs them
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, gast.FunctionDef) and stmt.name in generated:
            if _run_next(stmts, k, ops) and _bind(stmt, local & surely, ops):
                bound.append(stmt.name)
            continue
        if bound:
            stmts[k] = _dropping(stmt, bound)
            bound = []
        if isinstance(stmt, _SCOPES):
            continue
        inner = _governed(stmts, k) or surely
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(stmt, field, None)
            if not isinstance(block, list):
                continue
            if block and isinstance(block[0], gast.stmt):
                _blocks(block, local, generated, ops, inner)
            else:
                for part in block:  # except handlers, match cases
                    _blocks(getattr(part, "body", []), local, generated, ops, inner)


def _governed(stmts: list, k: int):
    """`MUST_IN` of the user's statement whose functional form `stmts[k]` holds: the
    inline statement first in a dual-path `if` (`dual_path.py`), or in the `try` before a
    hand-over (`fast_tests.py`); None for other statements."""
    stmt = stmts[k]
    if not isinstance(stmt, gast.If):
        return None
    inline = stmt.body[0] if stmt.body else None
    if k and isinstance(stmts[k - 1], gast.Try) and stmts[k - 1].body and \
            _is_handover_check(stmt.test):
        inline = stmts[k - 1].body[0]
    if isinstance(inline, (gast.If, gast.While, gast.For)):
        return anno.get(inline, anno.MUST_IN, None)
    return None


def _is_handover_check(test) -> bool:
    """`<handover> is not None` (`fast_tests.py`)."""
    return isinstance(test, gast.Compare) and isinstance(test.left, gast.Name) and \
        test.left.id.startswith("ag__handover") and len(test.ops) == 1 and \
        isinstance(test.ops[0], gast.IsNot)


def _run_next(stmts: list, k: int, ops: str) -> bool:
    """Whether the def at `k` is followed (after other defs only) by a statement calling
    one of the operators that run it (`<ops>.if_stmt(...)`, ...)."""
    for stmt in stmts[k + 1:]:
        if isinstance(stmt, gast.FunctionDef):
            continue
        return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and
                   n.func.attr in _RUNS and isinstance(n.func.value, gast.Name) and
                   n.func.value.id == ops for n in gast.walk(stmt))
    return False


def _dropping(stmt, names: list):
    """`try: stmt finally: del <names>`: the defaults hold the values they were given,
    which a closure cell would not (an array's reference count is how `setitem` tells
    whether another name sees it: `operators/sole_holder.py`), only while they run."""
    drop = gast.Delete(targets=[gast.Name(id=n, ctx=gast.Del(), annotation=None,
                                          type_comment=None) for n in names])
    new = gast.Try(body=[stmt], handlers=[], orelse=[], finalbody=[drop])
    for node in (drop, new):
        gast.copy_location(node, stmt)
    return new


def _bind(fn, local: set, ops: str) -> bool:
    reads, bound, deferred = set(), set(), set()
    for n in gast.walk(fn):
        if isinstance(n, _SKIP):
            return False
        if isinstance(n, gast.Name):
            (reads if isinstance(n.ctx, gast.Load) else bound).add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)):
            bound.add(n.name)
        elif isinstance(n, gast.Call) and _is_ld(n, ops):
            deferred.add(n.args[0].id)
    names = sorted((reads - bound - deferred) & local)
    for name in names:
        fn.args.kwonlyargs.append(gast.Name(id=name, ctx=gast.Param(), annotation=None,
                                            type_comment=None))
        fn.args.kw_defaults.append(gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                             type_comment=None))
    return bool(names)


def _is_ld(call, ops: str) -> bool:
    """`<ops>.ld(name)`: a read of a variable that may not be bound."""
    f = call.func
    return isinstance(f, gast.Attribute) and f.attr == "ld" and \
        isinstance(f.value, gast.Name) and f.value.id == ops and len(call.args) == 1 and \
        isinstance(call.args[0], gast.Name)


def _locals(node):
    """The names the function binds in its own scope (parameters, assignments), less
    those it declares global / nonlocal; None when it has a construct this pass leaves."""
    names = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    names |= {a.id for a in (node.args.vararg, node.args.kwarg) if a is not None}
    declared: set = set()
    stack = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            declared.update(n.names)
        elif isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            names.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(n.name)
            stack += getattr(n, "decorator_list", [])
            continue
        elif isinstance(n, (gast.Lambda,) + _SCOPES[4:]):
            continue
        elif isinstance(n, (gast.Import, gast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
        stack.extend(gast.iter_child_nodes(n))
    return names - declared


def _never_safe(node, ops: str) -> set:
    """Names deleted anywhere, or declared nonlocal by any function inside."""
    out: set = set()
    for n in gast.walk(node):
        if isinstance(n, gast.Nonlocal):
            out.update(n.names)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del):
            out.add(n.id)
    return out
