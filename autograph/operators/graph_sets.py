"""`set(x)` of a symbolic 1-D array in converted code: `ag__.set_(x)`.

Python's set of an array's items holds its distinct values (NaNs each count: `nan != nan`),
and iterates them in an order set by their hashes, which a graph cannot reproduce. So a
set of symbolic values answers `len()` (the distinct count, a Python int when the graph
runs, as `len(set(labels)) == 1` needs), and refuses iteration, membership and set
algebra with an error naming `np.unique` / `np.isin`. A set of anything else is
Python's own.
"""
from __future__ import annotations

import builtins

import numpy as np

from autograph.operators.conditionals import is_symbolic
from autograph.operators.py_builtins import SymbolicIterable
from runtime import GraphModeError
from runtime.core.errors import where
from runtime.ops.shape import symbolic_shape


class GraphSet(SymbolicIterable):
    """The set of a symbolic array's items: its length only (see the module docstring)."""

    def __init__(self, values):
        self.values = values

    def length(self):
        x = self.values
        if x.dtype.kind in "fc":  # each NaN is a distinct member
            nan = np.isnan(x)
            distinct = np.unique(x[~nan])
            n = symbolic_shape(distinct)[0] + np.count_nonzero(nan)
            n.weak = True  # it stands for the Python int len() gives
            return n
        return symbolic_shape(np.unique(x))[0]

    def _refuse(self, what: str):
        return GraphModeError(
            f"{what} a set of symbolic values{where()}: Python orders a set by its members' "
            "hashes, which are known only when the graph runs. Use `np.unique(x)` for the "
            "distinct values (sorted), `np.isin(v, x)` or `np.any(x == v)` for membership; "
            "`len(set(x))` works as it is.")

    def __iter__(self):
        raise self._refuse("Iterating over")

    def get(self, i):
        raise self._refuse("Iterating over")

    def __contains__(self, v):
        raise self._refuse("`in` on")

    def __getattr__(self, name):
        raise self._refuse(f"`.{name}` of")

    def _algebra(self, *_):
        raise self._refuse("Set algebra (|, &, -, ^, comparisons) on")

    __or__ = __ror__ = __and__ = __rand__ = __sub__ = __rsub__ = __xor__ = __rxor__ = _algebra
    __le__ = __lt__ = __ge__ = __gt__ = __eq__ = __ne__ = _algebra
    __hash__ = None


def set_(*args):
    """`set(...)`: a GraphSet of a symbolic 1-D array, Python's set otherwise."""
    if len(args) == 1 and is_symbolic(args[0]):
        x = args[0]
        if x.ndim != 1:  # Python hashes the items: rows of a 2-D array, a 0-d's error
            raise TypeError("unhashable type: 'numpy.ndarray'" if x.ndim > 1 else
                            "iteration over a 0-d array")
        return GraphSet(x)
    return builtins.set(*args)
