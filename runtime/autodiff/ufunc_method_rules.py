"""Gradient rule of "ufunc_reduceat" (runtime/ops/ufunc_methods.py): `np.add.reduceat`,
and a clear NotImplementedError for `reduceat` of other ufuncs. `reduce` / `accumulate`
of add, multiply, maximum and minimum are np.sum / np.prod / np.max / np.min / np.cumsum
/ np.cumprod, whose rules apply; `np.maximum.accumulate` / `np.minimum.accumulate` (and
fmax / fmin) send each result's cotangent to the first element that attains it;
"ufunc_reduce" / "ufunc_accumulate" of the other ufuncs have none.
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


_RUNNING = ("maximum", "minimum", "fmax", "fmin")


@rule("ufunc_accumulate")
def _accumulate(rec, cts):
    if rec.attrs["ufunc"] not in _RUNNING:
        raise _not_differentiable(rec, "accumulate")
    x = rec.inputs[0]
    axis = (rec.attrs.get("axis") or 0) % np.ndim(x)
    xm = np.moveaxis(x, axis, -1)
    om = np.moveaxis(rec.outputs[0], axis, -1)
    g = np.moveaxis(cts[0], axis, -1)
    j = np.arange(np.shape(xm)[-1])
    # result k is x[j] for the first j <= k holding it: that element gets its cotangent
    hit = (xm[..., None, :] == om[..., :, None]) & (j[None, :] <= j[:, None])
    first = np.argmax(hit, axis=-1)
    picked = first[..., :, None] == j
    gx = np.sum(np.where(picked, g[..., :, None], np.zeros_like(g[..., :, None])), axis=-2)
    return [np.moveaxis(gx, -1, axis)]
