"""A `return` / `break` / `continue` in `finally` drops any error passing through, so a
`try` that keeps one stays Python and acts as a bare `except` for the refusal of
operators/exceptions.py: graph operations in its body (whose run-time errors the graph
could not drop) are a ConversionError at the `try` line - never an effect or error that
Python's `finally` would have dropped. Without graph operations it runs as Python."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag


def return_in_finally(x):
    try:  # refused
        y = np.linalg.inv(x)
        ag.print("inverted", y[0, 0])
    finally:
        return 5.0  # noqa: B012 - the construct under test


def python_values_only(n):
    out = [n]
    try:
        out.append(10 // (n - 2))
    finally:
        if n > 3:
            return out  # noqa: B012 - the construct under test
    return out + [0]


@pytest.mark.parametrize("fn,args", [(return_in_finally, (np.zeros((2, 2)),))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_graph_operations_before_a_jump_in_finally_are_refused_at_the_try(fn, args):
    with np.errstate(all="ignore"):
        fn(*args)  # Python: the error of inv is dropped by the `finally`
    with pytest.raises(ag.ConversionError, match="could catch an error") as info:
        ag.function(fn)(*args)
    lines, first = inspect.getsourcelines(fn)
    assert info.value.lineno == first + next(
        i for i, line in enumerate(lines) if "# refused" in line)


@pytest.mark.parametrize("n", [0, 3, 5, 2])
def test_python_values_run_as_python(n):
    for run in (ag.function(python_values_only), ag.to_graph(python_values_only)):
        try:
            want = python_values_only(n)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                run(n)
            continue
        assert run(n) == want
