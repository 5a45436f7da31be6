"""Gradient rule of "ufunc_reduceat" (runtime/ops/ufunc_methods.py): `np.add.reduceat`,
and a clear NotImplementedError for `reduceat` of other ufuncs. `reduce` / `accumulate`
of add, multiply, maximum and minimum are np.sum / np.prod / np.max / np.min / np.cumsum
/ np.cumprod, whose rules apply; "ufunc_reduce" / "ufunc_accumulate" (the other ufuncs)
have none.
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import rule


def _not_differentiable(rec, method: str):
    return NotImplementedError(
        f"np.{rec.attrs['ufunc']}.{method} has no gradient rule; the differentiable ones "
        "is np.add.reduceat. Compute it outside the tape, or write it with np.add.reduceat.")


@rule("ufunc_reduceat")
def _reduceat(rec, cts):
    if rec.attrs["ufunc"] != "add":
        raise _not_differentiable(rec, "reduceat")
    x, idx = rec.inputs
    nd = np.ndim(x)
    axis = rec.attrs.get("axis", 0) % nd
    n = np.shape(x)[axis]
    # result i sums x[idx[i]:idx[i+1]] (only x[idx[i]] where idx[i+1] <= idx[i]; the
    # last one runs to the end): member[i, j] says whether x[j] is in result i
    starts = idx
    nxt = np.concatenate([starts[1:], np.zeros(1, np.result_type(starts)) + n])
    stops = np.where(nxt > starts, nxt, starts + 1)
    j = np.arange(n)
    member = (j[None, :] >= starts[:, None]) & (j[None, :] < stops[:, None])
    g = np.moveaxis(cts[0], axis, -1)
    gx = np.matmul(g, np.astype(member, g.dtype))
    return [np.moveaxis(gx, -1, axis), None]
