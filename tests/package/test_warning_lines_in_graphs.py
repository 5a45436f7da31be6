"""NumPy's floating-point warnings raised while a graph runs are shown at the user's line,
as eager NumPy shows them, with the default executor and with `jit_compile=True`
(a compiled region whose guard fires reruns on NumPy and warns from there), including
operations at the end of a branch, a loop body or a `try` body, which the executor
spells inside the statement assigning their results.

Differential: category, message, file and line of every warning, against the plain
Python function on the same inputs.
"""
from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import autograph as ag


def log_of_double(x):
    y = x * 2.0
    return np.log(y)


def ratio(x, d):
    return x / d


def ratio_in_branch(x, d):
    if np.sum(x) > 0:
        y = x / d
    else:
        y = x * 2.0
    return y


def overflow_in_else(x):
    if np.sum(x) > 1e308:
        y = x
    else:
        y = np.exp(x) * 1e300
    return y


def divide_in_loop(x, n):
    i = np.int64(0)
    while i < n:
        x = np.sqrt(x - 10.0)
        i += 1
    return x


def divide_in_try(x, d):
    try:
        y = x / d
    except ZeroDivisionError:
        y = x
    return y


def fused_ratio(x, d):
    y = (x + 1.0) / d
    return y * 2.0 - 1.0


def fused_in_branch(x, d):
    if np.sum(x) > 0:
        y = (x + 1.0) / d * 3.0 - x
    else:
        y = x
    return y


BIG, SMALL = 10007, 3  # arrays large enough for a compiled region, and scalars-like ones
CASES = [
    (log_of_double, lambda n: (-np.ones(n),)),
    (ratio, lambda n: (np.ones(n), np.zeros(n))),
    (ratio, lambda n: (np.float64(1.0), np.float64(0.0))),
    (ratio_in_branch, lambda n: (np.ones(n), np.zeros(n))),
    (overflow_in_else, lambda n: (np.full(n, 800.0),)),
    (divide_in_loop, lambda n: (np.ones(n), np.int64(1))),
    (divide_in_try, lambda n: (np.ones(n), np.zeros(n))),
    (fused_ratio, lambda n: (np.ones(n), np.zeros(n))),
    (fused_in_branch, lambda n: (np.ones(n), np.zeros(n))),
]


def _seen(fn, args) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        fn(*args)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


_needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                  reason="needs numba")


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=[pytest.mark.slow, _needs_numba])],
                         ids=["default", "jit"])
@pytest.mark.parametrize("size", [SMALL, BIG])
@pytest.mark.parametrize("case", range(len(CASES)),
                         ids=[f"{fn.__name__}{i}" for i, (fn, _) in enumerate(CASES)])
def test_warnings_of_a_graph_are_at_the_users_line(case, size, jit):
    fn, make = CASES[case]
    eager = _seen(fn, make(size))
    assert eager, "the case warns eagerly"
    assert _seen(ag.function(fn, jit_compile=jit), make(size)) == eager


@pytest.mark.slow
@_needs_numba
def test_the_jit_cases_run_compiled_regions_whose_guards_fire():
    compiled = []
    for fn, make in CASES:
        f = ag.function(fn, jit_compile=True)
        _seen(f, make(BIG))
        report = f.get_concrete_function(*make(BIG)).jit_report
        compiled += [fn.__name__ for line in report  # compiled now or by an earlier run
                     if line.startswith("region") and "not compiled" not in line]
    assert {"fused_ratio", "fused_in_branch", "divide_in_loop"} <= set(compiled)
