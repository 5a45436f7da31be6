"""Activity analysis: which names a piece of code reads and which it modifies.

Names are strings; a modified attribute of a local (`self.count = ...`) is the
qualified name "self.count". Nested functions, lambdas and comprehensions are scopes
of their own: what they read from outside counts as a read where they are defined (a
closure reads its free variables), what they assign does not leak out. The `def`
statement itself writes the function's name.

A note on beniget: it computes def-use chains for whole modules and would replace
`reads`/`writes` below, but not the block-level liveness the converters need (which
variables a branch or loop body must take and return); those are short passes over
structured code (`dataflow.py`), so a second dependency did not make the code smaller.
"""
from __future__ import annotations

import gast

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def qualified_name(node) -> str | None:
    """'a.b.c' for a Name/Attribute chain rooted at a Name, else None."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _target_names(target, out: set) -> None:
    if isinstance(target, gast.Name):
        out.add(target.id)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for e in target.elts:
            _target_names(e, out)
    elif isinstance(target, gast.Starred):
        _target_names(target.value, out)
    elif isinstance(target, gast.Attribute):
        qn = qualified_name(target)
        if qn is not None:
            out.add(qn)
    elif isinstance(target, gast.Subscript):
        qn = qualified_name(target.value)
        if qn is not None:
            out.add(qn)


def target_names(target) -> set:
    """Names bound by an assignment target."""
    out: set = set()
    _target_names(target, out)
    return out


def _scope_free_reads(node) -> set:
    """Names a nested scope reads from its enclosing scope (an over-approximation)."""
    loads, local = set(), set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, gast.Load):
                loads.add(n.id)
            else:
                local.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n is not node:
            local.add(n.name)
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        # decorators and defaults are evaluated outside
        for d in node.decorator_list + node.args.defaults:
            loads |= reads(d)
    return loads - local


def reads(node) -> set:
    """Simple names read by an expression or statement (closures: their free names)."""
    out: set = set()
    _reads(node, out)
    return out


def _reads(node, out: set) -> None:
    if isinstance(node, list):
        for n in node:
            _reads(n, out)
        return
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load):
            out.add(node.id)
        return
    if isinstance(node, _SCOPES):
        out |= _scope_free_reads(node)
        return
    if isinstance(node, gast.AugAssign):
        _reads_target_as_load(node.target, out)
    if isinstance(node, gast.AST):
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, (list, gast.AST)):
                _reads(value, out)


def _reads_target_as_load(target, out: set) -> None:
    if isinstance(target, gast.Name):
        out.add(target.id)
    else:
        _reads(target, out)


_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Try)


def writes(node) -> set:
    """Names (and qualified attribute names) modified by a statement or block.

    Memoized on compound statements (`_ag_w`): the analysis runs once the jump
    converters are done, and later passes only replace those statements wholesale
    (`control_flow.rename_composites` drops the memo where it renames)."""
    out: set = set()
    _writes(node, out)
    return out


def _writes(node, out: set) -> None:
    if isinstance(node, list):
        for n in node:
            _writes(n, out)
        return
    if isinstance(node, _COMPOUND):
        memo = node.__dict__.get("_ag_w")
        if memo is None:
            memo = set()
            _writes_fields(node, memo)
            node._ag_w = memo
        out |= memo
        return
    _writes_fields(node, out)


def _writes_fields(node, out: set) -> None:
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        out.add(node.name)
        return
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                         gast.GeneratorExp)):
        return
    if isinstance(node, gast.Assign):
        for t in node.targets:
            _target_names(t, out)
    elif isinstance(node, (gast.AugAssign, gast.AnnAssign)):
        _target_names(node.target, out)
    elif isinstance(node, (gast.For, gast.AsyncFor)):
        _target_names(node.target, out)
    elif isinstance(node, gast.NamedExpr):
        _target_names(node.target, out)
    elif isinstance(node, gast.withitem) and node.optional_vars is not None:
        _target_names(node.optional_vars, out)
    elif isinstance(node, gast.ExceptHandler) and node.name is not None:
        _target_names(node.name, out)
    elif isinstance(node, (gast.Import, gast.ImportFrom)):
        for alias in node.names:
            out.add((alias.asname or alias.name).split(".")[0])
    if isinstance(node, gast.AST):
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, (list, gast.AST)):
                _writes(value, out)


def declared(node) -> tuple[set, set]:
    """(global names, nonlocal names) declared in a function body (not nested scopes)."""
    glob, nonloc = set(), set()
    stack = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Global):
            glob.update(n.names)
        elif isinstance(n, gast.Nonlocal):
            nonloc.update(n.names)
        elif isinstance(n, _SCOPES):
            continue
        for field in n._fields:
            value = getattr(n, field, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, gast.stmt))
    return glob, nonloc


def bound_names(fn_node) -> set:
    """Names the function binds itself: parameters and plain-name assignment targets (not
    the bases of `x[i] = v` / `x.a = v`), defs and imports; nested scopes excluded."""
    out = {a.id for a in gast.walk(fn_node.args) if isinstance(a, gast.Name)}
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, gast.Store):
                out.add(n.id)
            continue
        if isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, _SCOPES):
            continue
        if isinstance(n, (gast.Import, gast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        for field in n._fields:
            v = getattr(n, field, None)
            if isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, gast.AST))
            elif isinstance(v, gast.AST):
                stack.append(v)
    glob, nonloc = declared(fn_node)
    return out - glob - nonloc
