"""Variables a nested function rebinds (`nonlocal`), carried by every block that may call it.

    def count_positive(x):
        count = 0
        def inc(v):
            nonlocal count
            count += int(v > 0)
        for v in x:          # a symbolic loop: `count` is loop state although the
            inc(v)           # loop body never names it
        return count

Converters carry what a block assigns (`state_passing.modified`); a call inside the block
that rebinds a variable of the function through `nonlocal` assigns it too, invisibly.
Traced once, the loop or branch would leave in the cell the value of the one traced path
(a value of a finished trace, or the branch not taken). This pass runs once per
converted function, on the user's own tree (step 0 of `impl/conversion.py`, before any
converter makes functions of its own), and leaves on each `def` in it what its calls may
rebind (`Rebound`, `anno.REBOUND_BY_CALLS`), among the variables it sees as the same:

- a call by name of a nested def rebinds what that def rebinds, and what the defs it
  calls by name rebind (to a fixed point: `step` calling `note` rebinds `note`'s);
- a def used other than by calling it by name (put in a list or dict, passed to a
  helper, returned, decorated, called from a lambda, a method of a class the function
  defines) may run from any call of user code: its variables are rebound by every call
  that is not an `ag__` operator.

Every `if`, loop and graph `try` of that `def` carries what its calls may rebind like
variables it assigns (state passed in and returned; the generated functions write the
shared cell, `closures.py`). A `def` that only sees such a variable as a free name
(`note` rebinding `calls` of `two_levels` while `outer_step` calls it in a branch)
declares it `nonlocal` here, so that its branches can assign the value they merge.

Why statically, and not by watching cells while tracing: the generated branch, loop-body
and `try` functions rebind the function's variables through `nonlocal` themselves (the
state the constructs pass), and `autograph convert` output is plain Python in which they
look like the user's own nested functions. A run-time watch of the cells a block's
callees rebind would have to tell the two apart by name or by a mark every later stage
(including the CLI's output read back) keeps; deciding on the user's tree before any
generated function exists needs neither, and the generated code says what it carries.
Over-approximating costs an unchanged loop variable or branch output, never a meaning.

What it does not see: a function defined outside the converted function (a closure
handed in, or one the function's caller made) that rebinds a variable of *its* enclosing
function. Its cell is not a variable of the converted code, so no block can carry it;
calling it inside a symbolic block, or having it store a graph value, is a TypeError at
the call (`impl/calls.py`, `_guard_rebinding`).

A `while` whose test may rebind them (`while more():`) is tested inside its body (`while
True: if not more(): break`, as `scoping.py` does for `:=` in a test): a loop test gives
back only its truth value, so it could not carry the variable.
"""
from __future__ import annotations

from dataclasses import dataclass

import gast

from autograph.converters import scoping
from autograph.pyct import anno, templates
from autograph.pyct.activity import bound_names, declared
from autograph.pyct.all_nodes import all_nodes, child_nodes
from autograph.pyct.blocks import child_blocks, statements

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)
_BLOCKS = (gast.If, gast.While, gast.For, gast.Try)
_SCOPES = _DEFS + (gast.ClassDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


@dataclass(frozen=True)
class Rebound:
    """What the calls of one def's blocks may rebind (`anno.REBOUND_BY_CALLS`): `direct`,
    per name of a nested def it may call by that name, the variables that def (or a def
    it calls by name) rebinds; `any_call`, those rebound by a def whose name is used as
    a value (stored in a list or dict, passed, decorated, a method, a lambda calling
    it): any call of user code may run it."""

    direct: tuple = ()          # ((def name, frozenset of variables), ...)
    any_call: frozenset = frozenset()

    @property
    def names(self) -> frozenset:
        return self.any_call.union(*(v for _, v in self.direct))

    def within(self, names) -> Rebound:
        """Only the variables among `names` (a generated `try` function shares those)."""
        keep = frozenset(names)
        return Rebound(tuple((k, v & keep) for k, v in self.direct if v & keep),
                       self.any_call & keep)

    def by(self, block) -> set:
        """The variables the calls in `block` (a statement list or node) may rebind."""
        direct = dict(self.direct)
        out: set = set()
        for n in all_nodes_of(block):
            if not isinstance(n, gast.Call):
                continue
            hit = [direct[m.id] for m in all_nodes(n.func)
                   if isinstance(m, gast.Name) and m.id in direct]
            out.update(*hit)
            if not hit and self.any_call and not _is_operator(n.func):
                out |= self.any_call
        return out


def transform(fn_node, namer) -> None:
    """Set `anno.REBOUND_BY_CALLS` on `fn_node` and every def nested in it, and declare
    `nonlocal` where a def must assign such a variable it only sees (module docstring)."""
    chains = _defs_with_chains(fn_node)
    binds = {id(d): _own_binds(d) for d, _ in chains}
    # what each def rebinds, as (owner def or None, name), itself and through the defs
    # it calls by name (to a fixed point)
    may = {id(d): {(_owner(n, chain, binds), n) for n in _nonlocal_writes(d)}
           for d, chain in chains}
    if not any(may.values()):
        return
    by_name: dict = {}
    for d, _ in chains:
        by_name.setdefault(d.name, []).append(d)
    calls = {id(d): _called_names(d) for d, _ in chains}
    changed = True
    while changed:
        changed = False
        for d, _ in chains:
            for c in calls[id(d)]:
                for callee in by_name.get(c, ()):
                    if not may[id(callee)] <= may[id(d)]:
                        may[id(d)] |= may[id(callee)]
                        changed = True
    escaped: set = set()
    for name in _used_as_values(fn_node, by_name):
        for d in by_name[name]:
            escaped |= may[id(d)]
    for lam in (n for n in all_nodes(fn_node) if isinstance(n, gast.Lambda)):
        for c in _calls_by_name(lam.body):
            for d in by_name.get(c, ()):
                escaped |= may[id(d)]
    for e, e_chain in chains:
        if not isinstance(e, gast.FunctionDef):
            continue

        def visible(pairs, e=e, e_chain=e_chain):
            return frozenset(n for owner, n in pairs
                             if _sees(e, e_chain, owner, n, binds))
        direct = tuple((name, names) for name in sorted(by_name) for names in
                       [visible(set().union(*(may[id(d)] for d in by_name[name])))] if names)
        info = Rebound(direct, visible(escaped))
        if info.names:
            anno.set_(e, anno.REBOUND_BY_CALLS, info)
            _declare(e, info.names, binds[id(e)])
            # a `while` test that may rebind them is tested in the body, which carries them
            e.body = scoping.move_while_tests(e.body, namer, lambda t, i=info: bool(i.by(t)))


def _declare(d, names, own: set) -> None:
    """`nonlocal` for the variables of `names` that `d` only sees, where it has a block
    that may have to assign them."""
    _, nonloc = declared(d)
    missing = sorted(n for n in names if n not in own and n not in nonloc)
    if missing and any(isinstance(s, _BLOCKS) for s in statements(d.body)):
        decl = templates.replace(f"nonlocal {', '.join(missing)}", origin=d)
        body = d.body
        at = 1 if body and isinstance(body[0], gast.Expr) and \
            isinstance(body[0].value, gast.Constant) and \
            isinstance(body[0].value.value, str) else 0
        d.body = body[:at] + decl + body[at:]


def _own_scope(d):
    """The nodes of def `d`'s own scope (nested defs and classes: their statement only;
    lambdas and comprehensions included)."""
    stack = list(d.body)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            stack.extend(child_nodes(n))


def _called_names(d) -> set:
    return _calls_by_name(list(_own_scope(d)), walk=False)


def _calls_by_name(nodes, walk: bool = True) -> set:
    """The names called directly (`name(...)`) in `nodes`."""
    it = all_nodes_of(nodes) if walk else nodes
    return {n.func.id for n in it if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)}


def _used_as_values(fn_node, by_name: dict) -> set:
    """The names of nested defs used other than by calling them by name (stored, passed,
    returned), decorated (the decorator may keep it), or defined in a class body."""
    called = {id(n.func) for n in all_nodes(fn_node)
              if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)}
    out = {n.id for n in all_nodes(fn_node) if isinstance(n, gast.Name) and
           isinstance(n.ctx, gast.Load) and n.id in by_name and id(n) not in called}
    for c in all_nodes(fn_node):
        if isinstance(c, gast.ClassDef):
            out.update(s.name for s in c.body if isinstance(s, _DEFS))
        elif isinstance(c, _DEFS) and c.decorator_list and c is not fn_node:
            out.add(c.name)
    return out & set(by_name)


def all_nodes_of(block):
    for s in block if isinstance(block, list) else [block]:
        yield from all_nodes(s)


def _defs_with_chains(fn_node) -> list:
    """(def, the defs enclosing it inside `fn_node`, outermost first) for `fn_node` and
    each def nested in it (through classes too, whose scope a `nonlocal` skips)."""
    out, stack = [], [(fn_node, [])]
    while stack:
        node, chain = stack.pop()
        if isinstance(node, _DEFS):
            out.append((node, chain))
            inner = chain + [node]
            stack.extend((s, inner) for s in node.body)
        elif isinstance(node, gast.ClassDef):
            stack.extend((s, chain) for s in node.body)
        else:
            for block in child_blocks(node):
                stack.extend((s, chain) for s in block)
    return out


def _own_binds(d) -> set:
    """The names `d` binds as its own variables (not those it declares global/nonlocal)."""
    glob, nonloc = declared(d)
    return bound_names(d) - glob - nonloc


def _nonlocal_writes(d) -> set:
    """The names `d` declares `nonlocal` and assigns, deletes or binds by `def` / `class` /
    `import` (in its own scope: not in nested functions, nor a comprehension's own
    targets)."""
    _, nonloc = declared(d)
    if not nonloc:
        return set()
    written: set = set()
    stack = list(d.body)
    while stack:
        n = stack.pop()
        if isinstance(n, _SCOPES):
            if not isinstance(n, gast.Lambda):
                written.add(n.name)
            continue
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            written.add(n.id)
        elif isinstance(n, (gast.Import, gast.ImportFrom)):
            written.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, _COMPREHENSIONS):  # (only a `:=` in it binds outside it)
            stack.extend(w.target for w in all_nodes(n) if isinstance(w, gast.NamedExpr))
            continue
        stack.extend(child_nodes(n))
    return written & nonloc


def _owner(name: str, chain: list, binds: dict):
    """The innermost def of `chain` whose variable `name` is (None: a variable of a
    function outside the tree, a free variable of `fn_node`)."""
    for e in reversed(chain):
        if name in binds[id(e)]:
            return e
    return None


def _sees(e, e_chain: list, owner, name: str, binds: dict) -> bool:
    """Whether `name` in def `e` is the variable of `owner` (no def between them, nor `e`
    itself, binds a variable of its own by that name or declares it global)."""
    if owner is not None:
        if e is not owner and owner not in e_chain:
            return False
        start = 0 if e is owner else e_chain.index(owner) + 1
        between = e_chain[start:] + ([e] if e is not owner else [])
    else:
        between = e_chain + [e]
    for b in between:
        if b is owner:
            continue
        glob, _ = declared(b)
        if name in binds[id(b)] or name in glob:
            return False
    return True


def _is_operator(func) -> bool:
    """`ag__.ld`, `ag__.if_stmt`, ... (not `ag__.converted(f)`'s call of `f`, whose func
    is itself a call)."""
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        func.value.id.startswith("ag__")
