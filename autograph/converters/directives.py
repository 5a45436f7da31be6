"""`ag.set_loop_options(...)`, a statement of a loop body -> that loop's options.

    while i < n:                                       (the call is removed and the
        i += 1                                          loop gets
        ag.set_loop_options(maximum_iterations=10) =>   ag__.while_stmt(..., maximum_iterations=10))

As in TensorFlow, the options belong to the loop the call is directly in, wherever in its
body the call sits; the arguments are evaluated once, before the loop starts. Every other
use is a ConversionError at the user's line saying where the call must go: outside any
loop, inside an `if` / `with` / `try` or a loop's `else`, used as a value, twice in one
loop, or with arguments that read a variable the loop assigns.

`shape_invariants=[(x, (None, 3))]` names loop variables; it becomes
`shape_invariants={'x': (None, 3)}` so the loop operator can match it to its variables.
"""
from __future__ import annotations

import gast

from autograph.errors import ConversionError
from autograph.pyct import anno, templates
from autograph.pyct.activity import qualified_name
from autograph.pyct.all_nodes import all_nodes, child_nodes

_KNOWN = ("maximum_iterations", "shape_invariants")
_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_WHERE = "write it as a statement directly in the body of the loop it applies to"


def _is_call(node) -> bool:
    if not isinstance(node, gast.Call):
        return False
    f = node.func
    name = f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", None)
    return name == "set_loop_options"


def _is_directive(stmt) -> bool:
    return isinstance(stmt, gast.Expr) and _is_call(stmt.value)


def transform(fn_node, ctx, nested: bool = False) -> None:
    """Lift every `set_loop_options` statement of `fn_node` (a def nested in the
    converted function when `nested`) onto its loop, or raise."""
    _statements(fn_node.body, None, f"the nested function `{fn_node.name}` outside its "
                f"loops (options apply to a loop of the function they are written in)"
                if nested else "", ctx)
    # what is left is not a statement of a loop body (`x = ag.set_loop_options(...)`,
    # a lambda): never silently dropped. Nested defs were converted (and checked) first.
    for node in _walk_outside_defs(fn_node):
        if _is_call(node):
            _fail(ctx, node, "set_loop_options() is used in an expression (as a "
                  "value, in a lambda): " + _WHERE)


def _walk_outside_defs(fn_node):
    todo = list(child_nodes(fn_node))
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        yield node
        todo.extend(child_nodes(node))


def _statements(stmts, loop, inside: str, ctx) -> list:
    """Visit a statement list; `loop` is the loop whose body it is (else None) and
    `inside` names the construct around it (for the error)."""
    kept = []
    for stmt in stmts:
        if _is_directive(stmt):
            if loop is None:
                where = f"inside {inside}" if inside else "outside any loop"
                _fail(ctx, stmt.value, f"set_loop_options() is {where}: {_WHERE}")
            _lift(loop, stmt.value, ctx)
            continue
        kept.append(stmt)
        if isinstance(stmt, _DEFS):
            continue
        if isinstance(stmt, (gast.For, gast.AsyncFor, gast.While)):
            stmt.body = _statements(stmt.body, stmt, "", ctx) or [_pass(stmt.body[0])]
            stmt.orelse = _statements(stmt.orelse, None, "a loop's `else`", ctx)
            continue
        kind = type(stmt).__name__.lower()
        construct = f"{'an' if kind == 'if' else 'a'} `{kind}`" \
            if loop is not None or inside else ""
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block:
                new = _statements(block, None, construct or inside, ctx)
                setattr(stmt, field, new or ([] if field != "body" else [_pass(block[0])]))
        for clause in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
            clause.body = _statements(clause.body, None, construct or inside, ctx) \
                or [_pass(stmt)]
    return kept


def _pass(near):
    return gast.copy_location(gast.Pass(), near)


def _lift(loop, call, ctx) -> None:
    if anno.get(loop, anno.LOOP_OPTIONS, None) is not None:
        _fail(ctx, call, "set_loop_options() is called twice in one loop: merge the "
                         "options into one call")
    if call.args:
        _fail(ctx, call, "set_loop_options() takes keyword arguments only")
    options = {}
    for kw in call.keywords:
        if kw.arg not in _KNOWN:
            _fail(ctx, call, f"set_loop_options() got an unknown option {kw.arg!r}; it "
                             f"accepts {', '.join(_KNOWN)}")
        options[kw.arg] = kw.value
    changed = _assigned_in(loop) & _read_names(options)
    if changed:
        _fail(ctx, call, "set_loop_options() arguments are evaluated once, before the "
                         f"loop starts, but read {', '.join(sorted(changed))}, which the "
                         "loop assigns: compute the value before the loop")
    if "shape_invariants" in options:
        options["shape_invariants"] = _invariants(options["shape_invariants"], ctx)
    anno.set_(loop, anno.LOOP_OPTIONS, options)


def _read_names(options: dict) -> set:
    """Names the option values read (a shape_invariants entry's variable is a key)."""
    values = [options.get("maximum_iterations")]
    invariants = options.get("shape_invariants")
    if isinstance(invariants, (gast.List, gast.Tuple)):
        values += [p.elts[1] if isinstance(p, gast.Tuple) and len(p.elts) == 2 else p
                   for p in invariants.elts]
    elif invariants is not None:
        values.append(invariants)
    return {n.id for v in values if v is not None for n in all_nodes(v)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _assigned_in(loop) -> set:
    """Names the loop writes (its target, its body), shape_invariants keys aside."""
    out = set()
    for n in all_nodes(loop):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)
    return out


def _fail(ctx, node, message: str):
    raise ConversionError(message, ctx.info.filename, node.lineno)


def _invariants(value, ctx):
    if not isinstance(value, (gast.List, gast.Tuple)):
        raise ConversionError("shape_invariants must be a list of (variable, shape) pairs "
                              "written out in the call", ctx.info.filename, value.lineno)
    keys, values = [], []
    for pair in value.elts:
        name = qualified_name(pair.elts[0]) if isinstance(pair, gast.Tuple) and \
            len(pair.elts) == 2 else None
        if name is None:
            raise ConversionError("each shape_invariants entry must be (variable, shape), "
                                  "e.g. (x, (None, 3))", ctx.info.filename, value.lineno)
        keys.append(gast.Constant(value=name, kind=None))
        values.append(pair.elts[1])
    out = gast.Dict(keys=keys, values=values)
    return templates.copy_location(out, value)
