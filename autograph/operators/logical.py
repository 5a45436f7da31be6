"""Lazy `and` / `or` / `not` that also work on symbolic values.

    a and b and c   =>   ag__.and_(a, lambda: b, lambda: c)
    not x           =>   ag__.not_(x)

On Python values these are exactly Python's operators: the first falsy (truthy)
operand is returned and later operands are not evaluated. When an operand is
symbolic, the rest is evaluated under `runtime.cond`, so a guard such as
`i < n and x[i] > 0` still protects the second operand when the graph runs.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from autograph.operators.conditionals import is_symbolic


def _as_bool(x):
    return np.astype(x, np.bool_) if x.dtype != np.bool_ else x


def and_(a, *rest: Callable):
    """`a and rest[0]() and rest[1]() ...`"""
    if not rest:
        return a
    if is_symbolic(a):
        import runtime

        return runtime.cond(_as_bool(a), lambda: _tensor_bool(and_(rest[0](), *rest[1:])),
                            lambda: False)
    if not a:
        return a
    return and_(rest[0](), *rest[1:])


def or_(a, *rest: Callable):
    """`a or rest[0]() or rest[1]() ...`"""
    if not rest:
        return a
    if is_symbolic(a):
        import runtime

        return runtime.cond(_as_bool(a), lambda: True,
                            lambda: _tensor_bool(or_(rest[0](), *rest[1:])))
    if a:
        return a
    return or_(rest[0](), *rest[1:])


def _tensor_bool(x):
    if is_symbolic(x):
        return _as_bool(x)
    return bool(x)


def not_(x):
    if is_symbolic(x):
        return np.logical_not(x)
    return not x
