"""Jacobians from a GradientTape: `tape.jacobian` and `tape.batch_jacobian` (TensorFlow's
names and result shapes).

Both are built from reverse passes of the tape, one per element of the target (per
element of one example's target for `batch_jacobian`), each seeded with a one-hot
cotangent through `tape.gradient(..., output_gradients=...)`; the rows are stacked with
NumPy calls. They therefore work wherever `gradient` works: eagerly, inside a traced
function (the rows are graph values), and under an enclosing tape, which records the rows
so that a jacobian of a gradient (a hessian) is itself differentiable.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core.errors import where
from runtime.core.structure import flatten, unflatten


def _static_shape(value, what: str) -> tuple:
    shape = tuple(np.shape(value)) if not hasattr(value, "shape") else tuple(value.shape)
    if any(d is None for d in shape):
        raise NotImplementedError(
            f"tape.{what}{where()}: the target's shape {list(shape)} has a dimension unknown "
            "while tracing; jacobians need a static target shape (trace with concrete shapes, "
            "not TensorSpecs with None).")
    return shape


def _unconnected(mode: str, source):
    mode = str(getattr(mode, "value", mode)).lower()
    if mode == "zero":
        return np.zeros(tuple(source.shape), source.dtype)
    if mode != "none":
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {mode!r}")
    return None


def _seeded_gradients(tape, target, sources, seeds: list) -> list:
    """`tape.gradient(target, sources, output_gradients=s)` for each seed in `seeds`."""
    if tape._used and not tape.persistent:
        raise RuntimeError("A non-persistent GradientTape can only compute one gradient or "
                           "jacobian; use GradientTape(persistent=True) to compute more.")
    persistent, tape.persistent = tape.persistent, True
    try:
        return [tape.gradient(target, sources, output_gradients=s) for s in seeds]
    finally:
        tape.persistent = persistent
        tape._used = True


def _dtype_of(value) -> np.dtype:
    dtype = getattr(value, "dtype", None)  # (a dtype's truth value is its field count)
    return np.dtype(dtype) if dtype is not None else np.asarray(value).dtype


def _rows_to_jacobian(rows: list, lead: tuple, source, axis: int, unconnected: str):
    """Stack per-element gradients (each of the source's shape) into lead + source shape."""
    src_shape = tuple(source.shape)
    if all(r is None for r in rows):
        zero = _unconnected(unconnected, source)
        return None if zero is None else np.zeros(lead + src_shape, source.dtype)
    rows = [np.zeros(src_shape, source.dtype) if r is None else r for r in rows]
    if not rows:
        return np.zeros(lead + src_shape, source.dtype)
    return np.reshape(np.stack(rows, axis=axis), lead + src_shape)


def jacobian(tape, target: Any, sources: Any, unconnected_gradients: str = "none") -> Any:
    """d(target)/d(source) for each source: shape target.shape + source.shape."""
    t_shape = _static_shape(target, "jacobian")
    size = int(np.prod(t_shape, dtype=np.int64))
    dtype = _dtype_of(target)
    seeds = []
    for i in range(size):
        seed = np.zeros(size, dtype)
        seed[i] = 1
        seeds.append(seed.reshape(t_shape))
    leaves, tree = flatten(sources)
    if not seeds:  # an empty target: an empty jacobian, no pass needed
        tape._used = True
        return unflatten(tree, [np.zeros(t_shape + tuple(s.shape), s.dtype) for s in leaves])
    per_seed = _seeded_gradients(tape, target, leaves, seeds)
    out = [_rows_to_jacobian([g[j] for g in per_seed], t_shape, s, 0, unconnected_gradients)
           for j, s in enumerate(leaves)]
    return unflatten(tree, out)


def batch_jacobian(tape, target: Any, source: Any, unconnected_gradients: str = "none"):
    """Per-example jacobians d(target[b])/d(source[b]): [b, *target[b].shape,
    *source[b].shape]. As in TensorFlow, example b's target must depend on example b's
    source only; each pass seeds one target element of every example at once."""
    t_shape = _static_shape(target, "batch_jacobian")
    s_shape = tuple(source.shape)
    if not t_shape or not s_shape:
        raise ValueError(f"tape.batch_jacobian{where()}: target and source need a leading "
                         f"batch dimension (got shapes {list(t_shape)} and {list(s_shape)}).")
    if s_shape[0] is not None and t_shape[0] != s_shape[0]:
        raise ValueError(f"tape.batch_jacobian{where()}: target and source batch sizes differ "
                         f"({t_shape[0]} and {s_shape[0]}).")
    batch, per = t_shape[0], t_shape[1:]
    size = int(np.prod(per, dtype=np.int64))
    dtype = _dtype_of(target)
    seeds = []
    for i in range(size):
        seed = np.zeros((batch, size), dtype)
        seed[:, i] = 1
        seeds.append(seed.reshape(t_shape))
    if not seeds or batch == 0:
        tape._used = True
        return np.zeros(t_shape + s_shape[1:], source.dtype)
    rows = [r[0] for r in _seeded_gradients(tape, target, [source], seeds)]
    if all(r is None for r in rows):
        zero = _unconnected(unconnected_gradients, source)
        return None if zero is None else np.zeros(t_shape + s_shape[1:], source.dtype)
    rows = [np.zeros(s_shape, source.dtype) if r is None else r for r in rows]
    return np.reshape(np.stack(rows, axis=1), t_shape + s_shape[1:])
