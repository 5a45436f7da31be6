"""`zip` of a Python sequence of strings or objects with arrays, in a trace.

A graph loop reads each sequence by the loop's index, which works for numbers (the
sequence becomes a constant array) but not for strings or other objects. With arrays of
known length the zip is unrolled instead, a Python loop over their first items:

    for name, col in zip(["a", "b"], x.T):      # x.T of a known length
        stats[name] = np.mean(col)              # runs twice while tracing
"""
from __future__ import annotations

import builtins

import numpy as np

from autograph.operators.conditionals import is_symbolic


def numbers_only(seq) -> bool:
    """Whether a Python sequence's items can be graph values (numbers, arrays)."""
    if isinstance(seq, (str, bytes)):
        return False
    if isinstance(seq, (list, tuple)):
        return all(isinstance(v, (int, float, complex, np.generic, np.ndarray)) or
                   is_symbolic(v) for v in seq)
    return True  # (an array, a range: NumPy makes numbers of it)


def zip_unrolled(xs: tuple):
    """`zip(names, x)` with a Python sequence of strings or objects and arrays of known
    length: a Python loop over `x`'s first items (as many as the shortest sequence has),
    since a graph loop cannot pick such items; None when the graph loop applies."""
    python = [x for x in xs if not is_symbolic(x)]
    if not python or any(not isinstance(x, (list, tuple, str, bytes)) for x in python) or \
            all(numbers_only(x) for x in python):
        return None
    symbolic = [x for x in xs if is_symbolic(x)]
    if any(x.ndim == 0 or x.shape[0] is None for x in symbolic):
        return None  # (_PythonItems says what to change)
    n = min(len(x) for x in python + symbolic)
    return builtins.zip(*(x if not is_symbolic(x) else [x[i] for i in range(n)] for x in xs))
