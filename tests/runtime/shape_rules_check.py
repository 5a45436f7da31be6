"""Differential check of an op's shape/dtype rule against real NumPy calls.

`check_rule(fn, specs)` traces `fn` on symbolic inputs of the given (shape, dtype) specs
(dims may be None), with every non-ufunc kernel replaced by one that fails: the rule
must not run kernels. Then it calls `fn` eagerly on concrete arrays, each None dim
replaced by several sizes (0, 1, 2, 3 and a mix), and checks:

- the rule raised a static error  -> NumPy raises for every instantiation, the same type
  (with unknown dims: for at least one; other sizes may fail differently first), and the
  message names the user's line;
- the rule gave (shape, dtype)    -> every NumPy result has that dtype, and each dim the
  rule reports known equals NumPy's (so a known dim is constant over the sizes); NumPy may
  raise only where the rule could not know (a None dim) or for a declared value error.
With known shapes at least one instantiation must succeed: no case passes vacuously.
"""
from __future__ import annotations

import contextlib
import itertools
import warnings

import numpy as np

from runtime.core import tracing
from runtime.core.graph import Graph
from runtime.ops import functions, indexing
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor

MIX = (2, 3, 1, 0)


def _forbidden(*args, **kwargs):
    raise AssertionError("a shape/dtype rule ran an op's kernel")


@contextlib.contextmanager
def kernels_forbidden():
    ops = list(functions.OPS.values()) + [indexing.GETITEM, indexing.INDEX_UPDATE]
    saved = [op.kernel for op in ops]
    for op in ops:
        op.kernel = _forbidden
    try:
        yield
    finally:
        for op, k in zip(ops, saved, strict=True):
            op.kernel = k


def make_value(shape, dtype, kind: str = "any") -> np.ndarray:
    """Deterministic values: small positive numbers; "eye" stacks of identity-ish matrices
    (never singular), "zeros" for index arrays (valid whenever the dim is non-empty),
    "mask" alternating booleans."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) if shape else 1
    if kind == "zeros":
        return np.zeros(shape, dtype)
    if kind == "eye":
        base = np.zeros(shape, np.float64)
        if len(shape) >= 2 and shape[-1] == shape[-2]:
            base = base + np.eye(shape[-1]) * 2 + 0.25 * (np.arange(shape[-1]) % 2)
        return base.astype(dtype)
    if dtype.kind == "b" or kind == "mask":
        return (np.arange(n) % 2 == 0).reshape(shape).astype(dtype)
    vals = (np.arange(n) % 3 + 1).reshape(shape)
    if dtype.kind in "fc":
        vals = vals * 0.5 + 0.25
    if dtype.kind == "c":
        vals = vals + 0.5j
    return np.asarray(vals).astype(dtype)


def trace(fn, specs):
    g = Graph("rules")
    with tracing.graph_context(g), kernels_forbidden():
        ins = [g.add_input(s, d) for s, d in specs]
        return fn(*ins)


def _instantiations(specs):
    nones = sum(s.count(None) for s, _ in specs)
    if not nones:
        return [[s for s, _ in specs]]
    known = sorted({d for s, _ in specs for d in s if d is not None} - {0, 1, 2, 3})
    choices = [[m] * nones for m in [0, 1, 2, 3, *known]] + [[MIX[i % 4] for i in range(nones)]]
    out = []
    for sizes in choices:
        it = iter(sizes)
        out.append([tuple(next(it) if d is None else d for d in s) for s, _ in specs])
    return out


def _same_error_type(rule_err, np_err) -> bool:
    return isinstance(rule_err, type(np_err))


def check_rule(fn, specs, *, kinds=None, value_error: bool = False) -> str:
    """Compare the rule with NumPy; returns "ok" or "static-error" (for counting)."""
    specs = [(tuple(s), np.dtype(d)) for s, d in specs]
    kinds = kinds or ["any"] * len(specs)
    try:
        out = trace(fn, specs)
        rule_err = None
    except AssertionError:
        raise
    except Exception as e:  # noqa: BLE001 - compared with NumPy's error below
        rule_err = e
    label = f"{getattr(fn, '__name__', fn)} on {specs}"
    ran = 0
    unknown = any(None in s for s, _ in specs)
    matched = mismatch = None
    for shapes in _instantiations(specs):
        args = [make_value(s, d, k) for s, (_, d), k in zip(shapes, specs, kinds, strict=True)]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = fn(*args)
                np_err = None
            except Exception as e:  # noqa: BLE001
                np_err = e
        if rule_err is not None:
            assert np_err is not None, f"{label}: rule raised {rule_err!r}, NumPy runs on {shapes}"
            mismatch = (f"{label}: rule raised {type(rule_err).__name__}: {rule_err}, NumPy "
                        f"{type(np_err).__name__}: {np_err}")
            if unknown:  # sizes that break something else first may raise another error
                matched = matched or _same_error_type(rule_err, np_err)
            else:
                assert _same_error_type(rule_err, np_err), mismatch
            ran += 1
            continue
        if np_err is not None:
            assert unknown or value_error, f"{label}: rule gave avals, NumPy raised {np_err!r}"
            continue
        ran += 1
        got, _ = flatten(out)
        exp, _ = flatten(expected)
        assert len(got) == len(exp), f"{label}: {len(got)} outputs, NumPy {len(exp)}"
        for t, e in zip(got, exp, strict=True):
            e = np.asarray(e)
            assert isinstance(t, Tensor), f"{label}: rule output {t!r} is not symbolic"
            assert t.dtype == e.dtype, f"{label} on {shapes}: rule dtype {t.dtype}, NumPy {e.dtype}"
            assert len(t.shape) == e.ndim and all(
                d is None or d == n for d, n in zip(t.shape, e.shape, strict=True)), (
                f"{label} on {shapes}: rule shape {t.shape}, NumPy {e.shape}")
    # (with unknown dims the sizes tried may all be invalid: that proves nothing either way)
    assert ran or value_error or unknown, (
        f"{label}: NumPy raised for every instantiation and the rule did not")
    if rule_err is not None and unknown:
        assert matched, mismatch
    if rule_err is not None:  # a static error names the user's line
        assert "(at " in str(rule_err), f"{label}: {rule_err} does not name the user's line"
        return "static-error"
    return "ok"


def check_known_dims_used(fn, specs) -> tuple:
    """The rule's shape, for tests that also pin which dims are known."""
    return trace(fn, [(tuple(s), np.dtype(d)) for s, d in specs]).shape


ALL_DTYPES = [np.dtype(d) for d in (bool, np.int8, np.uint8, np.int16, np.int32, np.int64,
                                    np.uint64, np.float16, np.float32, np.float64,
                                    np.complex64, np.complex128)]
PY_SCALARS = [True, 2, 2.5, 1.5j, -3]


def pairs(items):
    return list(itertools.product(items, items))
