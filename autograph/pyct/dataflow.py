"""Reaching definitions and liveness over structured code, stored on the AST nodes.

Runs on a function body after jumps were converted (no `break` / `continue` left, and
`return` only at the end of blocks), so control flow is structured and two simple
passes suffice:

- forward (`_Definitions`): which local names are *maybe* and which are *surely*
  defined at each compound statement (`ag_maybe_in`, `ag_must_in`), which reads
  may see an undefined local (`ag_maybe_undefined` on the Name node), and which
  attribute chains surely exist where a generated call passes them in (`ag_attrs_in`:
  assigned, or read where the read always runs, on every path - see `attrs_seen`);
- backward (`_liveness`): which names are live after each compound statement
  (`ag_live_out`), at the start of each branch (`ag_live_body`, `ag_live_orelse`), and
  at a loop's head (`ag_live_head`, to a fixed point).

The converters use these to choose exactly the variables that a branch or loop body
takes and returns.
"""
from __future__ import annotations

import gast

from autograph.pyct import anno
from autograph.pyct.activity import (
    _SCOPES, pattern_names, qualified_name, reads, target_names, writes,
)
from autograph.pyct.all_nodes import subtree_fields
from autograph.pyct.blocks import exhaustive, statements

_TERMINAL = None  # the state after a `return` / `raise`: nothing flows on


def analyze(fn_node, params: set, local: set) -> None:
    """Annotate the body of a FunctionDef node (nested functions are not entered)."""
    _Definitions(local).block(fn_node.body, set(params), set(params))
    _liveness(fn_node.body, set())


def extra_test_reads(node) -> set:
    test = anno.get(node, anno.EXTRA_TEST, None)
    return reads(test) if test is not None else set()


# -- liveness ---------------------------------------------------------------------------
def _simple(names: set) -> set:
    return {n for n in names if "." not in n}


def _kills(stmt) -> set:
    if isinstance(stmt, gast.Assign):
        out = set()
        for t in stmt.targets:
            if isinstance(t, (gast.Name, gast.Tuple, gast.List)):
                out |= target_names(t)
        return _simple(out)
    if isinstance(stmt, gast.AnnAssign) and stmt.value is not None and \
            isinstance(stmt.target, gast.Name):
        return {stmt.target.id}
    if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
        return {stmt.name}
    return set()


def _liveness(stmts: list, live: set) -> set:
    for s in reversed(stmts):
        if isinstance(s, gast.If):
            anno.set_(s, anno.LIVE_OUT, frozenset(live))
            lb = _liveness(s.body, live)
            lo = _liveness(s.orelse, live)
            anno.set_(s, anno.LIVE_BODY, frozenset(lb))
            anno.set_(s, anno.LIVE_ORELSE, frozenset(lo))
            live = lb | lo | reads(s.test)
        elif isinstance(s, (gast.While, gast.For)):
            anno.set_(s, anno.LIVE_OUT, frozenset(live))
            is_for = isinstance(s, gast.For)
            extra = extra_test_reads(s) | (set() if is_for else reads(s.test))
            targets = target_names(s.target) if is_for else set()
            head = live | extra
            for _ in range(20):
                body_in = _liveness(s.body, head) - targets
                new_head = head | body_in
                if new_head == head:
                    break
                head = new_head
            anno.set_(s, anno.LIVE_HEAD, frozenset(head))
            live = head | (reads(s.iter) if is_for else set())
            if s.orelse:
                live |= _liveness(s.orelse, set(anno.get(s, anno.LIVE_OUT)))
        elif isinstance(s, (gast.Return, gast.Raise)):
            live = reads(s)
        elif isinstance(s, gast.Match):
            inner = set() if exhaustive(s) else set(live)  # no case matched: falls through
            for c in s.cases:
                in_case = _liveness(c.body, live) | (reads(c.guard) if c.guard else set())
                inner |= (in_case - pattern_names(c.pattern)) | reads(c.pattern)
            live = inner | reads(s.subject)
        elif isinstance(s, gast.With):  # `as` names are bound here, not live before
            bound = {n for i in s.items if isinstance(i.optional_vars, gast.Name)
                     for n in target_names(i.optional_vars)}
            live = (_liveness(s.body, live) - bound) | reads(s.items)
        elif isinstance(s, gast.Try):
            anno.set_(s, anno.LIVE_OUT, frozenset(live))
            inner = set(live)
            for h in s.handlers:  # `except E as e` binds e on entry: not live before
                inner |= (_liveness(h.body, live) - handler_names(h)) | \
                    (reads(h.type) if h.type is not None else set())
            inner |= _liveness(s.finalbody, live) | _liveness(s.orelse, live)
            live = inner | _liveness(s.body, inner)
        else:
            live = (live - _kills(s)) | reads(s)
    return live


def handler_names(handler) -> set:
    """The name `except E as e` binds (in the handler only: Python unbinds it after)."""
    return target_names(handler.name) if handler.name is not None else set()


# -- attribute chains that surely exist ------------------------------------------------------
def attrs_seen(node) -> set:
    """Attribute chains (`self.count`, and `a.b` of `a.b.c`) that exist once `node` ran
    without an error: the ones it assigns, and the ones it reads where the read always
    runs (not in a later operand of `and` / `or`, a branch of a ternary or a nested scope)."""
    out: set = set()
    stack = list(node) if isinstance(node, list) else [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Attribute) and not isinstance(n.ctx, gast.Del):
            qn = qualified_name(n)
            if qn is not None:
                parts = qn.split(".")
                out.update(".".join(parts[:k]) for k in range(2, len(parts) + 1))
                continue
        if isinstance(n, _SCOPES) or not isinstance(n, gast.AST):
            continue
        if isinstance(n, gast.BoolOp):
            stack.append(n.values[0])
        elif isinstance(n, gast.IfExp):
            stack.append(n.test)
        else:
            d = n.__dict__
            for field in subtree_fields(n.__class__):
                v = d.get(field)
                if isinstance(v, list):
                    stack.extend(v)
                elif isinstance(v, gast.AST):
                    stack.append(v)
    return out


def _forget(must: set, node, rebound: set = frozenset()) -> set:
    """`must` without the attribute chains `node` may invalidate: those of a rebound name
    (`b = ...` forgets `b.v`), below a reassigned chain, or deleted."""
    if not any("." in n for n in must):
        return must
    written = writes(node) | set(rebound)
    roots = {n for n in written if "." not in n}
    chains = {n for n in written if "." in n}
    deleted = {qualified_name(t) for d in statements(node) if isinstance(d, gast.Delete)
               for t in d.targets}
    deleted.discard(None)

    def gone(n: str) -> bool:
        return n.split(".", 1)[0] in roots or any(n.startswith(c + ".") for c in chains) \
            or any(n == c or n.startswith(c + ".") for c in deleted)
    return {n for n in must if "." not in n or not gone(n)}


def _attrs(must: set) -> frozenset:
    return frozenset(n for n in must if "." in n)


# -- reaching definitions ----------------------------------------------------------------
class _Definitions:
    def __init__(self, local: set):
        self.local = local

    def mark(self, node, maybe: set, must: set) -> None:  # noqa: ARG002
        """Flag reads of locals that may be undefined here (closures are not marked)."""
        stack = list(node) if isinstance(node, list) else [node]
        while stack:
            n = stack.pop()
            if isinstance(n, gast.Name):
                if isinstance(n.ctx, gast.Load) and n.id in self.local and n.id not in must:
                    anno.set_(n, anno.MAYBE_UNDEFINED, True)
                continue
            if isinstance(n, _SCOPES):
                continue
            d = n.__dict__
            for field in subtree_fields(n.__class__):
                v = d.get(field)
                if isinstance(v, list):
                    stack.extend(x for x in v if isinstance(x, gast.AST))
                elif isinstance(v, gast.AST):
                    stack.append(v)

    def block(self, stmts: list, maybe: set, must: set):
        for k, s in enumerate(stmts):
            result = self.stmt(s, maybe, must)
            if result is _TERMINAL:
                # unreachable statements after a `return` / `raise` are still annotated
                # (the converters handle every statement alike)
                if k + 1 < len(stmts):
                    self.block(stmts[k + 1:], set(maybe), set(must))
                return _TERMINAL
            maybe, must = result
        return maybe, must

    def stmt(self, s, maybe: set, must: set):
        if isinstance(s, gast.If):
            anno.set_(s, anno.MAYBE_IN, frozenset(maybe))
            anno.set_(s, anno.MUST_IN, frozenset(must))
            self.mark(s.test, maybe, must)
            must = must | attrs_seen(s.test)
            anno.set_(s, anno.ATTRS_IN, _attrs(must))
            a = self.block(s.body, set(maybe), set(must))
            b = self.block(s.orelse, set(maybe), set(must))
            if a is _TERMINAL:
                return b
            if b is _TERMINAL:
                return a
            return a[0] | b[0], a[1] & b[1]
        if isinstance(s, (gast.While, gast.For)):
            anno.set_(s, anno.MAYBE_IN, frozenset(maybe))
            anno.set_(s, anno.MUST_IN, frozenset(must))
            body_writes = _simple(writes(s.body))
            head_maybe = maybe | body_writes
            if isinstance(s, gast.For):
                self.mark(s.iter, maybe, must)
                must = must | attrs_seen(s.iter)
                anno.set_(s, anno.ATTRS_IN, _attrs(must))
                targets = target_names(s.target)
                head_must = _forget(must, s.body, targets)
                self.block(s.body, head_maybe | targets, head_must | targets)
                head_maybe |= targets
            else:
                anno.set_(s, anno.ATTRS_IN, _attrs(must))
                self.mark(s.test, head_maybe, must)
                head_must = _forget(must, s.body) | attrs_seen(s.test)
                self.block(s.body, set(head_maybe), set(head_must))
            if anno.get(s, anno.EXTRA_TEST, None) is not None:
                self.mark(anno.get(s, anno.EXTRA_TEST), head_maybe, must)
            result = (head_maybe, head_must)
            if s.orelse:
                out = self.block(s.orelse, set(head_maybe), set(head_must))
                result = out if out is not _TERMINAL else result
            return result
        if isinstance(s, (gast.Return, gast.Raise)):
            self.mark(s, maybe, must)
            return _TERMINAL
        if isinstance(s, gast.Match):
            return self.match(s, maybe, must)
        if isinstance(s, gast.With):
            self.mark(s.items, maybe, must)
            w = _simple(writes(s.items))
            must = _forget(must | attrs_seen(s.items), s.items) | w
            return self.block(s.body, maybe | w, must)
        if isinstance(s, gast.Try):
            # `except E as e` binds e in its handler only (Python deletes it at the end)
            for h in s.handlers:
                bound = handler_names(h)
                if h.type is not None:
                    self.mark(h.type, maybe, must)
                self.mark(h.body, maybe | bound, must | bound)
            self.mark(s.body + s.orelse + s.finalbody, maybe, must)
            w = _simple(writes(s))
            unbound = set().union(*(handler_names(h) for h in s.handlers))
            return maybe | w, (_forget(must, s) - unbound) | _simple(writes(s.finalbody))
        self.mark(s, maybe, must)
        w = _simple(writes(s))
        return maybe | w, _forget(must | attrs_seen(s), s) | w

    def match(self, s, maybe: set, must: set):
        """A `match`: one path per case, plus "no case matched" unless one always does."""
        self.mark(s.subject, maybe, must)
        must = must | attrs_seen(s.subject)
        paths = [] if exhaustive(s) else [(maybe, must)]
        for c in s.cases:
            self.mark(c.pattern, maybe, must)
            bound = pattern_names(c.pattern)
            c_maybe, c_must = maybe | bound, _forget(must, [], bound) | bound
            if c.guard is not None:
                self.mark(c.guard, c_maybe, c_must)
            out = self.block(c.body, set(c_maybe), set(c_must))
            if out is not _TERMINAL:
                paths.append(out)
        if not paths:
            return _TERMINAL
        return set().union(*(p[0] for p in paths)), set.intersection(*(set(p[1]) for p in paths))
