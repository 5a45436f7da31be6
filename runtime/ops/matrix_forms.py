"""`np.diag`, `np.diagflat` and `np.rot90` of symbolic arrays.

- `np.diag(v, k)` of a 1-D array is op "diag" (NumPy's own function as the kernel, its
  rule below): the square matrix with `v` on diagonal `k`. Of a 2-D array it is
  `np.diagonal(v, k)`, which is what NumPy returns (a read-only view). Other ranks raise
  NumPy's ValueError while tracing.
- `np.diagflat(v, k)` is `np.diag` of `np.ravel(v)`, as in NumPy.
- `np.rot90(m, k, axes)` is a flip and a transpose (or two flips), built from those
  ops, so its gradient and batching come from theirs; `k` and `axes` must be static.

Gradient of "diag": runtime/autodiff/more_rules.py.
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.core.errors import where
from runtime.core.registry import OpDef, bind, numpy_ref
from runtime.core.tensor import Tensor
from runtime.ops.functions import OPS, TABLE, resolve_variables
from runtime.ops.rules_common import dtype, shape, static_error, static_int


def _diag_rule(op, inputs, attrs):
    (n,) = shape(inputs[0])
    k = attrs.get("k", 0)
    side = None if n is None else n + abs(k)
    return [((side, side), dtype(inputs[0]))]


DIAG = OpDef("diag", np.diag, _diag_rule, kernel_ref=numpy_ref(np.diag))
OPS[DIAG.name] = DIAG


def _static_k(k, name: str) -> int:
    if isinstance(k, Tensor):
        raise TypeError(f"np.{name}(v, k): the diagonal `k` must be a static integer in "
                        f"graphs, not a symbolic value{where()}.")
    return static_int(k, f"np.{name}: k")


@TABLE.register(np.diag)
def _diag(v, k=0):
    (v,) = resolve_variables([v])
    k = _static_k(k, "diag")
    nd = np.ndim(v)
    if nd == 1:
        return bind(DIAG, v, k=k)
    if nd == 2:
        return np.diagonal(v, offset=k)
    raise static_error(ValueError, "Input must be 1- or 2-d.")


@TABLE.register(np.diagflat)
def _diagflat(v, k=0):
    (v,) = resolve_variables([v])
    return bind(DIAG, np.ravel(v), k=_static_k(k, "diagflat"))


@TABLE.register(np.rot90)
def _rot90(m, k=1, axes=(0, 1)):
    (m,) = resolve_variables([m])
    if isinstance(k, Tensor) or any(isinstance(a, Tensor) for a in np.ravel(axes)):
        raise TypeError(f"np.rot90: `k` and `axes` must be static integers in graphs{where()}.")
    axes = tuple(axes)
    if len(axes) != 2:
        raise static_error(ValueError, "len(axes) must be 2.")
    nd = np.ndim(m)
    a0, a1 = (operator.index(a) for a in axes)
    if a0 == a1 or abs(a0 - a1) == nd:
        raise static_error(ValueError, "Axes must be different.")
    if not (-nd <= a0 < nd and -nd <= a1 < nd):
        raise static_error(ValueError, f"Axes={axes} out of range for array of ndim={nd}.")
    turns = operator.index(k) % 4
    if turns == 0:
        return m[:]
    if turns == 2:
        return np.flip(np.flip(m, a0), a1)
    # a quarter turn swaps the two axes; which one is flipped gives the direction
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if turns == 1:
        return np.transpose(np.flip(m, a1), perm)
    return np.flip(np.transpose(m, perm), a1)
