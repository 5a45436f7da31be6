"""`assert` in converted code.

    assert x > 0, "x must be positive"   =>   ag__.assert_stmt(x > 0, lambda: "x must be positive")

On a Python value this is Python's assert (the message is only built when it fails).
On a symbolic value it is a graph assertion (`runtime.assert_`): it runs every time the
graph runs and raises AssertionError with the message when the value is false.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import runtime
from autograph.errors import ConversionError, caller_location
from autograph.operators.conditionals import is_symbolic
from runtime.core.tensor import describing


def assert_stmt(test, message: Callable | None = None) -> None:
    if is_symbolic(test):
        with describing():  # f"x={x}" in the message shows x's symbolic description
            text = "" if message is None else message()
        if test.ndim != 0:
            test = np.all(test)
        runtime.assert_(test, text if isinstance(text, str) else str(text))
        return
    if not test:
        if message is None:
            raise AssertionError
        raise AssertionError(message())


_PYTHON_ONLY = {
    "try": "this condition is symbolic but sits inside a try/except block, which AutoGraph "
           "leaves as Python (a graph cannot catch exceptions). Move the if/while/for out "
           "of the `try` block, or make the condition a Python value.",
    "match": "the subject of this `match` is symbolic: AutoGraph converts the statements "
             "inside the cases, but the `match` itself stays Python and its patterns cannot "
             "be tested in a graph. Use if/elif on the value instead.",
    "guard": "the guard of this `case` is symbolic: AutoGraph converts the statements "
             "inside the cases, but the `match` itself stays Python and cannot test a "
             "symbolic guard. Use if/elif, or an `if` inside the case, instead.",
}


def python_only(value, construct: str = "try"):
    """A value Python must decide on: a condition or iterable inside a `try` block, the
    subject of a `match` or the guard of a `case`. A symbolic one is a ConversionError at its line."""
    if is_symbolic(value):
        filename, line = caller_location()
        raise ConversionError(_PYTHON_ONLY[construct], filename, line)
    return value
