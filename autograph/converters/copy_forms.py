"""The converted forms the Python-values copy (`python_copy.py`) recognises, each by its
shape as the converters write it: a dual-path `if` / `for` / `while` (`dual_path.py`), a
dual expression (`logical_expressions.dual`), a nested item store (`slices.py`), and the
lazy arguments of an `assert` (`asserts.py`), a `print` of text (`call_trees.py`), a
comparison chain (`logical_expressions.py`) or a call of `locals()` / `eval` and their
kin (`introspection.py`), an array made of a value (`call_trees.py`: `np.array`,
`np.asarray`), and the unbinding of a handler's name at its end
(`e = ag__.Undefined('e')`).
"""
from __future__ import annotations

import gast

from autograph.pyct import templates


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


def written_array(call, ops: str):
    """`fn(value, ...)` for `ag__.array_(fn, value, ...)` (`np.array` / `np.asarray` and
    their kin, `call_trees.py`), or None: outside traces no value is symbolic and no list
    is a graph list, where the operator calls `fn` as written - and the copy need not
    load the operators for it (the lean `ag__` has no `array_`)."""
    if not (is_ops_call(call, ops, "array_") and len(call.args) >= 2 and
            not any(isinstance(a, gast.Starred) for a in call.args[:2])):
        return None
    return gast.copy_location(gast.Call(func=call.args[0], args=call.args[1:],
                                        keywords=call.keywords), call)


def written_unbinding(s, ops: str):
    """`e = None; del e` for `e = ag__.Undefined('e')` (a name the converted form unbinds,
    as Python does to `except E as e` at the handler's end), or None: in a copy,
    `locals()`, `vars()` and `eval` as written must not find the marker, and a later read
    raises Python's own UnboundLocalError."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], gast.Name) and is_ops_call(s.value, ops, "Undefined")
            and len(s.value.args) == 1 and isinstance(s.value.args[0], gast.Constant)
            and s.value.args[0].value == s.targets[0].id):
        return None
    name = s.targets[0].id
    return templates.replace(f"{name} = None\ndel {name}", origin=s)


def is_name(node, name) -> bool:
    return isinstance(node, gast.Name) and node.id == name


def constant(value: bool, origin):
    return gast.copy_location(gast.Constant(value=value, kind=None), origin)


def written_assert(s, ops: str):
    """`assert test, msg` for `ag__.assert_stmt(test, lambda: msg)` (`asserts.py`; on
    Python values it raises as the statement does, and the statement is what `python
    -O` leaves out), or None."""
    call = s.value if isinstance(s, gast.Expr) else None
    if not (is_ops_call(call, ops, "assert_stmt") and not call.keywords and
            len(call.args) in (1, 2) and not isinstance(call.args[0], gast.Starred)):
        return None
    msg = _thunk_body(call.args[1]) if len(call.args) == 2 else None
    if len(call.args) == 2 and msg is None:
        return None
    return gast.copy_location(gast.Assert(test=call.args[0], msg=msg), s)


def written_print(call, ops: str):
    """`print(*args, **kw)` for `ag__.print_text(print, lambda: (*args,), **kw)`
    (`call_trees.py`; on Python values it calls what `print` names, with the arguments
    evaluated before the keywords as in Python), or None."""
    if not (is_ops_call(call, ops, "print_text") and len(call.args) == 2 and
            not isinstance(call.args[0], gast.Starred)):
        return None
    arguments = _thunk_body(call.args[1])
    if not isinstance(arguments, gast.Tuple):
        return None
    new = gast.Call(func=call.args[0], args=list(arguments.elts), keywords=call.keywords)
    return gast.copy_location(new, call)


def _thunk_body(node):
    """The body of `lambda: body`, or None."""
    if isinstance(node, gast.Lambda) and not (
            node.args.args or node.args.posonlyargs or node.args.kwonlyargs or
            node.args.vararg or node.args.kwarg):
        return node.body
    return None


_OPS = {"<": gast.Lt, "<=": gast.LtE, ">": gast.Gt, ">=": gast.GtE, "==": gast.Eq,
        "!=": gast.NotEq, "is": gast.Is, "is not": gast.IsNot, "in": gast.In,
        "not in": gast.NotIn}


def written_chain(call, ops: str):
    """`a < b <= c` for `ag__.compare_chain(a, '<', lambda: b, '<=', lambda: c)` (on
    Python values each comparand is evaluated once and the chain stops at the first
    false comparison, as Python's does), or None."""
    if not (is_ops_call(call, ops, "compare_chain") and not call.keywords and
            len(call.args) >= 3 and len(call.args) % 2 == 1):
        return None
    names = call.args[1::2]
    if not all(isinstance(n, gast.Constant) and n.value in _OPS for n in names):
        return None
    comparators = [_thunk_body(t) for t in call.args[2::2]]
    if any(c is None for c in comparators) or isinstance(call.args[0], gast.Starred):
        return None
    new = gast.Compare(left=call.args[0], ops=[_OPS[n.value]() for n in names],
                       comparators=comparators)
    return gast.copy_location(new, call)


def written_introspection(call, ops: str):
    """`locals()` for `ag__.with_locals(locals, {...})()` (`introspection.py`; likewise
    `vars`, `dir`, `eval`, `exec`): the call as written, which in a copy whose frame has
    the original's variables sees what Python shows; or None."""
    f = call.func if isinstance(call, gast.Call) else None
    if not (is_ops_call(f, ops, "with_locals") and len(f.args) == 2 and
            not f.keywords and isinstance(f.args[0], gast.Name)):
        return None
    return gast.copy_location(gast.Call(func=f.args[0], args=call.args,
                                        keywords=call.keywords), call)
