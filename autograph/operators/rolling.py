"""When a `for` over a Python `range` inside a trace may be rolled into one graph loop.

A Python loop runs as Python: inside a trace, a body that computes symbolic values is
unrolled, one copy of its ops per iteration. Past `ROLL_AFTER` iterations, `loops.py`
rolls the remaining iterations into a `while_loop` once the loop variables' types are
stable (`loop_types` equal before two consecutive iterations), the loop carries
something symbolic, and either its `break`/`return` turned symbolic or the remaining
iterations would add more than `ROLL_NODES` graph ops. A loop that cannot be rolled keeps unrolling, and warns once
(`LoopUnrollWarning`, at the user's line) when it has unrolled `WARN_AFTER` iterations
that each added graph ops.
"""
from __future__ import annotations

import warnings

import numpy as np

from runtime.core.error_index import IndexedWarning
from runtime.core.tensor import Tensor

# a loop over a range this long or shorter stays unrolled (short loops are cheaper so)
ROLL_AFTER = 16
# a longer loop is rolled when its break / return turned symbolic, or when unrolling the
# remaining iterations would add more graph ops than this (a few hundred ms of tracing);
# below it, unrolled copies stay visible to the passes (matmul chains become squarings)
ROLL_NODES = 500
# iterations a loop that cannot be rolled unrolls before it warns
WARN_AFTER = 100


class LoopUnrollWarning(IndexedWarning):
    """A Python loop is unrolled into the graph for many iterations (slow tracing, a large
    graph): its body cannot be traced once as a graph loop."""


def loop_types(state: tuple):
    """What must stay the same from one iteration to the next for a loop to be rolled:
    symbolic values by dtype, shape and weakness, Python numbers by type, NumPy values by
    dtype and shape, containers by structure, anything else by identity. None when the
    state carries nothing symbolic (a loop on Python values stays a Python loop)."""
    found = [False]
    key = tuple(_types(v, found) for v in state)
    return key if found[0] else None


def _types(v, found: list):
    t = type(v)
    if isinstance(v, Tensor):
        found[0] = True
        return ("tensor", v.dtype, v.shape, v.weak)
    if t is bool or t is int or t is float or t is complex:
        return t
    if t is np.ndarray or isinstance(v, np.generic):
        return (t, v.dtype, np.shape(v))
    if t is list or t is tuple:
        return (t, tuple(_types(x, found) for x in v))
    if t is dict:
        return (t, tuple((k, _types(x, found)) for k, x in v.items()))
    if t is str or v is None:
        return (t, v)
    return (t, id(v))


def warn_unrolled(where: tuple[str, int], trips: int) -> None:
    """Warn once per loop (the default warnings filter keys on file and line)."""
    filename, lineno = where
    warnings.warn_explicit(
        f"this loop over a Python range is unrolled into the graph ({trips} iterations so "
        "far, each adding graph ops): tracing takes longer and the graph grows with the trip "
        "count. It could not be rolled into one graph loop because its variables change type "
        "or shape from one iteration to the next, or its body needs the loop index as a "
        "Python int (a list index, a shape). Keep the loop variables' dtype and shape fixed "
        "(preallocate arrays instead of growing lists), or pass the bound as a NumPy integer "
        "(np.int64(n)) to make it a graph loop.",
        LoopUnrollWarning, filename, lineno)
