"""`assert` in converted code.

    assert x > 0, "x must be positive"   =>   ag__.assert_stmt(x > 0, lambda: "x must be positive")

On a Python value this is Python's assert (the message is only built when it fails).
On a symbolic value it is a graph assertion (`runtime.assert_`): it runs every time the
graph runs and raises AssertionError with the message when the value is false.
"""
from __future__ import annotations

from typing import Callable

from autograph.operators.conditionals import is_symbolic


def assert_stmt(test, message: Callable | None = None) -> None:
    if is_symbolic(test):
        import numpy as np
        import runtime

        text = "" if message is None else message()
        if test.ndim != 0:
            test = np.all(test)
        runtime.assert_(test, text if isinstance(text, str) else str(text))
        return
    if not test:
        if message is None:
            raise AssertionError
        raise AssertionError(message())


def python_only(value):
    """A condition or iterable inside a `try` block: it must be a Python value."""
    from autograph.errors import ConversionError, caller_location
    from autograph.operators.conditionals import is_symbolic

    if is_symbolic(value):
        filename, line = caller_location()
        raise ConversionError(
            "this condition is symbolic but sits inside a try/except block, which "
            "AutoGraph leaves as Python (a graph cannot catch exceptions). Move the "
            "if/while/for out of the `try` block, or make the condition a Python value.",
            filename, line)
    return value
