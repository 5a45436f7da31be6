"""Differential tests of the functions in runtime/ops/more.py and more_stats.py: graph
(generated code) vs eager NumPy vs the reference interpreter in value, dtype and shape
(check_three_ways), the static shape/dtype rules against NumPy over generated shapes and
dtypes, 0-size and batched inputs included (check_rule), and the clear errors for what
graphs cannot express."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import check_three_ways
from tests.runtime.shape_rules_check import ALL_DTYPES, check_rule

X = np.arange(24.0).reshape(2, 3, 4) % 7 + 0.5
REAL = [d for d in ALL_DTYPES if d.kind in "biuf"]

THREE_WAY = {
    "cumulative_sum": lambda x: np.cumulative_sum(x, axis=1, include_initial=True),
    "cumulative_sum-1d": lambda x: np.cumulative_sum(x[0, 0], dtype=np.float32),
    "cumulative_prod": lambda x: np.cumulative_prod(x, axis=-1),
    "take_along_axis": lambda x: np.take_along_axis(x, np.argsort(x, axis=2), axis=2),
    "unstack": lambda x: np.unstack(x, axis=2),
    "split": lambda x: np.split(x, [1, 3], axis=2),
    "array_split": lambda x: np.array_split(x, 3, axis=1),
    "meshgrid": lambda x: np.meshgrid(x[0, 0], x[1, :, 0]),
    "meshgrid-ij-sparse": lambda x: np.meshgrid(x[0, 0], x[1, :, 0], indexing="ij", sparse=True),
    "searchsorted": lambda x: np.searchsorted(np.sort(x[0, 0]), x, side="right"),
    "searchsorted-sorter": lambda x: np.searchsorted(x[0, 0], x[1], sorter=np.argsort(x[0, 0])),
    "digitize": lambda x: np.digitize(x, np.array([1.0, 2.5, 4.0]), right=True),
    "interp": lambda x: np.interp(x, np.array([0.0, 2.0, 5.0]), x[0, 0, :3], left=-1.0),
    "convolve": lambda x: np.convolve(x[0, 0], x[1, 1, :3], "valid"),
    "correlate": lambda x: np.correlate(x[0, 0, :2], x[1, 1], "same"),
    "median": lambda x: np.median(x, axis=(0, 2), keepdims=True),
    "percentile": lambda x: np.percentile(x, np.array([5.0, 95.0]), axis=1),
    "quantile": lambda x: np.quantile(x.astype(np.float32), 0.25),
    "cov": lambda x: np.cov(x[0], x[1], rowvar=False, bias=True),
    "corrcoef": lambda x: np.corrcoef(x[0]),
    "kron": lambda x: np.kron(x[0, :2, :2], x[1, 0]),
    "block": lambda x: np.block([[x[0], x[1]], [x[1], x[0]]]),
    "select": lambda x: np.select([x > 4, x < 1], [x, x.astype(np.int8)]),
    "polyval": lambda x: np.polyval(x[0, 0], x.astype(np.float32)),
    "partition": lambda x: np.partition(x, (0, 2), axis=2),
    "argpartition": lambda x: np.argpartition(x, 1, axis=None),
    "histogram": lambda x: np.histogram(x, 5),
    "histogram-range-density": lambda x: np.histogram(x, 3, range=(1, 6), density=True),
    "histogram-edges": lambda x: np.histogram(x, np.array([0.0, 1.5, 4.0, 9.0]), weights=x),
    "size": lambda x: x * np.size(x, (0, 2)),
    "can_cast": lambda x: (np.can_cast(x, np.float32), np.can_cast(x, np.complex128)),
    "diff-arrays": lambda x: np.diff(x, n=2, axis=1, prepend=x[:, :1] * 2, append=x[0, 0, 0]),
    "pad-value": lambda x: np.pad(x, ((0, 1), (2, 0), (1, 1)), constant_values=x[0, 0, 1]),
    "zeros_like-0d": lambda x: np.zeros_like(x[0, 0, 0]),
    "full_like-0d": lambda x: np.full_like(x.sum(), 3),
    "broadcast_arrays": lambda x: np.broadcast_arrays(x[0], x[:, :1]),
}


@pytest.mark.parametrize("name", list(THREE_WAY))
def test_three_ways(name):
    fn = THREE_WAY[name]
    check_three_ways(fn, X)
    out, expected = ag.function(fn, autograph=False)(X), fn(X)
    # the same result types: tuples stay tuples, 0-d arrays stay arrays
    assert type(out) is type(expected)
    if isinstance(expected, (tuple, list)):
        assert [type(o) for o in out] == [type(e) for e in expected]


@pytest.mark.parametrize("x", [np.zeros((0, 3)), np.ones((4, 0)), np.arange(6.0).reshape(3, 2)])
def test_zero_size_and_batched(x):
    for fn in (lambda x: np.cumulative_sum(x, axis=0, include_initial=True),
               lambda x: np.cumulative_prod(x, axis=1),
               lambda x: np.unstack(x, axis=1),
               lambda x: np.searchsorted(np.array([0.5, 2.0]), x),
               lambda x: np.digitize(x, np.array([0.5, 2.0])),
               lambda x: np.interp(x, np.array([0.0, 3.0]), np.array([1.0, -1.0])),
               lambda x: np.take_along_axis(x, np.zeros_like(x, dtype=np.intp), axis=0),
               lambda x: np.kron(x, np.eye(2)),
               lambda x: np.meshgrid(x[0], x[:, 0]) if x.size else np.meshgrid(x),
               lambda x: np.median(x, axis=1) if x.shape[1] else np.cumulative_sum(x, axis=0)):
        check_three_ways(fn, x)


# -- static rules against NumPy over shapes and dtypes -------------------------------------
SHAPES = [(), (0,), (4,), (2, 3), (0, 3), (2, 1, 4), (None,), (None, 3), (2, None)]


def each(fn, shapes=SHAPES, dtypes=ALL_DTYPES, **kw):
    for s in shapes:
        for d in dtypes:
            check_rule(fn, [(s, d)], **kw)


def test_rules_take_along_axis():
    for s, i in [((2, 3), (2, 2)), ((2, 3), (1, 5)), ((0, 3), (0, 2)), ((None, 3), (None, 2)),
                 ((2, 3), (3,)), ((4,), (6,)), ((2, 3), (2, 2, 1))]:
        for ax in (0, 1, -1, None, 2):
            for d in (np.float32, np.int8, bool):
                check_rule(lambda a, b, ax=ax: np.take_along_axis(a, b, axis=ax),
                           [(s, d), (i, np.intp)], kinds=["any", "zeros"], value_error=True)


def test_rules_searching():
    for d in REAL[1:]:  # (boolean bins are rarely monotonic: a value error)
        for s in SHAPES:
            check_rule(lambda a, v: np.searchsorted(a, v), [((3,), d), (s, d)])
            check_rule(lambda x, b: np.digitize(x, b, right=True), [(s, d), ((3,), d)],
                       value_error=True)
        check_rule(lambda a, v: np.searchsorted(a, v), [((2, 3), d), ((2,), d)])
        check_rule(lambda x, b: np.digitize(x, b), [((2,), d), ((2, 2), d)])
        check_rule(lambda x, b: np.digitize(x, b), [((2,), d), ((), d)])


def test_rules_interp_convolve():
    for d in REAL + [np.dtype(np.complex128)]:
        for s in SHAPES:
            check_rule(lambda x, xp, fp: np.interp(x, xp, fp), [(s, np.float64), ((3,), d),
                                                                 ((3,), d)])
        check_rule(lambda x, xp, fp: np.interp(x, xp, fp), [((2,), d), ((3,), d), ((2,), d)])
        check_rule(lambda x, xp, fp: np.interp(x, xp, fp), [((2,), d), ((0,), d), ((0,), d)])
        for mode in ("full", "same", "valid", "bad"):
            for a, v in [((5,), (3,)), ((2,), (4,)), ((0,), (3,)), ((), (2,)), ((2, 2), (2,)),
                         ((None,), (3,))]:
                for f in (np.convolve, np.correlate):
                    check_rule(lambda a, v, f=f, mode=mode: f(a, v, mode), [(a, d), (v, d)])


def test_rules_order_statistics():
    for d in REAL + [np.dtype(np.complex64)]:
        for axis in (None, 0, -1, (0, 1), 3):
            for keep in (False, True):
                for s in [(3,), (2, 3), (0, 3), (2, 0), (None, 3), (2, 3, 2)]:
                    check_rule(lambda x, a=axis, k=keep: np.median(x, axis=a, keepdims=k),
                               [(s, d)])
                    for q in (0.3, np.array([0.1, 0.9]), np.float32(0.5)):
                        check_rule(lambda x, a=axis, k=keep, q=q: np.quantile(x, q, axis=a,
                                                                              keepdims=k),
                                   [(s, d)])
                    check_rule(lambda x, a=axis: np.percentile(x, [10, 90], axis=a), [(s, d)])
        for kth in (0, 2, -1, 5, (0, 1)):
            for f in (np.partition, np.argpartition):
                each(lambda x, f=f, k=kth: f(x, k), shapes=[(3,), (2, 3), (None, 3), (0,), ()],
                     dtypes=[d])
                each(lambda x, f=f, k=kth: f(x, k, axis=None), shapes=[(2, 3)], dtypes=[d])


def test_rules_histogram():
    for d in REAL:
        for s in [(5,), (2, 3), (None,)]:
            check_rule(lambda x: np.histogram(x, 4), [(s, d)])
            check_rule(lambda x: np.histogram(x, 3, range=(0.0, 2.0)), [(s, d)])
            check_rule(lambda x: np.histogram(x, np.array([0.0, 1.0, 3.0])), [(s, d)])
            check_rule(lambda x: np.histogram(x, 3, density=True), [(s, d)])
            for w in (np.float32, np.int8, bool):
                check_rule(lambda x, w: np.histogram(x, 3, weights=w), [(s, d), (s, w)])


def test_rules_compositions():
    each(lambda x: np.cumulative_sum(x, axis=0, include_initial=True), dtypes=ALL_DTYPES)
    each(lambda x: np.cumulative_prod(x), dtypes=ALL_DTYPES)
    each(lambda x: np.unstack(x, axis=-1), shapes=[(2, 3), (0, 3), (2, 0), (None, 3), ()],
         dtypes=REAL[::3])
    each(lambda x: np.array_split(x, 2), shapes=[(3,), (0, 2), (5, 3)], dtypes=REAL[::3])
    each(lambda x: np.split(x, 2), shapes=[(3,), (4, 2)], dtypes=REAL[::3])
    each(lambda x: np.kron(x, np.ones((2, 1), np.float32)), shapes=[(), (3,), (2, 3), (0, 2)],
         dtypes=ALL_DTYPES)
    each(lambda x: np.cov(x), shapes=[(3,), (2, 3), (3, 2, 2)], dtypes=ALL_DTYPES)
    each(lambda x: np.polyval(np.array([1, 2], np.int8), x), shapes=[(), (3,), (0, 2)],
         dtypes=ALL_DTYPES)
    each(lambda x: np.select([x > 1], [x], 2.5), shapes=[(), (3,), (0, 2)],
         dtypes=REAL)
    for d in ALL_DTYPES:
        check_rule(lambda x, y: np.block([[x, y]]), [((2, 2), d), ((2, 3), np.float32)])
        check_rule(lambda x, y: np.meshgrid(x, y), [((2,), d), ((3,), np.int8)])


# -- what graphs cannot express: a clear error, never a wrong answer ----------------------
@pytest.mark.parametrize("fn, match", [
    (lambda x: np.from_dlpack(x), "np.from_dlpack"),
    (lambda x: np.histogram(x, "auto"), "data-dependent number of bins"),
    (lambda x: np.pad(x, 1, constant_values=np.stack([x[:2], x[:2]])), "must be one value"),
])
def test_clear_errors(fn, match):
    with pytest.raises(TypeError, match=match) as info:
        ag.function(fn, autograph=False)(np.arange(3.0))
    assert "test_ops_more.py" in str(info.value)


def test_repeat_with_static_array_of_repeats():
    check_three_ways(lambda x: np.repeat(x, np.array([1, 0, 3]), axis=0), np.arange(6.0).reshape(3, 2))
