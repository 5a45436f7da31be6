"""The reverse pass shared by eager and graph tapes.

A record has `op`, `inputs`, `attrs`, `outputs` (values the rule computes with) and
`in_keys` / `out_keys` (identities that cotangents are accumulated under). Graph nodes
are records whose keys are their Tensors' ids; eager records keep the arrays and the
ids of the tape values that produced them. Each op's gradient rule is its record's
`grad` (attached when the rule modules load: runtime/autodiff/__init__.py loads them).
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.shapes import is_differentiable
from runtime.control_flow.lists import is_list
from runtime.core.errors import where
from runtime.state.views import recorded_values


def backprop(records, seeds: dict, wanted: set) -> dict:
    """Accumulate cotangents from `seeds` ({key: cotangent}) back through `records`.

    Only records on a path to a key in `wanted` are differentiated. Rules see each
    record's values as the op saw them (`recorded_values`), not an array's later writes.
    """
    with recorded_values():
        return _backprop(records, seeds, wanted)


def _backprop(records, seeds: dict, wanted: set) -> dict:
    cts = dict(seeds)
    relevant = _on_path(records, wanted)
    for rec in reversed(records):
        if not relevant.get(id(rec)):
            continue
        out_cts = [cts.get(k) for k in rec.out_keys]
        if all(g is None for g in out_cts):
            continue
        rule = rec.op.grad  # the one lookup: every op's rule is on its record
        if rule is None:
            raise NotImplementedError(
                f"No gradient rule for `{rec.op.name}`{_at(rec)}; it lies between the target "
                "and a source. Compute it outside the tape, or use ops that have rules.")
        # a missing cotangent is zeros (for a graph list: None, its rules take care)
        out_cts = [g if g is not None or _is_list(o) else np.zeros_like(o)
                   for g, o in zip(out_cts, rec.outputs)]
        in_cts = rule(rec, out_cts)
        for key, x, g in zip(rec.in_keys, rec.inputs, in_cts):
            if key is None or g is None or not is_differentiable(x):
                continue
            g = _real_for_real(g, x)
            if key in cts:
                cts[key] = cts[key] + g
            else:
                cts[key] = g
    return cts


def _real_for_real(g, x):
    """A real input's cotangent is real: the part of a complex one along the real axis (a
    real value feeding a complex op, as in np.fft.fft(x) or x * 1j)."""
    g_dt, x_dt = getattr(g, "dtype", None), getattr(x, "dtype", None)
    if x_dt is None and isinstance(x, float):
        x_dt = np.dtype(float)
    if g_dt is not None and g_dt.kind == "c" and x_dt is not None and x_dt.kind != "c":
        return np.real(g)
    return g


def _is_list(x) -> bool:
    """A graph list (see runtime/control_flow/lists.py): a 0-d value of dtype object."""
    return is_list(x)


def _on_path(records, wanted: set) -> dict:
    """Records that depend (forwards) on any key in `wanted`."""
    live = set(wanted)
    relevant = {}
    for rec in records:
        if any(k in live for k in rec.in_keys if k is not None):
            relevant[id(rec)] = True
            live.update(k for k in rec.out_keys if k is not None)
    return relevant


def _at(rec) -> str:
    origin = getattr(rec, "origin", None)
    return f" (at {origin})" if origin else where()
