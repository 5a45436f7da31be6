"""Differential tests of the NumPy-function shape/dtype rules (functions_rules.py,
shaping_rules.py): every registered function, over generated shapes (0-size and
unknown dims included) and every dtype, against real NumPy calls (check_rule)."""
from __future__ import annotations

import numpy as np
import pytest

from runtime.ops import functions
from tests.runtime.shape_rules_check import ALL_DTYPES, check_rule

SHAPES = [(), (0,), (3,), (2, 3), (0, 4), (2, 1, 3), (None,), (None, 3), (2, None), (None, None),
          (None, 0, 2)]
NUMERIC = [d for d in ALL_DTYPES if d.kind != "b"]


def each(fn, shapes=SHAPES, dtypes=ALL_DTYPES, **kw):
    for s in shapes:
        for d in dtypes:
            check_rule(fn, [(s, d)], **kw)


REDUCTIONS = ["sum", "mean", "prod", "max", "min", "amax", "amin", "any", "all", "std", "var",
              "argmax", "argmin", "nansum", "nanmean", "nanmax", "nanmin", "count_nonzero"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name):
    f = getattr(np, name)
    dtypes = ALL_DTYPES if not name.startswith("nan") else [
        d for d in ALL_DTYPES if d.kind in "iuf"]
    each(lambda x: f(x), dtypes=dtypes)
    for axis in (0, -1, 2, (0, 1), (1, 0), (0, 0), None):
        if name in ("argmax", "argmin", "count_nonzero") and isinstance(axis, tuple) and \
                name != "count_nonzero":
            continue
        for keep in (False, True):
            each(lambda x, axis=axis, keep=keep: f(x, axis=axis, keepdims=keep),
                 shapes=[(2, 3), (0, 3), (None, 3), (3,), (2, None, 0)], dtypes=dtypes[::3])
    if name in ("sum", "prod", "mean", "std", "var", "nansum", "nanmean"):
        for d in (np.float32, np.int32, np.complex64, np.float64):
            each(lambda x, d=d: f(x, axis=0, dtype=d), shapes=[(2, 3), (None, 3)],
                 dtypes=dtypes)
    if name in ("sum", "prod", "max", "min", "amax", "amin", "nansum", "nanmax", "nanmin"):
        each(lambda x: f(x, axis=0, initial=1), shapes=[(0, 3), (None, 2)], dtypes=NUMERIC)
    if name in ("sum", "mean", "max", "any", "std"):
        mask = np.array([True, False, True])
        kw = {"initial": 0} if name == "max" else {}
        each(lambda x: f(x, axis=0, where=mask, **kw), shapes=[(2, 3), (None, 3), (2, 4)],
             dtypes=[np.dtype(np.float64)])


def test_std_var_ddof():
    for f in (np.std, np.var):
        each(lambda x, f=f: f(x, ddof=1), shapes=[(3,), (None, 2)], dtypes=ALL_DTYPES)


def test_cumulative_and_trace():
    for f in (np.cumsum, np.cumprod):
        each(lambda x, f=f: f(x))
        each(lambda x, f=f: f(x, axis=1), shapes=[(2, 3), (None, 2), (3,)])
        each(lambda x, f=f: f(x, axis=0, dtype=np.float32), shapes=[(2, 3), (None,)])
    for off in (0, 1, -1, 5):
        each(lambda x, off=off: np.trace(x, off), shapes=[(3, 3), (2, 4, 5), (None, 3), (3,),
                                                           (0, 2), (None, None)])
        each(lambda x, off=off: np.diagonal(x, off, 1, 2), shapes=[(3, 3), (2, 4, 5),
                                                                     (None, 3, 2), (4, 2, 2)])
    each(lambda x: np.trace(x, dtype=np.float32), shapes=[(3, 3)])
    each(lambda x: np.diagonal(x, 0, 1, 1), shapes=[(3, 3)])


def test_where_and_clip():
    for a in ALL_DTYPES[::2]:
        for b in ALL_DTYPES:
            check_rule(lambda c, x, y: np.where(c, x, y), [((2, 3), bool), ((3,), a), ((2, 1), b)])
        for s in (1, 2.5, 1j, True):
            check_rule(lambda c, x, s=s: np.where(c, x, s), [((2,), bool), ((2,), a)])
            check_rule(lambda c, x, s=s: np.where(c, s, x), [((2,), bool), ((2,), a)])
    for sc, sx in [((None, 3), (3,)), ((2, 3), (4,)), ((None,), (None,)), ((0,), (1,))]:
        check_rule(lambda c, x: np.where(c, x, 0.0), [(sc, bool), (sx, np.float32)])
    for d in ALL_DTYPES:
        check_rule(lambda x: np.clip(x, 1, 2), [((3,), d)])
        check_rule(lambda x: np.clip(x, 0.5, None), [((3,), d)])
        check_rule(lambda x: np.clip(x, None, 2), [((3,), d)])
        check_rule(lambda x, y: np.clip(x, y, 3), [((2, 3), d), ((3,), np.float32)])
    check_rule(lambda x: np.clip(x, np.zeros(4), 3), [((2, 3), np.float64)])
    check_rule(lambda x: np.clip(x, 0, 3), [((None, 2), np.int16)])


@pytest.mark.parametrize("name", ["round", "around", "copy", "nan_to_num", "real", "imag",
                                  "sort", "argsort", "flip", "ravel", "zeros_like", "ones_like",
                                  "empty_like"])
def test_one_array_functions(name):
    f = getattr(np, name)
    each(lambda x: f(x), dtypes=[d for d in ALL_DTYPES if name != "round" or d.kind != "c"]
         if name not in ("sort", "argsort", "flip") else ALL_DTYPES,
         shapes=SHAPES if name not in ("sort", "argsort") else SHAPES[1:])
    if name in ("sort", "argsort", "flip"):
        for axis in (0, -1, 3, None) + (((0, 1),) if name == "flip" else ()):
            each(lambda x, axis=axis: f(x, axis=axis), shapes=[(2, 3), (None, 2), (0,)],
                 dtypes=ALL_DTYPES[::4])
    if name in ("round", "around"):
        each(lambda x: f(x, 2), dtypes=[d for d in ALL_DTYPES if d.kind != "c"][::2])
    if name.endswith("_like"):
        each(lambda x: f(x, dtype=np.int8), shapes=[(2, 3), (None,)])
        each(lambda x: f(x, shape=(4, 0)), shapes=[(2, 3), (None,)])


def test_full_like_astype_take():
    for d in ALL_DTYPES:
        check_rule(lambda x: np.full_like(x, 7), [((2, 3), d)])
        check_rule(lambda x, v: np.full_like(x, v), [((2, 3), d), ((3,), np.float32)])
        check_rule(lambda x, v: np.full_like(x, v), [((2, 3), d), ((4,), np.float32)])
        for to in (np.float32, np.int8, bool, np.complex128):
            check_rule(lambda x, to=to: np.astype(x, to), [((None, 3), d)])
            check_rule(lambda x, to=to: x.astype(to), [((2, 0), d)])
    for sa, si, axis in [((5,), (2,), None), ((3, 4), (2, 2), 1), ((None, 4), (3,), 0),
                         ((3, None), (None,), -1), ((3, 4), (2,), 2), ((0, 2), (1,), 1)]:
        for di in (np.int64, np.int8, np.uint8, bool, np.float64):
            check_rule(lambda a, i, axis=axis: np.take(a, i, axis=axis),
                       [(sa, np.float32), (si, di)], kinds=["any", "zeros"], value_error=True)


def test_products():
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            for f in (np.dot, np.inner, np.outer, np.vdot):
                check_rule(lambda x, y, f=f: f(x, y), [((3,), a), ((3,), b)])
    shapes = [(), (3,), (2, 3), (3, 4), (None, 3), (3, None), (2, 3, 4), (4,), (0, 3), (3, 0)]
    for sa in shapes:
        for sb in shapes:
            for f in (np.dot, np.inner, np.outer, np.vdot):
                check_rule(lambda x, y, f=f: f(x, y), [(sa, np.float32), (sb, np.float64)])
            for axes in (0, 1, 2, ([1], [0]), ((0, 1), (0, 1))):
                check_rule(lambda x, y, axes=axes: np.tensordot(x, y, axes=axes),
                           [(sa, np.float32), (sb, np.int16)])
    for d in ALL_DTYPES:
        check_rule(lambda x: np.dot(x, 2), [((2, 3), d)])
        check_rule(lambda x: np.dot(2.5, x), [((2, 3), d)])


def test_cross():
    for sa, sb in [((3,), (3,)), ((2,), (3,)), ((4, 3), (3,)), ((None, 3), (None, 3)),
                   ((2, 3), (4, 3)), ((4,), (3,)), ((5, 3), (1, 3))]:
        for d in (np.int64, np.float32, np.complex64, np.uint8):
            check_rule(lambda a, b: np.cross(a, b), [(sa, d), (sb, np.float32)])
    check_rule(lambda a, b: np.cross(a, b, axisa=0, axisb=0), [((3, 4), float), ((3, 4), float)])
    check_rule(lambda a, b: np.cross(a, b, axis=0), [((3, 4), float), ((3, 4), float)])
    check_rule(lambda a, b: np.cross(a, b, axisc=0), [((5, 3), float), ((5, 3), float)])


def test_comparisons():
    for sa, sb in [((3,), (3,)), ((2, 3), (3,)), ((2,), (3,)), ((None,), (3,)), ((0,), ())]:
        for d in (np.int32, np.float64, np.complex64, bool):
            for f in (np.isclose, np.allclose, np.array_equal):
                check_rule(lambda a, b, f=f: f(a, b), [(sa, d), (sb, np.float32)])


def test_linalg():
    shapes = [(3, 3), (2, 3, 3), (0, 2, 2), (None, 2, 2), (None, None), (2, 3), (3,), (0, 0)]
    linalg = [d for d in ALL_DTYPES]
    for f in (np.linalg.inv, np.linalg.det):
        each(lambda x, f=f: f(x), shapes=shapes, dtypes=linalg, kinds=["eye"])
    for sa, sb in [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 4)),
                   ((None, None), (None,)), ((3, 3), (4,)), ((3, 3), (2, 3, 1)),
                   ((None, 3, 3), (3, 5)), ((2, 2), ())]:
        for a in linalg[::2]:
            check_rule(lambda x, y: np.linalg.solve(x, y), [(sa, a), (sb, np.float32)],
                       kinds=["eye", "any"])
    for ordv, axis in [(None, None), (2, None), (1, None), (np.inf, None), ("fro", None),
                       ("nuc", None), (None, 0), (1, -1), (2, (0, 1)), ("fro", 1), (3, None),
                       (-np.inf, (1, 0)), (0, 0)]:
        for keep in (False, True):
            each(lambda x, o=ordv, a=axis, k=keep: np.linalg.norm(x, o, a, k),
                 shapes=[(3,), (2, 3), (None, 3), (2, 2, 2), (0, 3)],
                 dtypes=[d for d in ALL_DTYPES if d != np.float16][::2])


def test_every_registered_function_has_a_rule():
    for name, op in functions.OPS.items():
        assert op.abstract_eval is not None, name
