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
converter makes functions of its own), and finds for each `def` in it the variables a
user function nested anywhere in the tree rebinds and this `def` sees as the same
variable: `anno.REBOUND_BY_CALLS`. Every `if`, loop and graph `try` of that `def` whose
code makes a call carries them like variables it assigns (state passed in and
returned; the generated functions write the shared cell, `closures.py`). A `def` that
only sees such a variable as a free name (`note` rebinding `calls` of `two_levels`
while `outer_step` calls it in a branch) declares it `nonlocal` here, so that its
branches can assign the value they merge.

Why statically, and not by watching cells while tracing: the generated branch, loop-body
and `try` functions rebind the function's variables through `nonlocal` themselves (the
state the constructs pass), and `autograph convert` output is plain Python in which they
look like the user's own nested functions. A run-time watch of the cells a block's
callees rebind would have to tell the two apart by name or by a mark every later stage
(including the CLI's output read back) keeps; deciding on the user's tree before any
generated function exists needs neither. Carrying a variable the call did not change
costs an unchanged loop variable or branch output.

What it does not see: a function defined outside the converted function (a closure
handed in, or one the function's caller made) that rebinds a variable of *its* enclosing
function. Its cell is not a variable of the converted code, so no block can carry it; a
call to it inside a symbolic branch or loop raises at the call (`operators/call.py`).
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates
from autograph.pyct.activity import bound_names, declared
from autograph.pyct.all_nodes import all_nodes, child_nodes
from autograph.pyct.blocks import child_blocks, statements

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)
_BLOCKS = (gast.If, gast.While, gast.For, gast.Try)
_SCOPES = _DEFS + (gast.ClassDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def transform(fn_node) -> None:
    """Set `anno.REBOUND_BY_CALLS` on `fn_node` and every def nested in it, and declare
    `nonlocal` where a def must assign such a variable it only sees (module docstring)."""
    chains = _defs_with_chains(fn_node)
    binds = {id(d): _own_binds(d) for d, _ in chains}
    carried: dict = {}
    for d, chain in chains:
        for name in _nonlocal_writes(d):
            owner = _owner(name, chain, binds)
            for e, e_chain in chains:
                if isinstance(e, gast.FunctionDef) and _sees(e, e_chain, owner, name, binds):
                    carried.setdefault(id(e), set()).add(name)
    for d, _ in chains:
        names = frozenset(carried.get(id(d), ()))
        if not names:
            continue
        anno.set_(d, anno.REBOUND_BY_CALLS, names)
        glob, nonloc = declared(d)
        missing = sorted(n for n in names if n not in binds[id(d)] and n not in nonloc)
        if missing and any(isinstance(s, _BLOCKS) for s in statements(d.body)):
            decl = templates.replace(f"nonlocal {', '.join(missing)}", origin=d)
            body = d.body
            at = 1 if body and isinstance(body[0], gast.Expr) and \
                isinstance(body[0].value, gast.Constant) and \
                isinstance(body[0].value.value, str) else 0
            d.body = body[:at] + decl + body[at:]


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


def calls_user_code(block) -> bool:
    """Whether a block (after the expression converters) calls anything but an `ag__`
    operator: such a call may run a nested function that rebinds a variable."""
    for s in block if isinstance(block, list) else [block]:
        for n in all_nodes(s):
            if isinstance(n, gast.Call) and not _is_operator(n.func):
                return True
    return False


def _is_operator(func) -> bool:
    """`ag__.ld`, `ag__.if_stmt`, ... (not `ag__.converted(f)`'s call of `f`, whose func
    is itself a call)."""
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        func.value.id.startswith("ag__")
