"""Gradients of the functions in runtime/ops/more.py (op records with rules in
runtime/autodiff/more_rules.py, and the compositions that differentiate through their
ops) against central differences, eager tape and graph tape alike (float64), and through
`cond` and `while_loop`.

`test_gradient_rules.py::test_every_rule_has_a_case` counts these cases too.
"""
from __future__ import annotations

import numpy as np
import pytest

from runtime import cond, while_loop
from tests.runtime.gradcheck import Programs, three_way
from tests.runtime.test_gradient_rules import A, check_covers

CASES: list = []   # (id, covers, fn, args, options)


def case(id_, covers, fn, *args, **options):
    CASES.append((id_, tuple(covers), fn, args, options))


W = np.arange(1.0, 61.0)


def weighted(y):
    """y times distinct weights (so a misplaced gradient element shows)."""
    n = int(np.prod(y.shape))
    return y * W[:n].reshape(y.shape) if y.shape else y * 2.0


IDX = np.array([[0, 2, 2], [1, 0, 3]])
case("take_along_axis", ["take_along_axis"],
     lambda x: weighted(np.take_along_axis(x, IDX, axis=1)), A(2, 4))
case("take_along_axis-broadcast", ["take_along_axis"],
     lambda x: weighted(np.take_along_axis(x, IDX[:1], axis=1)), A(3, 4))
case("take_along_axis-none", ["take_along_axis"],
     lambda x: weighted(np.take_along_axis(x, np.array([5, 0, 5, -1]), axis=None)), A(2, 3))
case("partition", ["partition"], lambda x: weighted(np.partition(x, 1, axis=0)), A(4, 3))
case("cumulative_sum", ["cumsum", "pad"],
     lambda x: weighted(np.cumulative_sum(x, axis=1, include_initial=True)), A(2, 3))
case("cumulative_prod", ["cumprod"], lambda x: weighted(np.cumulative_prod(x)), A(4))
case("interp", ["interp"],
     lambda x, xp, fp: weighted(np.interp(x, xp, fp)),
     np.array([-1.3, 0.2, 0.7, 1.6, 2.4, 3.5]), np.array([0.0, 0.5, 1.1, 2.0, 3.0]), A(5))
case("interp-left-right", ["interp"],
     lambda x, fp: weighted(np.interp(x, np.array([0.0, 1.0, 2.0]), fp, left=-1.0, right=9.0)),
     np.array([-0.5, 0.3, 1.4, 2.5]), A(3))
for _mode in ("full", "same", "valid"):
    for _n, _m in ((5, 3), (2, 4)):
        case(f"convolve-{_mode}-{_n}-{_m}", ["convolve"],
             lambda a, v, mode=_mode: weighted(np.convolve(a, v, mode)), A(_n), A(_m, seed=1))
        case(f"correlate-{_mode}-{_n}-{_m}", ["correlate"],
             lambda a, v, mode=_mode: weighted(np.correlate(a, v, mode)), A(_n), A(_m, seed=1))
case("median", ["median"], lambda x: weighted(np.median(x, axis=1)), A(3, 4))
case("median-all", ["median"], lambda x: np.median(x) * 3.0, A(5))
case("quantile", ["quantile"],
     lambda x, q: weighted(np.quantile(x, q, axis=0, keepdims=True)), A(5, 2),
     np.array([0.1, 0.55]))
case("percentile", ["percentile"],
     lambda x: weighted(np.percentile(x, [20.0, 70.0], axis=(0, 2))), A(3, 2, 4))
case("cov", ["dot", "mean"], lambda x: weighted(np.cov(x)), A(3, 5))
case("cov-y", ["dot", "mean"], lambda x, y: weighted(np.cov(x, y, rowvar=False, ddof=0)),
     A(4, 2), A(4, 1, seed=1))
case("corrcoef", ["dot", "clip"], lambda x: weighted(np.corrcoef(x)), A(3, 6))
case("kron", ["reshape"], lambda a, b: weighted(np.kron(a, b)), A(2, 3), A(2, 2, seed=1))
case("select", ["where"],
     lambda x, y: weighted(np.select([x > 0.5, x < -0.5], [x * y, y], 0.25)), A(2, 3),
     A(2, 3, seed=1))
case("polyval", [np.multiply], lambda p, x: weighted(np.polyval(p, x)), A(4), A(3, seed=1))
case("block", ["concatenate"], lambda a, b: weighted(np.block([[a, b], [b, a]])), A(2, 2),
     A(2, 2, seed=1))
case("unstack-split", ["getitem"],
     lambda x: weighted(np.unstack(x, axis=1)[1] * np.array_split(x, 3, axis=1)[0][:, 0]), A(2, 4))
case("diff-prepend", ["concatenate", "diff"],
     lambda x, p: weighted(np.diff(x, prepend=p, append=p * 2)), A(2, 3), A(2, 1, seed=1))
case("searchsorted-digitize-argpartition", ["searchsorted", "digitize", "argpartition"],
     lambda x: weighted(x * (np.searchsorted(np.array([-1.0, 0.0, 1.0]), x)
                             + np.digitize(x, np.array([-0.5, 0.5]))
                             + np.argpartition(x, 1))), A(5))
case("histogram-weights", ["histogram"],
     lambda x, w: weighted(x[:4] * np.histogram(x, 4, range=(-2.0, 2.0), weights=w)[0]),
     A(6), A(6, seed=1))
case("pad-value", ["where", "pad"], lambda x, v: weighted(np.pad(x, 1, constant_values=v)),
     A(2, 2), np.float64(0.7))


# np.diag / np.rot90 / the ufunc methods (runtime/ops/matrix_forms.py, ufunc_methods.py)
case("diag-1d", ["diag"], lambda v: weighted(np.diag(v, -1)), A(3))
case("diag-2d", ["diagonal"], lambda m: weighted(np.diag(m, 1)), A(3, 4))
case("diagflat", ["diag", "ravel"], lambda m: weighted(np.diagflat(m)), A(2, 2))
case("rot90", ["flip", "transpose"], lambda m: weighted(np.rot90(m, 3, axes=(2, 0))), A(2, 3, 4))
case("add.reduceat", ["ufunc_reduceat"],
     lambda x: weighted(np.add.reduceat(x, np.array([0, 2, 1, 3]), axis=1)), A(3, 4))
case("maximum.accumulate", ["ufunc_accumulate"],
     lambda x: weighted(np.maximum.accumulate(x, axis=1) + np.fmin.accumulate(x[::-1])), A(3, 4))
case("add.reduce-accumulate-outer", ["sum", "cumsum"],
     lambda x, y: weighted(np.add.outer(np.add.reduce(x, axis=1), np.add.accumulate(y))),
     A(2, 3), A(3))


def _scatter(x, b):
    a = x * 1.0
    np.add.at(a, np.array([0, 0, 2]), b)  # a repeated index adds twice
    np.subtract.at(a, np.array([1, 1]), b[:2])
    return weighted(a)


case("add.at-subtract.at", ["index_update"], _scatter, A(4), A(3))


@pytest.mark.parametrize("id_, covers, fn, args, options", CASES, ids=[c[0] for c in CASES])
def test_rule(id_, covers, fn, args, options):
    ops = three_way(fn, *args, **options)
    check_covers(ops, covers)


programs = Programs()


@programs("cond-median-or-quantile", ({"x": A(2, 5)},), ({"x": A(2, 5, seed=3)},))
def _():
    def eager(p):
        x = p["x"]
        if np.sum(x) > 0:
            return np.median(x, axis=1)
        return np.quantile(x, 0.3, axis=1)

    def graph(p):
        x = p["x"]
        return cond(np.sum(x) > 0, lambda: np.median(x, axis=1),
                    lambda: np.quantile(x, 0.3, axis=1))
    return eager, graph


_XP = np.array([0.0, 0.4, 1.0, 1.7, 2.5])


@programs("while-interp-convolve", ({"fp": A(5), "k": np.array([0.3, 0.5, 0.2])},
                                    np.array([0.1, 0.9, 1.3, 2.2])))
def _():
    def eager(p, x):
        y, i = x, 0
        while i < 3:
            y = np.interp(y, _XP, p["fp"]) + np.convolve(y, p["k"], "same") * 0.1
            i += 1
        return y

    def graph(p, x):
        fp, k = p["fp"], p["k"]
        return while_loop(lambda i, y: i < 3,
                          lambda i, y: (i + 1, np.interp(y, _XP, fp)
                                        + np.convolve(y, k, "same") * 0.1),
                          (np.int64(0), x))[1]
    return eager, graph


@programs("while-cumsum-cov-kron", ({"x": A(2, 3)},))
def _():
    def step(x):
        return np.cumulative_sum(x, axis=1) * 0.3 + np.cov(x) @ x * 0.1 + \
            np.kron(x[:, :1], np.ones((1, 3))) * 0.05

    def eager(p):
        y, i = p["x"], 0
        while i < 2:
            y = step(y)
            i += 1
        return y

    def graph(p):
        return while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, step(y)),
                          (np.int64(0), p["x"]))[1]
    return eager, graph


@pytest.mark.parametrize("name, k", programs.params())
def test_program(name, k):
    programs.check(name, k)
