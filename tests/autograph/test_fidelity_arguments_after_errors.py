"""Arguments after an error the graph raises: an argument array written before a failing
`assert` or a `raise` under a symbolic condition holds what NumPy leaves in it (the
writes made before the error are done; those after it are not). Eager NumPy vs
`ag.function` (optimized and not) vs `jit_compile=True`, on fresh copies.

Loops, errors raised by operations and Python state:
test_fidelity_effects_before_errors.py.
"""
import warnings

import numpy as np
import pytest

import autograph as ag

MODES = [{}, {"optimize": False}, {"jit_compile": True}]


def write_then_raise(x, n):
    x[0] = 7.0
    if n > 2:
        raise ValueError("too big")
    x[1] = 8.0
    return x * 2


def add_then_assert(x, n):
    x += n
    assert x.sum() < 0, "positive"
    x *= 2
    return x


def two_arguments(x, y, n):
    y[:] = x * 3
    x[2] = -1.0
    if n > 0:
        raise KeyError("n")
    return x + y


def _outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return (type(e).__name__, str(e).split("\n")[0])


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("fn, make_args", [
    (write_then_raise, lambda n: (np.zeros(3), np.int64(n))),
    (add_then_assert, lambda n: (np.zeros(3), np.float64(n))),
    (two_arguments, lambda n: (np.ones(3), np.zeros(3), np.int64(n - 2))),
])
@pytest.mark.parametrize("n", [1, 5, 9])
def test_arguments_hold_what_numpy_leaves(fn, make_args, n, options):
    eager_args, graph_args = make_args(n), make_args(n)
    expected = _outcome(fn, eager_args)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        got = _outcome(ag.function(fn, **options), graph_args)
    assert got[0] == expected[0], (got, expected)
    if got[0] == "ok":
        np.testing.assert_array_equal(got[1], expected[1])
    for e, g in zip(eager_args, graph_args):
        np.testing.assert_array_equal(g, e)
