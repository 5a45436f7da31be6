"""Builtins recognised by identity when converted code calls them.

The call converter substitutes a builtin by its name (`range(n)` -> `ag__.range_(n)`),
which misses a builtin reached any other way: `fn = range; fn(n)`, a builtin passed as
an argument, kept in a list or a dict. Those calls go through `ag__.converted`, which
asks `overload_of` here: the builtin object maps to the same `ag__` implementation the
name-based path uses (`BUILTIN_OVERRIDES`), so both spellings mean the same thing.
"""
from __future__ import annotations

import builtins
import functools
import operator
import types
from typing import Callable

from autograph import operators
from autograph.operators.math_calls import MATH_OVERLOADS
from autograph.operators.py_builtins import BUILTIN_OVERRIDES
from runtime.core.tensor import Tensor

# (the `ag__` package does not import this module: `autograph.impl.calls` does)
OVERLOADS = _OVERLOADS = {getattr(builtins, name): getattr(operators, impl)
              for name, impl in BUILTIN_OVERRIDES.items()}
_OVERLOADS[operator.index] = operators.index_  # what `range`, slicing and NumPy call
_OVERLOADS.update(MATH_OVERLOADS)  # math.sqrt(x) of a symbolic x: NumPy, with math's errors


def overload_of(f) -> Callable | None:
    """The `ag__` implementation standing for the builtin `f`, or None (also: `x.item`
    of a symbolic array, which NumPy answers with a Python number)."""
    if type(f) is types.MethodType:
        if f.__name__ == "item" and type(f.__self__) is Tensor:
            return functools.partial(operators.item_, f.__self__)
        return None
    if type(f) is not types.BuiltinFunctionType and type(f) is not type:
        return None  # cheap exit: only builtin functions and classes can be builtins
    try:
        return _OVERLOADS.get(f)
    except TypeError:  # an unhashable class
        return None
