"""`math.*` called on symbolic values: the math function itself, run by the graph.

Converted code calls `math.sqrt(x)` through `converted_call`, which asks
`builtin_calls.overload_of`; each math function maps to its stand-in here. On Python
values the stand-in is the math function. On a symbolic 0-d real value it is the op of
runtime/ops/math_ops.py, whose kernel is the math function: Python's result bit for bit,
and math's own errors ("math domain error", "math range error") when the graph runs.
What the shape or dtype decides is raised while tracing, as math raises it:

    math.sqrt(x)      ->  a graph op running math.sqrt: 1.4142135623730951 (a Python float)
    math.sqrt(x[:2])  ->  TypeError: only 0-dimensional arrays can be converted to Python scalars
"""
from __future__ import annotations

import math
from typing import Callable

from autograph.operators.conditionals import is_symbolic
from autograph.operators.py_builtins import _scalar_only
from runtime.core.errors import where
from runtime.core.registry import bind
from runtime.ops.math_ops import MATH_OPS

_ARITY = {math.atan2: 2, math.copysign: 2, math.hypot: 2, math.pow: 2, math.fmod: 2,
          math.log: (1, 2)}


def _stand_in(fn: Callable, op) -> Callable:
    arity = _ARITY.get(fn, 1)
    counts = arity if isinstance(arity, tuple) else (arity,)

    def stand_in(*args):
        if len(args) not in counts or not any(is_symbolic(a) for a in args):
            return fn(*args)  # Python values (and math's own argument errors)
        for a in args:
            if is_symbolic(a):
                _scalar_only(a, fn.__name__)
                if a.dtype.kind == "c":
                    raise TypeError(f"must be real number, not complex{where()}")
        out = bind(op, *args)
        out.weak = True  # the Python number math returns (NEP 50; returned as one)
        return out

    stand_in.__name__ = stand_in.__qualname__ = f"math_{fn.__name__}"
    stand_in.__doc__ = f"`math.{fn.__name__}` on symbolic values (see math_calls)."
    return stand_in


MATH_OVERLOADS = {fn: _stand_in(fn, op) for fn, op in MATH_OPS.items()}
