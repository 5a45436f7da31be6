"""Which variables a graph `try` carries as its state (converters/try_statements.py).

The body, each handler, `else` and `finally` become generated functions that share the
function's variables through `nonlocal`; `state_of` picks those that matter outside the
part assigning them (a part's own temporaries stay local), with what is written through
attributes and subscripts as paths (`write_place`: 'box.x', or the variable `xs` of
`xs[i] = v`); `unbound_temporaries` unbinds the body's own after it. `walk_scope`,
`try_parts` and `stored_names` are the statement walks the converter's checks share.
"""
from __future__ import annotations

import gast

from autograph.pyct import templates
from autograph.pyct.activity import qualified_name
from autograph.pyct.all_nodes import all_nodes, child_nodes

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.ListComp,
           gast.SetComp, gast.DictComp, gast.GeneratorExp)


def walk_scope(stmts):
    """Every node in `stmts`, not entering nested scopes (functions, classes, lambdas,
    comprehensions: their names are their own)."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES):
            continue
        stack.extend(child_nodes(n))


def try_parts(t) -> list:
    return t.body + [s for h in t.handlers for s in h.body] + t.orelse + t.finalbody


def stored_names(stmts, places: bool = False) -> list:
    """The variables `stmts` assign, in order; with `places`, also what they write through
    subscripts and attributes (see `_write_place`)."""
    seen: dict = {}
    for n in walk_scope(stmts):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            key = n.id
        elif places and isinstance(n, (gast.Attribute, gast.Subscript)) and \
                isinstance(n.ctx, gast.Store):
            key = write_place(n)
        else:
            continue
        seen.setdefault(key, (n.lineno if hasattr(n, "lineno") else 0, n.col_offset
                              if hasattr(n, "col_offset") else 0))
    return sorted(seen, key=lambda k: (seen[k], k))


def write_place(n, local_names=None) -> str | None:
    """What a store through a subscript or attribute writes, carried as state of the
    `try` like a variable: the variable `xs` of `xs[i] = v` or `xs[i][j] = v` (one of the
    function's own, `local_names`), the attribute path 'o.x' of `o.x = v`, `o.x += 1` or
    `o.x[i] = v`; None where it is none of these (`xs[0].y = v`, `f()[0] = v`)."""
    subscript = isinstance(n, gast.Subscript)
    while isinstance(n, gast.Subscript):
        n = n.value
    name = qualified_name(n)
    if subscript and name is not None and "." not in name and local_names is not None \
            and name not in local_names:
        return None
    return name


def subscript_bases(stmts) -> set:
    """The variables `stmts` store into through subscripts (lists and dicts among them
    are written back in place: `put_back`)."""
    out = set()
    for n in walk_scope(stmts):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            place = write_place(n)
            if place is not None and "." not in place:
                out.add(place)
    return out


def state_of(t, fn, replaced=None, outside_names=frozenset()) -> list:
    """The variables the `try` assigns that matter outside the part (body, a handler,
    `else`, `finally`) assigning them: all but each part's own temporaries (a name that
    occurs in one part only, assigned there before it is read). A temporary stays local
    to its part's generated function, so a loop or branch inside the part does not see
    it read after. `replaced`: the statement of `fn` that `t` stands for (when `t` is a
    rewritten copy); `outside_names`: names read by statements not yet in `fn`."""
    handler_names = {h.name.id for h in t.handlers if isinstance(h.name, gast.Name)}
    names = [n for n in stored_names(try_parts(t), places=True) if n not in handler_names and
             n not in _nested_handler_names(t)]
    part_of: dict = {}
    for stmt in [t] + ([replaced] if replaced is not None else []):
        parts = [stmt.body, stmt.orelse, stmt.finalbody] + [h.body for h in stmt.handlers]
        for i, part in enumerate(parts):
            part_of.update((id(n), i) for s in part for n in all_nodes(s))
    places: dict = {}
    stored: set = set()
    read_first: set = set()  # (name, part) read before it is first assigned there
    in_fn = list(_in_order(fn))
    # (a rewritten copy's own names, made by lowering the jumps of a `try` nested in it,
    # occur in the copy only: where the copy uses them decides)
    known = {n.id for n, _ in in_fn}
    made = [] if replaced is None else [(n, r) for n, r in _in_order(t) if n.id not in known]
    for n, reads in in_fn + made:
        part = part_of.get(id(n), "outside")
        places.setdefault(n.id, set()).add(part)
        if not reads:
            stored.add((n.id, part))
        elif (n.id, part) not in stored:
            read_first.add((n.id, part))
    # a generated body declares the enclosing function's variables `nonlocal`
    outside = set(outside_names)
    outside.update(n for s in all_nodes(fn) if isinstance(s, gast.Nonlocal) for n in s.names)

    def temporary(name: str) -> bool:
        where = places.get(name, set())
        if name in outside or len(where) != 1 or "outside" in where:
            return False
        return (name, next(iter(where))) not in read_first

    return [n for n in names if "." in n or not temporary(n)]  # (an attribute: seen outside)


def _nested_handler_names(t) -> set:
    """The names only the `except ... as name` clauses of `try`s nested in `t` bind: each
    is unbound again after its handler (Python deletes it), so no other part of `t`, and
    nothing after it, reads the value."""
    handler_nodes = {id(h.name) for h in walk_scope(try_parts(t))
                     if isinstance(h, gast.ExceptHandler) and isinstance(h.name, gast.Name)}
    bound = {n.id for n in walk_scope(try_parts(t)) if isinstance(n, gast.Name) and
             isinstance(n.ctx, gast.Store) and id(n) in handler_nodes}
    return bound - {n.id for n in walk_scope(try_parts(t)) if isinstance(n, gast.Name) and
                    isinstance(n.ctx, gast.Store) and id(n) not in handler_nodes}


def _in_order(node):
    """(Name, whether it reads) for each name in `node`, in the order Python evaluates
    them (an assignment's value before its targets; `v += 1` reads `v`)."""
    if isinstance(node, gast.Name):
        yield node, not isinstance(node.ctx, gast.Store)
        return
    if isinstance(node, (gast.Assign, gast.AnnAssign, gast.NamedExpr)):
        if node.value is not None:
            yield from _in_order(node.value)
        for target in getattr(node, "targets", None) or [node.target]:
            yield from _in_order(target)
        return
    if isinstance(node, gast.AugAssign):
        yield from _in_order(node.value)
        if isinstance(node.target, gast.Name):
            yield node.target, True
        else:
            yield from _in_order(node.target)
        return
    for child in child_nodes(node):
        yield from _in_order(child)


_NESTING = (gast.Try, gast.For, gast.While, gast.If, gast.With, gast.Match, gast.Lambda,
            gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def unbound_temporaries(t, state: list) -> list:
    """Where the body holds a statement converted into generated functions (a `try`,
    loop, branch, ... whose functions assign through `nonlocal`, so the body's own
    temporaries can be the enclosing function's variables), they are unbound again
    after the node: a value of the body's graph must not outlive it there (e.g. as a
    loop's state). Nothing reads them after the `try`."""
    if not any(isinstance(n, _NESTING) for n in walk_scope(try_parts(t))):
        return []
    handler_names = {h.name.id for h in t.handlers if isinstance(h.name, gast.Name)}
    own = [n for n in stored_names(try_parts(t)) if n not in state and n not in handler_names]
    return templates.replace("".join(f"{n} = ag__.Undefined('{n}')\n" for n in own),
                             origin=t) if own else []
