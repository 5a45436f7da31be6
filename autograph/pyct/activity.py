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

from typing import NamedTuple

import gast

from autograph.pyct import anno
from autograph.pyct.blocks import statements
from autograph.pyct.all_nodes import all_nodes, subtree_fields

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
    for n in all_nodes(node):
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
        d = node.__dict__
        for field in subtree_fields(node.__class__):  # (not a name's context, operators)
            value = d.get(field)
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
    (`state_passing.rename_composites` drops the memo where it renames)."""
    out: set = set()
    _writes(node, out)
    return out


def _writes(node, out: set) -> None:
    if type(node) is list:
        for n in node:
            _writes(n, out)
        return
    t = type(node)
    kind = _WRITE_KINDS.get(t)
    if kind is None:
        kind = _WRITE_KINDS[t] = _write_kind(t)
    compound, what = kind
    if compound:
        memo = anno.get(node, anno.WRITES, None)
        if memo is None:
            memo = set()
            _writes_fields(node, memo, what)
            anno.set_(node, anno.WRITES, memo)
        out |= memo
        return
    _writes_fields(node, out, what)


# What `_writes_fields` does at a node, by its class (decided once per class: the chain
# of `isinstance` tests per node was most of the analysis' time)
_DEF, _SKIP, _ASSIGN, _TARGET, _ANNOTATED, _ITEM, _HANDLER, _IMPORT, _CAPTURE, _CALL, \
    _FIELDS_ONLY = range(11)
_WRITE_KINDS: dict = {}  # class -> (is a compound statement (memoized), what)


def _write_kind(t) -> tuple:
    compound = issubclass(t, _COMPOUND)
    if not issubclass(t, gast.AST):
        what = _SKIP
    elif issubclass(t, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        what = _DEF
    elif issubclass(t, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                        gast.GeneratorExp)):
        what = _SKIP
    elif issubclass(t, gast.Assign):
        what = _ASSIGN
    elif issubclass(t, gast.AnnAssign):
        what = _ANNOTATED
    elif issubclass(t, (gast.AugAssign, gast.For, gast.AsyncFor, gast.NamedExpr)):
        what = _TARGET
    elif issubclass(t, gast.withitem):
        what = _ITEM
    elif issubclass(t, gast.ExceptHandler):
        what = _HANDLER
    elif issubclass(t, (gast.Import, gast.ImportFrom)):
        what = _IMPORT
    elif issubclass(t, _CAPTURES):
        what = _CAPTURE
    elif issubclass(t, gast.Call):
        what = _CALL
    else:
        what = _FIELDS_ONLY
    return compound, what


def _writes_fields(node, out: set, what: int) -> None:
    if what == _FIELDS_ONLY:
        pass
    elif what == _DEF:
        out.add(node.name)
        return
    elif what == _SKIP:
        return
    elif what == _ASSIGN:
        for t in node.targets:
            _target_names(t, out)
    elif what == _TARGET:
        _target_names(node.target, out)
    elif what == _ANNOTATED:
        if node.value is not None:  # (a bare `x: int` declares x, assigns nothing)
            _target_names(node.target, out)
    elif what == _ITEM:
        if node.optional_vars is not None:
            _target_names(node.optional_vars, out)
    elif what == _HANDLER:
        if node.name is not None:
            _target_names(node.name, out)
    elif what == _IMPORT:
        for alias in node.names:
            out.add((alias.asname or alias.name).split(".")[0])
    elif what == _CAPTURE:
        out.update(capture_names(node))
    elif what == _CALL:
        out.update(_written_in_place(node))
    d = node.__dict__
    for field in node._fields:
        value = d.get(field)
        if type(value) is list or isinstance(value, gast.AST):
            _writes(value, out)


_CAPTURES = (gast.MatchAs, gast.MatchStar, gast.MatchMapping)


def _written_in_place(call) -> set:
    """`np.add.at(a, i, v)` and `np.put_along_axis(a, ...)` write into local `a` in place,
    as `a[i] = v` does: a branch or loop body that calls them changes `a`."""
    func, args = call.func, call.args
    if isinstance(func, gast.Call) and qualified_name(func.func) == "ag__.converted" and \
            func.args:  # `ag__.converted(f)(x)` (after the call converter)
        func = func.args[0]
    if not args or not isinstance(args[0], gast.Name) or not isinstance(func, gast.Attribute):
        return set()
    if (func.attr == "at" and isinstance(func.value, gast.Attribute)) or \
            func.attr == "put_along_axis":
        return {args[0].id}
    return set()


def capture_names(pattern) -> set:
    """Names a `case` pattern node binds itself (`case [x, *rest]`, `{**kw}`, `as p`)."""
    name = pattern.rest if isinstance(pattern, gast.MatchMapping) else \
        getattr(pattern, "name", None)
    return {name} if name else set()


def pattern_names(pattern) -> set:
    """Every name a whole `case` pattern binds."""
    out: set = set()
    for n in all_nodes(pattern):
        if isinstance(n, _CAPTURES):
            out |= capture_names(n)
    return out


def declared(node) -> tuple[set, set]:
    """(global names, nonlocal names) declared in a function body (not nested scopes)."""
    glob, nonloc = set(), set()
    for n in statements(node.body):
        if isinstance(n, gast.Global):
            glob.update(n.names)
        elif isinstance(n, gast.Nonlocal):
            nonloc.update(n.names)
    return glob, nonloc


def bound_names(fn_node, walrus: bool = True) -> set:
    """Names the function binds itself: parameters and plain-name assignment targets (not
    the bases of `x[i] = v` / `x.a = v`), defs, imports, `except ... as e` and `case`
    captures; nested scopes excluded. Assignment expressions (`:=`) are only looked for
    with `walrus` (a walk over every expression: callers pass `':=' in source`)."""
    return function_names(fn_node, walrus).bound


class FunctionNames(NamedTuple):
    bound: set          # `bound_names`
    global_names: set   # `declared`
    nonlocal_names: set
    defs: list          # the nested `def` statements (FunctionDef), in no fixed order


def function_names(fn_node, walrus: bool = True) -> FunctionNames:
    """`bound_names`, `declared` and the nested defs of a function, in one walk over its
    statements (building a scope asked for each in a walk of its own)."""
    out = {a.id for a in all_nodes(fn_node.args)
           if isinstance(a, gast.Name) and isinstance(a.ctx, gast.Param)}
    glob, nonloc, defs = set(), set(), []
    for n in statements(fn_node.body):
        t = type(n)
        if t in _DEFS:
            out.add(n.name)
            if t is gast.FunctionDef:
                defs.append(n)
        elif t is gast.Assign:
            for target in n.targets:
                _bound_targets(target, out)
        elif t in _ONE_TARGET:
            _bound_targets(n.target, out)
        elif t in (gast.With, gast.AsyncWith):
            for item in n.items:
                _bound_targets(item.optional_vars, out)
        elif t in (gast.Import, gast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif t is gast.Match:
            for c in n.cases:
                out |= pattern_names(c.pattern)
        elif t is gast.Global:
            glob.update(n.names)
        elif t is gast.Nonlocal:
            nonloc.update(n.names)
        for h in getattr(n, "handlers", None) or ():
            _bound_targets(h.name, out)
    if walrus:
        stack = list(fn_node.body)
        while stack:
            n = stack.pop()
            if isinstance(n, gast.NamedExpr):
                _bound_targets(n.target, out)
            if isinstance(n, _FUNCTION_SCOPES):  # not comprehensions: `:=` binds outside them
                continue
            for v in n.__dict__.values():
                if isinstance(v, list):
                    stack.extend(x for x in v if isinstance(x, gast.AST))
                elif isinstance(v, gast.AST):
                    stack.append(v)
    return FunctionNames(out - glob - nonloc, glob, nonloc, defs)


_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
_FUNCTION_SCOPES = _DEFS + (gast.Lambda,)
_ONE_TARGET = (gast.AugAssign, gast.AnnAssign, gast.For, gast.AsyncFor)


def _bound_targets(target, out: set) -> None:
    if isinstance(target, gast.Name):
        out.add(target.id)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for e in target.elts:
            _bound_targets(e, out)
    elif isinstance(target, gast.Starred):
        _bound_targets(target.value, out)
