"""The converted forms the Python-values copy (`python_copy.py`) recognises, each by its
shape as the converters write it: a dual-path `if` / `for` / `while` (`dual_path.py`), a
dual expression (`logical_expressions.dual`) and a nested item store (`slices.py`).
"""
from __future__ import annotations

import gast


def nested(call) -> bool:
    """`ag__.setitem(x, i, <inner update>, nested=True)`."""
    return len(call.args) == 3 and len(call.keywords) == 1 and \
        call.keywords[0].arg == "nested" and isinstance(call.keywords[0].value, gast.Constant) \
        and call.keywords[0].value.value is True


def inline_if(s):
    """The inline `if` of a dual-path `if` (`dual_path.convert_if`), or None."""
    if len(s.body) == 1 and isinstance(s.body[0], gast.If) and \
            is_name(s.body[0].test, dual_test(s.test, None)):
        return s.body[0]
    return None


def inline_for(s, iterable, ops: str, cells: set):
    """The inline `for` of a dual-path `for` over `iterable` (None: any), or None."""
    test = s.test
    if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.Or) and \
            len(test.values) == 2 and isinstance(test.values[0], gast.UnaryOp) and \
            isinstance(test.values[0].op, gast.Not) and \
            isinstance(test.values[0].operand, gast.Name) and \
            test.values[0].operand.id in cells:
        test = test.values[1]
    if not (isinstance(test, gast.Call) and is_ops_call(test, ops, "python_iterable") and
            test.args and isinstance(test.args[0], gast.Name)):
        return None
    name = test.args[0].id
    loop = s.body[0] if len(s.body) == 1 else None
    if not (isinstance(loop, gast.For) and (iterable is None or name == iterable)):
        return None
    release = loop.iter  # `(iterable, (iterable := None))[0]`
    if not (isinstance(release, gast.Subscript) and isinstance(release.value, gast.Tuple)
            and release.value.elts and is_name(release.value.elts[0], name)):
        return None
    return loop


def inline_expr(e, ops: str):
    """The Python side of a dual expression `inline if <x is a Python value> else
    functional` (`logical_expressions.dual`), reading `first` where it read `x`."""
    check = e.test
    if not (isinstance(check, gast.BoolOp) and isinstance(check.op, gast.Or) and
            len(check.values) == 2 and is_class_check(check.values[0])):
        return None
    x = check.values[0].left.value
    named = None
    if isinstance(x, gast.NamedExpr) and isinstance(x.target, gast.Name):
        named, x = x, x.target
    if not (isinstance(x, gast.Name) and is_symbolic_check(check.values[1], x.id, ops)):
        return None
    inline = e.body
    if named is None:
        return inline
    for owner, field in ((gast.BoolOp, "values"), (gast.UnaryOp, "operand"),
                         (gast.IfExp, "test")):
        if isinstance(inline, owner):  # (a new node: the converted one is left as is)
            first = getattr(inline, field)
            if isinstance(first, list):
                if is_name(first[0], x.id):
                    return _with(inline, field, [named.value] + first[1:])
            elif is_name(first, x.id):
                return _with(inline, field, named.value)
    return None


def _with(node, field: str, value):
    """A new node of `node`'s class sharing its fields, `field` set to `value`."""
    new = node.__class__.__new__(node.__class__)
    new.__dict__.update(node.__dict__)
    setattr(new, field, value)
    return new


def dual_test(test, ops):
    """`cond` for the test `cond.__class__ is bool or not ag__.symbolic(cond)` (any
    operators' name for `ops` None)."""
    if not (isinstance(test, gast.BoolOp) and isinstance(test.op, gast.Or) and
            len(test.values) == 2 and is_class_check(test.values[0])):
        return None
    cond = test.values[0].left.value
    if isinstance(cond, gast.Name) and is_symbolic_check(test.values[1], cond.id, ops):
        return cond.id
    return None


def is_class_check(test) -> bool:
    """`<x>.__class__ is bool`."""
    return isinstance(test, gast.Compare) and len(test.ops) == 1 and \
        isinstance(test.ops[0], gast.Is) and isinstance(test.left, gast.Attribute) and \
        test.left.attr == "__class__" and is_name(test.comparators[0], "bool")


def is_symbolic_check(test, cond: str, ops) -> bool:
    """`not <ops>.symbolic(cond)`."""
    if not (isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)):
        return False
    call = test.operand
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "symbolic" and isinstance(call.func.value, gast.Name) and \
        (ops is None or call.func.value.id == ops) and len(call.args) == 1 and \
        is_name(call.args[0], cond) and not call.keywords


def is_stop(stmt, cond: str) -> bool:
    """`if not cond: break`."""
    return isinstance(stmt, gast.If) and not stmt.orelse and \
        isinstance(stmt.test, gast.UnaryOp) and isinstance(stmt.test.op, gast.Not) and \
        is_name(stmt.test.operand, cond) and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], gast.Break)


def is_ops_call(call, ops: str, name: str) -> bool:
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == name and is_name(call.func.value, ops)


def is_name(node, name) -> bool:
    return isinstance(node, gast.Name) and node.id == name


def constant(value: bool, origin):
    return gast.copy_location(gast.Constant(value=value, kind=None), origin)
