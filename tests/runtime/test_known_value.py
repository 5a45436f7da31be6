"""Graph values computed from constants only read as Python values while tracing, as the
NumPy arrays they stand for do (runtime/core/known_value.py); values that depend on the
function's inputs still raise GraphModeError."""
import numpy as np
import pytest

import autograph as ag
from runtime.core.errors import GraphModeError


def padding_check(x, p):
    pads = np.array([p, p + 1])  # made while tracing: a graph array
    if any(pads < 0):
        raise ValueError(f"padding cannot be negative: {p}")
    return x + pads.sum()


def sizes_from_a_made_array(x, n):
    sizes = np.array([n, n + 1])
    sizes[0] += 1
    return x * int(sizes[0]) + float(sizes[1] / 2)


def unconverted_truth(x, p):
    flags = np.array([p]) > 0
    return x if bool(flags[0]) else -x


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("p", [3, -3])
def test_a_check_on_an_array_made_of_python_numbers(p, jit):
    x = np.arange(2.0)
    f = ag.function(padding_check, jit_compile=jit)
    if p < 0:
        with pytest.raises(ValueError, match="cannot be negative: -3"):
            padding_check(x, p)
        with pytest.raises(ValueError, match="cannot be negative: -3"):
            f(x, p)
    else:
        np.testing.assert_array_equal(f(x, p), padding_check(x, p))


@pytest.mark.parametrize("n", [0, 4])
def test_int_and_float_of_a_made_array_after_a_write(n):
    x = np.arange(3.0)
    got = ag.function(sizes_from_a_made_array)(x, n)
    want = sizes_from_a_made_array(x, n)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


@pytest.mark.parametrize("p", [2, -2])
def test_without_autograph_too(p):
    x = np.arange(3.0)
    got = ag.function(unconverted_truth, autograph=False)(x, p)
    np.testing.assert_array_equal(got, unconverted_truth(x, p))


def depends_on_input(x):
    return x if bool(x[0] > 0) else -x


def test_a_value_from_an_input_is_still_refused():
    with pytest.raises(GraphModeError, match="Python bool"):
        ag.function(depends_on_input, autograph=False)(np.arange(3.0))
