"""Tests at no cost on Python values: the `if` / `while` a converted function is compiled
to run with (`impl/api.py`; `ag.to_code` shows the dual-path form of `dual_path.py`).

A dual-path statement asks `cond.__class__ is bool or not ag__.symbolic(cond)` of its
test before it runs as written; even that costs a tight loop half its time again (the
stored test also keeps CPython 3.11 from fusing a comparison with its jump). So on
CPython 3.11, where a `try` costs nothing until something is raised, the statement runs
exactly as written and a symbolic test hands over to the functional form through the
error its `Tensor.__bool__` raises:

    cond = n % 2 == 0                      try:
    if <cond is Python>:                       if n % 2 == 0:
        if cond:                                   n = n // 2
            n = n // 2                         else:
        else:                          =>          n = 3 * n + 1
            n = 3 * n + 1                  except ag__.GraphModeError as error:
    else:                                      handover = ag__.handed_over(error, <test at>, <if at>)
        <functional form of cond>              if handover is None:
                                                   raise
                                           if handover is not None:
                                               cond = handover
                                               handover = None
                                               <functional form of cond>

(`handover = None` runs once, where the converted function starts; in a function or
class nested in it, before each statement.)

and a `while` likewise, its functional form taking over from the iteration whose test
turned symbolic (`first_test=cond`), as the dual-path loop's `else` did. The test is
still evaluated once, and a Python value's truth is taken once, by Python's own jump.
`operators/handover.py` says when an error is the statement's own test's: everything
else is re-raised as it was. The functional form runs after the handler, so nothing in
it sees the error (no `__context__`, a bare `raise` in a branch re-raises the user's
exception).

Only tests whose only jump is the statement's own take this form: no `and` / `or`,
conditional expression or chained comparison of the user's in them (a single `not x`
at the top is fine: its jump tests `x`); other statements keep the dual-path form.
"""
from __future__ import annotations

import sys

import gast

from autograph.converters.fast_paths import TRACING_CELL
from autograph.converters.python_copy import install, python_copy
from autograph.pyct import anno, templates

ENABLED = sys.version_info[:2] == (3, 11)  # positions of jumps as `handed_over` reads them

_INIT = "handover = None"
_HANDLED = """\
try:
    statement
except ag__.GraphModeError as error:
    handover = ag__.handed_over(error, test_at, statement_at)
    if handover is None:
        raise
if handover is not None:
    take_over
    handover = None
    functional
"""


def compile_tests(node, ctx) -> None:
    """Give each dual-path `if` / `while` in `node` (a converted function) the form
    above, in place, behind the Python-values copy of its body (`python_copy.py`)."""
    copy = python_copy(node, ctx)
    if ENABLED:
        names = (ctx.namer.new("ag__handover"), ctx.namer.new("ag__error"))
        scope = {"used": False}
        _blocks(node, ctx.out.ops_name, names, scope)
        if scope["used"]:  # (each statement's hand-over sets it back to None)
            node.body[:0] = templates.replace(_INIT, origin=node, handover=names[0])
    if copy is not None:
        install(node, copy)


def _blocks(node, ops: str, names: tuple, scope) -> None:
    """(`scope`: the converted function's own, whose start sets the hand-over to None
    once; None inside a nested function or class: each statement sets it.)"""
    for field, value in gast.iter_fields(node):
        if isinstance(value, list):
            for child in value:
                if isinstance(child, gast.AST):
                    inner = None if isinstance(child, _SCOPES) else scope
                    _blocks(child, ops, names, inner)
            if value and all(isinstance(s, gast.stmt) for s in value):
                setattr(node, field, _block(value, ops, names, scope))
        elif isinstance(value, gast.AST):
            _blocks(value, ops, names, None if isinstance(value, _SCOPES) else scope)


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _block(stmts: list, ops: str, names: tuple, scope) -> list:
    out: list = []
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            cond = _dual_test(stmt.test, ops)
            inline = stmt.body[0] if len(stmt.body) == 1 else None
            if cond is not None and isinstance(inline, gast.If) and \
                    _is_name(inline.test, cond):
                # (the generated `cond = test` only: a name of the user's tested as it is
                # keeps the assignment before it)
                evaluated = out[-1] if out and _assigns(out[-1], cond) and \
                    anno.get(out[-1], anno.DUAL, False) else None
                test = evaluated.value if evaluated is not None else inline.test
                handled = _handled(inline, test, cond, stmt.orelse, ops, names,
                                   assigned=evaluated is not None, scope=scope)
                if handled is not None:
                    if evaluated is not None:
                        out.pop()
                    out.extend(handled)
                    continue
        elif isinstance(stmt, gast.While) and stmt.orelse:
            handled = _handled_while(stmt, ops, names, scope)
            if handled is not None:
                out.extend(handled)
                continue
        out.append(stmt)
    return out


def _handled_while(stmt, ops: str, names: tuple, scope):
    """The form above for `while (cond := test).__class__ is bool or not
    ag__.symbolic(cond): if not cond: break ... else: <functional>`."""
    test = stmt.test
    if not (isinstance(test, gast.BoolOp) and isinstance(test.op, gast.Or) and
            len(test.values) == 2 and _is_class_check(test.values[0])):
        return None
    named = test.values[0].left.value
    if not (isinstance(named, gast.NamedExpr) and isinstance(named.target, gast.Name)):
        return None
    cond = named.target.id
    if not (_is_symbolic_check(test.values[1], cond, ops) and stmt.body and
            _is_stop(stmt.body[0], cond)):
        return None
    loop = gast.copy_location(gast.While(test=named.value, body=stmt.body[1:], orelse=[]),
                              stmt)
    anno.set_(loop, anno.MUST_IN, anno.get(stmt, anno.MUST_IN, frozenset()))
    return _handled(loop, named.value, cond, stmt.orelse, ops, names, assigned=True,
                    scope=scope)


def _handled(statement, test, cond: str, functional: list, ops: str, names: tuple,
             assigned: bool, scope):
    """`statement` run as written with `test` as its test, handing over to `functional`
    (which reads the test's value as `cond`); None when the test has jumps of its own."""
    negated = _negation(test, ops)
    tested = negated if negated is not None else test
    if not _single_jump(tested):
        return None
    test_at, statement_at = _own_range(tested) or _range(tested), _own_range(statement)
    if test_at is None or statement_at is None:
        return None
    handover, error = names
    statement.test = gast.UnaryOp(op=gast.Not(), operand=tested) if negated is not None \
        else tested
    if negated is not None:
        gast.copy_location(statement.test, test)
        statement.test.end_lineno, statement.test.end_col_offset = tested.end_lineno, \
            tested.end_col_offset
    if negated is not None:
        take_over = templates.replace("cond = ag__.not_(handover)".replace("ag__", ops),
                                      cond=cond, handover=handover)
    elif assigned:
        take_over = templates.replace("cond = handover", cond=cond, handover=handover)
    else:
        take_over = []
    stmts = templates.replace(
        _HANDLED.replace("ag__", ops), origin=statement, handover=handover, error=error,
        statement=[statement], test_at=_constant(test_at),
        statement_at=_constant(statement_at), take_over=take_over, functional=functional)
    if scope is None:
        return templates.replace(_INIT, origin=statement, handover=handover) + stmts
    scope["used"] = True
    return stmts


def _negation(test, ops: str):
    """`x` for the dual-path form of `not x` (`logical_expressions.dual`), else None."""
    if not (isinstance(test, gast.IfExp) and isinstance(test.body, gast.UnaryOp) and
            isinstance(test.body.op, gast.Not) and isinstance(test.body.operand, gast.Name)
            and _is_class_check_or(test.test)):
        return None
    x = test.body.operand.id
    check = test.test.values[0].left.value
    if not _is_symbolic_check(test.test.values[1], x, ops):
        return None
    orelse = test.orelse
    if not (isinstance(orelse, gast.Call) and isinstance(orelse.func, gast.Attribute) and
            orelse.func.attr == "not_" and _is_name(orelse.func.value, ops)):
        return None
    if isinstance(check, gast.NamedExpr) and _is_name(check.target, x):
        return check.value
    return check if _is_name(check, x) else None


_JUMPING = (gast.BoolOp, gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp,
            gast.DictComp, gast.GeneratorExp, gast.Await, gast.Yield, gast.YieldFrom)


def _single_jump(test) -> bool:
    """Whether the only conditional jump Python compiles for `test` that may meet a
    symbolic value is the test's own: no `and` / `or`, conditional expression, `not` or
    chained comparison of the user's in it. The conditional expressions of `fast_paths`
    (call sites, subscript reads) choose by Python bools; in a test's place the value
    tested is the one chosen (the test's own)."""
    stack = [test]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.IfExp) and _bool_guard(n.test, stack):
            stack += [n.body, n.orelse]
            continue
        if isinstance(n, _JUMPING) or isinstance(n, gast.Compare) and len(n.ops) > 1 or \
                isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not):
            return False
        stack.extend(gast.iter_child_nodes(n))
    return True


def _bool_guard(test, operands: list) -> bool:
    """Whether `test` is made of `is` / `is not` comparisons and tracing cells only (with
    `and` / `or` / `not`): a Python bool. Its comparisons' operands go on `operands`."""
    if isinstance(test, gast.Name):
        return test.id.startswith(TRACING_CELL)
    if isinstance(test, gast.BoolOp):
        return all(_bool_guard(v, operands) for v in test.values)
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        return _bool_guard(test.operand, operands)
    if isinstance(test, gast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (gast.Is, gast.IsNot)):
        operands += [test.left, test.comparators[0]]
        return True
    return False


def _range(node):
    """(first line, column, last line, column) spanning `node` and what it holds."""
    spots = [_own_range(n) for n in gast.walk(node)]
    spots = [s for s in spots if s is not None]
    if not spots:
        return None
    return min(s[:2] for s in spots) + max(s[2:] for s in spots)


def _own_range(node):
    at = tuple(getattr(node, f, None) for f in ("lineno", "col_offset", "end_lineno",
                                                 "end_col_offset"))
    return None if None in at else at


def _constant(values: tuple):
    return gast.Tuple(elts=[gast.Constant(value=v, kind=None) for v in values],
                      ctx=gast.Load())


def _dual_test(test, ops: str):
    """`cond` for the dual-path test `cond.__class__ is bool or not ag__.symbolic(cond)`."""
    if not _is_class_check_or(test):
        return None
    cond = test.values[0].left.value
    if isinstance(cond, gast.Name) and _is_symbolic_check(test.values[1], cond.id, ops):
        return cond.id
    return None


def _is_class_check_or(test) -> bool:
    return isinstance(test, gast.BoolOp) and isinstance(test.op, gast.Or) and \
        len(test.values) == 2 and _is_class_check(test.values[0])


def _is_class_check(test, ops=(gast.Is,)) -> bool:
    """`<x>.__class__ is <y>` (`is not` with `ops`)."""
    return isinstance(test, gast.Compare) and len(test.ops) == 1 and \
        isinstance(test.ops[0], ops) and isinstance(test.left, gast.Attribute) and \
        test.left.attr == "__class__"


def _is_symbolic_check(test, cond: str, ops: str) -> bool:
    """`not <ops>.symbolic(cond)`."""
    if not (isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)):
        return False
    call = test.operand
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "symbolic" and _is_name(call.func.value, ops) and \
        len(call.args) == 1 and _is_name(call.args[0], cond) and not call.keywords


def _is_stop(stmt, cond: str) -> bool:
    """`if not cond: break`."""
    return isinstance(stmt, gast.If) and not stmt.orelse and \
        isinstance(stmt.test, gast.UnaryOp) and isinstance(stmt.test.op, gast.Not) and \
        _is_name(stmt.test.operand, cond) and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], gast.Break)


def _assigns(stmt, name: str) -> bool:
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        _is_name(stmt.targets[0], name)


def _is_name(node, name: str) -> bool:
    return isinstance(node, gast.Name) and node.id == name
