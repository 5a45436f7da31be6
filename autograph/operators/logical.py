"""Lazy `and` / `or` / `not` that also work on symbolic values.

    a and b and c   =>   ag__.and_(a, lambda: b, lambda: c)
    not x           =>   ag__.not_(x)

On Python values these are exactly Python's operators: the first falsy (truthy)
operand is returned and later operands are not evaluated. When an operand is
symbolic, the rest is evaluated under `runtime.cond`, so a guard such as
`i < n and x[i] > 0` still protects the second operand when the graph runs, and the
result is still an operand, as in Python:

    a or b    =>   runtime.cond(truthy(a), lambda: a, lambda: b)
    a and b   =>   runtime.cond(truthy(a), lambda: b, lambda: a)

so both sides must agree in dtype and shape (`x or 5.0` with a float `x` is fine; the
runtime's error names the mismatch otherwise). Where the value of `a` on a side is
known - a bool `a` that is True on the `or` side, any falsy scalar `a` (False, 0, 0.0)
on the `and` side - that side gives the Python constant, which takes the other side's
dtype: `x > 0 and y` is `y` or 0 (Python: `y` or False), and `n and x > 0` with an int
`n` is a bool. (A falsy float `-0.0` comes back as `0.0`.) When the other side is a Python
number too, of another type (`x > 0 or b` with `b = 0`: True or 0), both take NumPy's
promotion of the two (int64 there). A later operand that cannot be a graph value (a
Python list, None, an object) counts by its truthiness.

    lo < f(x) <= hi   =>   ag__.compare_chain(lo, '<', lambda: f(x), '<=', lambda: hi)

is a chained comparison whose middle operands are not plain names: each is evaluated
once, and a later comparison only while the earlier ones hold (an `and_`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import runtime
from autograph.operators.conditionals import is_symbolic, rebinding_operands_error, symbolic_test
from autograph.operators.py_builtins import bool_
from autograph.pyct.plain_operators import COMPARE


def _as_bool(x):
    return np.astype(x, np.bool_) if x.dtype != np.bool_ else x


def and_(a, *rest: Callable, rebinds: tuple = ()):
    """`a and rest[0]() and rest[1]() ...` (`rebinds`: as `if_exp`'s)"""
    if not rest:
        return a
    if symbolic_test(a):
        if rebinds:
            raise rebinding_operands_error(rebinds, "`and`")
        falsy = _falsy_value(a)
        other = []

        def rest_of():
            other.append(_operand(and_(rest[0](), *rest[1:], rebinds=rebinds), falsy))
            return other[0]
        # (the rest is traced first: `a` itself where it has the rest's dtype)
        return runtime.cond(_as_bool(a), rest_of, lambda: _itself_or(a, falsy, other),
                            names=("the value of this `and`",))
    if not a:
        return a
    return and_(rest[0](), *rest[1:], rebinds=rebinds)


def or_(a, *rest: Callable, rebinds: tuple = ()):
    """`a or rest[0]() or rest[1]() ...` (`rebinds`: as `if_exp`'s)"""
    if not rest:
        return a
    if symbolic_test(a):
        if rebinds:
            raise rebinding_operands_error(rebinds, "`or`")
        # a bool scalar known True is the Python True; an array (a shape-[1] mask) is
        # itself, as Python's `or` returns the operand
        truthy = True if a.dtype == np.bool_ and a.ndim == 0 else a
        other = []

        def rest_of():
            other.append(_operand(or_(rest[0](), *rest[1:], rebinds=rebinds), truthy))
            return other[0]
        # (the rest is traced first: `a` itself where it has the rest's dtype)
        return runtime.cond(np.logical_not(_as_bool(a)), rest_of,
                            lambda: _itself_or(a, truthy, other),
                            names=("the value of this `or`",))
    if a:
        return a
    return or_(rest[0](), *rest[1:], rebinds=rebinds)


_NUMBERS = (bool, int, float, complex)


def _operand(v, known=None):
    """A later operand as a branch result: Python values that cannot be graph values
    (a list, None, an object) give their truthiness, which is known while tracing.
    `known` is what the other side gives: when both are Python numbers of different
    types, `v` becomes a NumPy scalar of their promoted dtype, which `known` then takes."""
    if type(v) in _NUMBERS and type(known) in _NUMBERS and type(v) is not type(known):
        return np.asarray(v, dtype=np.result_type(v, known))[()]
    if is_symbolic(v) or isinstance(v, _NUMBERS + (np.ndarray, np.generic)):
        return v
    return bool(v)


def _itself_or(a, known, other: list):
    """The value of `a` on the side where its truth is known: `a` itself when the other
    side's value has its dtype (so a NumPy `a` stays the NumPy value Python's operator
    returns), else the Python constant `known`, which takes the other side's dtype."""
    v = other[0] if other else None
    if a.weak or not (isinstance(v, runtime.Tensor) and v.dtype == a.dtype and
                      v.ndim == a.ndim or type(v) in (int, float) and a.ndim == 0 and
                      np.result_type(a.dtype, v) == a.dtype):
        return known
    return a


def _falsy_value(a):
    """The value of a symbolic `a` known to be falsy: a Python zero for a scalar."""
    if a.ndim:
        return a
    kind = np.dtype(a.dtype).kind
    return {"b": False, "c": 0j, "f": 0.0}.get(kind, 0)


_COMPARE = COMPARE


def compare_chain(left, *parts):
    """`left op1 c1 op2 c2 ...` with `parts` = (op1, thunk1, op2, thunk2, ...)."""
    op, right = parts[0], parts[1]()
    result = _COMPARE[op](left, right)
    if len(parts) == 2:
        return result
    return and_(result, lambda: compare_chain(right, *parts[2:]))


def truth(x):
    """`x` where only its truth matters (an operand of `and` / `or` in an `if` / `while`
    test): a symbolic value as the 0-d bool `bool(x)` gives (so a shape-[1] comparison and
    a Python bool can meet in one `cond`); a Python value unchanged."""
    if is_symbolic(x) and (x.ndim or x.dtype != np.bool_):
        return bool_(x)
    return x


def not_(x):
    """`not x`: Python's bool of the truth of `x` (a size-1 array of any shape; other
    sizes raise NumPy's ValueError), so `not x` of a shape-[1] array is a bool too."""
    if symbolic_test(x):
        out = np.logical_not(bool_(x))
        out.weak = True  # a Python bool, as `not` gives
        return out
    return not x
