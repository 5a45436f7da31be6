"""Differential tests of the ufunc shape/dtype rules (runtime/ops/ufuncs_rules.py).

Every NumPy ufunc, over all dtype pairs and Python-scalar kinds (NEP 50), and over
generated shapes incl. 0-size and unknown (None) dims: the rule's shape/dtype (or static
error) equals what NumPy actually does (shape_rules_check.check_rule).
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.shape_rules_check import ALL_DTYPES, PY_SCALARS, check_rule

UFUNCS = sorted({getattr(np, n) for n in dir(np) if isinstance(getattr(np, n), np.ufunc)},
                key=lambda u: u.__name__)
ELEMENTWISE = [u for u in UFUNCS if u.signature is None]
UNARY = [u for u in ELEMENTWISE if u.nin == 1]
BINARY = [u for u in ELEMENTWISE if u.nin == 2]
GUFUNCS = [u for u in UFUNCS if u.signature is not None]

SHAPE_PAIRS = [
    ((), ()), ((3,), ()), ((), (0,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((0, 3), (1, 3)),
    ((2, 3), (4,)),                      # broadcast mismatch: a static ValueError
    ((None,), (3,)), ((None, 3), (None, 1)), ((None,), (None,)), ((1, None), (4, 1)),
    ((None, 2), (3,)),                   # mismatch whatever None is
    ((None, 0), (1,)),
]


def _call(u):
    def fn(*xs):
        return u(*xs)
    fn.__name__ = u.__name__
    return fn


@pytest.mark.parametrize("u", UNARY, ids=lambda u: u.__name__)
def test_unary_ufunc_every_dtype(u):
    for dt in ALL_DTYPES:
        check_rule(_call(u), [((2, 3), dt)])
    for shp in ((), (0,), (None,), (None, 2, 0)):
        check_rule(_call(u), [(shp, np.float64)])


@pytest.mark.parametrize("u", BINARY, ids=lambda u: u.__name__)
def test_binary_ufunc_every_dtype_pair(u):
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            check_rule(_call(u), [((2,), a), ((2,), b)])


@pytest.mark.parametrize("u", BINARY, ids=lambda u: u.__name__)
def test_binary_ufunc_python_scalars(u):
    for dt in ALL_DTYPES:
        for s in PY_SCALARS:
            def left(x, s=s):
                return u(x, s)

            def right(x, s=s):
                return u(s, x)
            # bool ** -3: "Integers to negative integer powers" is a value error (run time)
            value_error = u is np.power and s == -3
            check_rule(left, [((3,), dt)], value_error=value_error)
            check_rule(right, [((3,), dt)], value_error=value_error)


@pytest.mark.parametrize("u", [np.add, np.multiply, np.greater, np.divmod, np.arctan2,
                               np.left_shift, np.logical_and], ids=lambda u: u.__name__)
def test_binary_ufunc_shapes(u):
    for sa, sb in SHAPE_PAIRS:
        for dt in (np.int32, np.float64, bool):
            check_rule(_call(u), [(sa, dt), (sb, dt)])


def test_ufunc_dtype_and_casting_keywords():
    for dt in ALL_DTYPES:
        for out in (np.float32, np.int64, np.complex128, bool):
            check_rule(lambda x, out=out: np.add(x, x, dtype=out), [((2,), dt)])
            check_rule(lambda x, out=out: np.multiply(x, 2, dtype=out, casting="unsafe"),
                       [((2,), dt)])
        check_rule(lambda x: np.add(x, 1.5, casting="no"), [((2,), dt)])
        check_rule(lambda x: np.sqrt(x, signature=(None, np.float64)), [((2,), dt)])


SHAPES_GUFUNC = [(3,), (2, 3), (0, 3), (None, 3), (3, None), (2, 3, 3), (None, None),
                 (), (4,), (1, 3, 4), (3, 4)]


@pytest.mark.parametrize("u", GUFUNCS, ids=lambda u: u.__name__)
def test_gufunc_shapes_and_dtypes(u):
    for sa in SHAPES_GUFUNC:
        for sb in SHAPES_GUFUNC:
            check_rule(_call(u), [(sa, np.float64), (sb, np.float64)])
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            check_rule(_call(u), [((2, 2), a), ((2, 2), b)])


def test_matmul_operator_with_unknown_dims():
    for sa, sb in [((None, 3), (3, 4)), ((None, 3), (3, None)), ((5, None), (None, 2)),
                   ((None,), (None,)), ((None, 2, 3), (1, 3, None))]:
        check_rule(lambda a, b: a @ b, [(sa, np.float32), (sb, np.float32)])
