"""What the operators do while the runtime was never loaded: no graph is being traced on
any thread, no value is symbolic, no list is a graph list. The lean `ag__`
(`lean_namespace.py`) calls these then, so converted functions without a Python copy (the
functions nested in a converted one) run without loading the runtime or NumPy; once the
runtime is loaded it calls the operators themselves. Each function here is the Python
path of the operator it names, no more (tests/autograph/test_lean_namespace.py compares
them); the tables both use live here.
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Callable  # (not `typing`: ~3 ms a converted module would pay)

from autograph.pyct.unbound import Undefined

COMPARE = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}

AUGMENTED = {  # op -> (in-place operator, binary operator, NumPy ufunc name)
    "+=": (operator.iadd, operator.add, "add"),
    "-=": (operator.isub, operator.sub, "subtract"),
    "*=": (operator.imul, operator.mul, "multiply"),
    "/=": (operator.itruediv, operator.truediv, "divide"),
    "//=": (operator.ifloordiv, operator.floordiv, "floor_divide"),
    "%=": (operator.imod, operator.mod, "remainder"),
    "**=": (operator.ipow, operator.pow, "power"),
    "@=": (operator.imatmul, operator.matmul, "matmul"),
    "<<=": (operator.ilshift, operator.lshift, "left_shift"),
    ">>=": (operator.irshift, operator.rshift, "right_shift"),
    "&=": (operator.iand, operator.and_, "bitwise_and"),
    "|=": (operator.ior, operator.or_, "bitwise_or"),
    "^=": (operator.ixor, operator.xor, "bitwise_xor"),
}


def compare_chain(left, *parts):
    """`left op1 c1 op2 c2 ...`: each comparison's truth taken once, as Python's `and`."""
    op, right = parts[0], parts[1]()
    result = COMPARE[op](left, right)
    if len(parts) == 2 or not result:
        return result
    return compare_chain(right, *parts[2:])


def assert_stmt(test, message: Callable | None = None) -> None:
    if not test:
        if message is None:
            raise AssertionError
        raise AssertionError(message())


def setitem(target, index, value, op: str | None = None, nested: bool = False):
    if nested:
        return target
    if op is not None:
        value = AUGMENTED[op][0](target[index], value)  # exactly `target[index] op= value`
    target[index] = value
    return target


def setitem_attr(obj, name: str, index, value, op: str | None = None) -> None:
    new = setitem(getattr(obj, name), index, value, op)
    if new is not getattr(obj, name):
        setattr(obj, name, new)


def array_item(obj, key):
    return obj[key]


def list_append(target, value):
    target.append(value)
    return target


def list_pop(target, *index):
    item = target.pop(*index)
    return target, item


def jumped_over(getter: Callable, name: str):
    try:
        return getter()
    except NameError:
        return Undefined(name)


def print_text(fn, arguments, /, **kwargs) -> None:
    return fn(*arguments(), **kwargs)


def print_(*values, **kwargs) -> None:
    return builtins.print(*values, **kwargs)


def python_iterable(iterable, flagged: bool) -> bool:
    return True


def try_graph_mode() -> bool:
    return False


def with_manager(manager):
    return manager


class _PlainTry:
    """`try_stmt(...)` and its `body()` while no graph is traced: they check nothing."""

    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, typ, value, tb) -> bool:
        return False

    def body(self):
        return self


_PLAIN_TRY = _PlainTry()


def try_stmt(handlers: Callable) -> _PlainTry:
    return _PLAIN_TRY


OPERATORS = ("compare_chain", "assert_stmt", "setitem", "setitem_attr", "array_item",
             "list_append", "list_pop", "python_iterable", "try_graph_mode", "with_manager",
             "try_stmt", "jumped_over", "print_text", "print_")
