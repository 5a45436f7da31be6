"""`x.item(*args)` of a symbolic array, as NumPy defines it: a value that stands for the
Python number NumPy returns."""
from __future__ import annotations

import operator

import numpy as np

from autograph.operators.conditionals import is_symbolic
from runtime.core.errors import where
from runtime.ops.ufuncs import python_number
from runtime.state.checks import check


def item_(x, *args):
    """`x.item(*args)` of a symbolic array: NumPy's rules (no argument: a size-1 array of
    any shape, else ValueError; one int: that flat position; several: that element),
    giving a value that stands for the Python number NumPy returns (weak, NEP 50, and
    returned from the function as a Python number)."""
    if x.dtype == object:
        raise TypeError(f"x.item() of a list built in a symbolic loop{where()}: index it "
                        "(`xs[i]`) instead.")
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    # integers only, as NumPy takes them (a float is Python's TypeError)
    args = tuple(a if is_symbolic(a) else operator.index(a) for a in args)
    if not args:
        dims = x.shape
        if None in dims:
            check(np.size(x) == 1, "ValueError",
                  "can only convert an array of size 1 to a Python scalar")
            value = np.reshape(x, ())
        else:
            if int(np.prod(dims)) != 1:
                raise ValueError(f"can only convert an array of size 1 to a Python scalar"
                                 f"{where()}")
            value = np.reshape(x, ())
    elif len(args) == 1:
        value = np.reshape(x, (-1,))[args[0]]
    else:
        if len(args) != x.ndim:
            raise ValueError(f"incorrect number of indices for array{where()}")
        value = x[tuple(args)]
    return python_number(value)
