"""`handed_over`: whether a symbolic value reached the test of an `if` / `while` that the
compiled code runs as written (`converters/fast_tests.py`), and if so which value.

There a statement's test is Python's own jump; a symbolic value's `Tensor.__bool__`
raises `GraphModeError` from it, and the statement's handler asks this function whether
that error is its own test's before it takes the functional form with the value. It is
only when all of these hold:

- the error came from `Tensor.__bool__` called directly by an instruction of the
  handler's own frame (not from a callee, not from a `bool(x)` or `x in xs` there);
- that instruction is a conditional jump (a truth test, not `not x` or a comparison);
- its source range holds the whole test and lies within the statement: the test's own
  jump (at the top of a `while`, or its copy at the bottom). Jumps of the statements
  nested in it lie in its body; the compiler only uses this form for tests without
  `and` / `or` / conditional expressions / chained comparisons of their own, and the
  jumps the converters add test Python bools, which never raise.

Anything else (a symbolic value tested by unconverted code the statement calls, or by a
nested statement) is re-raised as it was. Runs only when an error was raised.
"""
from __future__ import annotations

import dis
import sys

from autograph.operators.conditionals import symbolic_test
from runtime.core.errors import GraphModeError  # noqa: F401 (the handlers catch it: `ag__`)
from runtime.core.tensor import Tensor

_TRUTH_TEST = Tensor.__bool__.__code__
_JUMPS = frozenset(code for name, code in dis.opmap.items()
                   if name.startswith("POP_JUMP") and name.endswith(("IF_TRUE", "IF_FALSE")))


def handed_over(error: BaseException, test: tuple, statement: tuple):
    """The symbolic value the test at `test` (source range: first line, column, last
    line, column) of the statement at `statement` gave, if `error` is that test's
    `GraphModeError` in the caller's frame; None: any other error (re-raise it)."""
    trace = error.__traceback__
    frame = sys._getframe(1)
    if trace is None or trace.tb_frame is not frame or trace.tb_next is None:
        return None
    called = trace.tb_next.tb_frame
    if called.f_code is not _TRUTH_TEST:
        return None
    code, at = frame.f_code, trace.tb_lasti
    if code.co_code[at] not in _JUMPS:
        return None
    line, end_line, col, end_col = list(code.co_positions())[at // 2]
    if None in (line, end_line, col, end_col):
        return None
    if not (_within(test, (line, col, end_line, end_col)) and
            _within((line, col, end_line, end_col), statement)):
        return None
    value = called.f_locals.get("self")
    return value if symbolic_test(value) else None


def _within(inner: tuple, outer: tuple) -> bool:
    return outer[:2] <= inner[:2] and inner[2:] <= outer[2:]
