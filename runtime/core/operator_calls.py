"""Which NumPy calls a Python operator made: `a + b` on Python numbers is Python's `+`
(a Python number), `np.add(a, b)` NumPy's (a NumPy scalar). The operator methods of
symbolic values (`Tensor.__add__`, ...) set `OPERATOR.active` around their ufunc call,
and the ufunc dispatch (runtime/ops/ufuncs.py) takes it.
"""
from __future__ import annotations

import threading

import numpy as np


class _Operator(threading.local):
    """Set while a Python operator (`a + b`, `-a`) calls its ufunc, until the dispatch
    takes it: Python's operators on Python numbers give Python numbers, NumPy's functions
    (`np.add(a, b)`) NumPy scalars, and a value standing for a Python number (`weak`)
    follows whichever the program wrote."""
    active = False


OPERATOR = _Operator()


def operator_method(ufunc, reflected: bool = False):
    """The method of Python operator `ufunc` (`__add__` is np.add; `reflected`: `__radd__`)."""
    def binary(self, o):
        OPERATOR.active = True
        try:
            return ufunc(o, self) if reflected else ufunc(self, o)
        finally:
            OPERATOR.active = False

    def unary(self):
        OPERATOR.active = True
        try:
            return ufunc(self)
        finally:
            OPERATOR.active = False
    return unary if ufunc.nin == 1 and not reflected and ufunc is not np.divmod else binary
