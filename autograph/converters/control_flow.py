"""The control-flow pass: walks statement blocks top-down and hands each `if`, `while`
and `for` to its converter (`conditionals.py`, `loops.py`), which build their branch and
loop-body functions with the helpers in `state_passing.py`.
"""
from __future__ import annotations

import gast

from autograph.converters import conditionals, dual_path, loops
from autograph.pyct import anno, templates
from autograph.pyct.blocks import blocks, statements
from autograph.pyct.all_nodes import all_nodes


def convert_block(stmts: list, ctx, taken: frozenset, dual: bool = True) -> list:
    """`stmts` with their `if`, `while` and `for` statements converted (nested blocks
    too: the converters hand their branches and loop bodies back to this function).
    `dual`: each also keeps its inline Python form (`dual_path.py`); inside a branch or
    loop-body function (`functional_block`) the functional form alone."""
    block = convert_block if dual else functional_block
    out: list = []
    for s in stmts:
        if anno.get(s, anno.PYTHON_ONLY, False):
            for t in statements(s):  # (not in nested defs: they are converted on their own)
                if isinstance(t, gast.With):
                    _watch_managers(t)
            out.append(s)
        elif anno.get(s, anno.TRY_SWITCH, False):  # its graph form is converted already
            s.orelse = block(s.orelse, ctx, taken)
            out.append(s)
        elif isinstance(s, (gast.If, gast.While, gast.For)):
            out.extend(_convert_statement(s, ctx, taken, dual))
        elif isinstance(s, gast.With):
            _watch_managers(s)
            s.body = block(s.body, ctx, taken)
            out.append(s)
        elif isinstance(s, gast.Match):
            out.append(_convert_match(s, ctx, taken, block))
        elif isinstance(s, gast.Try):
            for t in statements(s):  # (the `try`s nested in it too, not in nested defs)
                if isinstance(t, gast.Try):
                    _unbind_handler_names(t, ctx)
            s = _guard_body(s, ctx)
            out.append(s)
        else:
            out.append(s)
    return out


def functional_block(stmts: list, ctx, taken: frozenset) -> list:
    return convert_block(stmts, ctx, taken, dual=False)


_FUNCTIONAL = {gast.If: conditionals.convert, gast.While: loops.convert_while,
               gast.For: loops.convert_for}
_DUAL = {gast.If: dual_path.convert_if, gast.While: dual_path.convert_while,
         gast.For: dual_path.convert_for}


def _convert_statement(s, ctx, taken: frozenset, dual: bool) -> list:
    if dual:
        return _DUAL[type(s)](s, ctx, taken, convert_block, functional_block)
    return _FUNCTIONAL[type(s)](s, ctx, taken, functional_block)


def _watch_managers(node) -> None:
    """`with m:` => `with ag__.with_manager(m):` (operators/with_statements.py: a manager
    not known to act when the graph runs is refused around graph operations)."""
    for item in node.items:
        item.context_expr = gast.Call(
            func=gast.Attribute(value=templates.name_node("ag__"), attr="with_manager",
                                ctx=gast.Load()),
            args=[item.context_expr], keywords=[])
        gast.copy_location(item.context_expr, item.context_expr.args[0])


def _convert_match(node, ctx, taken: frozenset, block):
    """A `match` stays Python - its subject and guards must be Python values (checked by
    `ag__.python_only`, which says to use if/elif otherwise) - and its cases are
    converted like any block:

        match mode:                          match ag__.python_only(mode, 'match'):
            case [k] if k > 1:       =>          case [k] if ag__.python_only(k > 1, 'guard'):
    """
    node.subject = _python_only(node.subject, "match")
    for c in node.cases:
        if c.guard is not None:
            c.guard = _python_only(c.guard, "guard")
        c.body = block(c.body, ctx, taken)
    return node


def _unbind_handler_names(node, ctx):
    """`except E as e` unbinds e when the handler ends. Where e is read after the `try`
    (it may be state of a generated function, which returns it), the handler binds a
    stand-in and leaves e `Undefined` at its end: a later read raises UnboundLocalError as
    in Python (`ag__.ld`), and returning e from a loop body or branch does not.

        except E as e:                except E as e_1:
            body              =>          e = e_1
                                          try:
                                              body
                                          finally:
                                              e = ag__.Undefined('e')
    """
    live = anno.get(node, anno.LIVE_OUT, frozenset())
    for h in node.handlers:
        if not isinstance(h.name, gast.Name) or h.name.id not in live:
            continue
        name, stand_in = h.name.id, ctx.namer.new(h.name.id)
        h.name = templates.name_node(stand_in, gast.Store)
        h.body = templates.replace(
            f"name = stand_in\ntry:\n    body\nfinally:\n    name = ag__.Undefined('{name}')",
            origin=h, name=name, stand_in=stand_in, body=h.body)


def _guard_body(node, ctx):
    """A `try` with handlers (and each one nested in it) runs inside `ag__.try_stmt`, its
    body inside `try_.body()`: graph operations in the body that a handler could catch
    errors of when the graph runs are refused (`operators/exceptions.py`)."""
    for owner, field in blocks(node):
        setattr(owner, field, [_guard_body(s, ctx) if any(
            isinstance(t, gast.Try) for t in statements(s)) else s
            for s in getattr(owner, field)])
    if not isinstance(node, gast.Try) or not (node.handlers or _swallows(node.finalbody)):
        return node
    kinds = [templates.clone(h.type) if h.type is not None else
             gast.Constant(value=None, kind=None) for h in node.handlers]
    if _swallows(node.finalbody):  # a jump out of `finally` drops any error: a bare `except`
        kinds.append(gast.Constant(value=None, kind=None))
    name = ctx.namer.new("try_")
    body = templates.replace("with name.body():\n    pass", origin=node, name=name)
    templates.copy_location(body[0], node)
    body[0].body = node.body
    node.body = body
    wrapper = templates.replace("with ag__.try_stmt(lambda: kinds) as name:\n    pass",
                                origin=node, kinds=templates.tuple_node(kinds), name=name)[0]
    templates.copy_location(wrapper, node)
    wrapper.body = [node]
    return wrapper


def _swallows(finalbody) -> bool:
    """Whether a `finally` has a `return` / `break` / `continue` of its own statement
    (one that ends the `finally` and so drops an error passing through)."""
    stack = list(finalbody)
    while stack:
        s = stack.pop()
        if isinstance(s, (gast.Return, gast.Break, gast.Continue)):
            return True
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if isinstance(s, (gast.For, gast.While, gast.AsyncFor)):
            stack.extend(x for x in all_nodes(s) if isinstance(x, gast.Return))
            continue
        for owner, field in blocks(s):
            stack.extend(getattr(owner, field))
    return False


def _python_only(value, construct: str):
    return templates.replace_expr(f"ag__.python_only(value, '{construct}')", origin=value,
                                  value=value)
